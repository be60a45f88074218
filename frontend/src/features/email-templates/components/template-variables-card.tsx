import { Button, Card, Code, List, Text } from '@chakra-ui/react';
import { templateVariables, type TemplateVariable } from '@shared/schemas/email-templates';

const variableHelp: Record<TemplateVariable, string> = {
  accountHolderName: "The account holder's full name",
  email: "The account holder's e-mail address",
  username: 'The generated username',
  password: 'The generated password',
  projectName: 'The name of the project',
  companyName: 'Your company name',
  brandLogo: 'Your brand logo (from the Brand Logo URL)',
  credentialLink: 'A one-time link to the credentials (when sent with a one-time link)',
  passwordChangeNotice: 'A sentence saying a new password will be asked for at first sign-in (empty unless Require password change is on)',
  loginUrl: "Where to sign in: the project's Platform URL (empty when the project has none)",
  expirationDate: "The project's expiration date, e.g. 10 March 2030 (empty when the project has none)",
};

/** The longest token's width, so the descriptions line up. */
const tokenWidth = '10.5rem';

/**
 * The help card (spec 2): the variables a template may use, each in double braces. With `onInsert`
 * a click puts the variable into the HTML content where the cursor was.
 */
export function TemplateVariablesCard({ onInsert }: { onInsert?: (variable: TemplateVariable) => void }) {
  return (
    <Card.Root variant="outline" size="sm" as="section" aria-labelledby="template-variables-title">
      <Card.Header>
        <Card.Title as="h2" id="template-variables-title">
          Available Variables
        </Card.Title>
        <Card.Description>
          {onInsert ? 'Click a variable to insert it into the HTML content.' : 'Use these in the subject and the HTML content.'}
        </Card.Description>
      </Card.Header>
      <Card.Body>
        <List.Root variant="plain" gap="1" aria-label="Template variables">
          {templateVariables.map((variable) => {
            const token = `{{${variable}}}`;
            return (
              <List.Item
                key={variable}
                display="flex"
                flexDirection={{ base: 'column', sm: 'row' }}
                alignItems={{ base: 'flex-start', sm: 'center' }}
                columnGap="3"
                rowGap="0.5"
                pb={{ base: '1.5', sm: '0' }}
              >
                {onInsert ? (
                  <Button
                    size="xs"
                    variant="subtle"
                    fontFamily="mono"
                    minW={tokenWidth}
                    justifyContent="flex-start"
                    flexShrink="0"
                    onClick={() => onInsert(variable)}
                    aria-label={`Insert ${token}`}
                  >
                    {token}
                  </Button>
                ) : (
                  <Code size="sm" minW={tokenWidth} flexShrink="0">
                    {token}
                  </Code>
                )}
                <Text as="span" fontSize="sm" color="fg.muted" minW="0">
                  {variableHelp[variable]}
                </Text>
              </List.Item>
            );
          })}
        </List.Root>
      </Card.Body>
    </Card.Root>
  );
}
