import { Badge, Button, Card, Heading, HStack, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import { useId } from 'react';
import { authMethodLabels, type IntegrationTemplate } from '@shared/schemas/integrations';
import { ListSkeleton } from '../../../components/list-skeleton';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useIntegrationTemplatesQuery } from '../api/integrations-api';
import { PlatformIcon, PlatformIconTile } from './platform-icon';

/**
 * 'Quick Setup' (spec 2): a card per built-in template (Salesforce, Active Directory, Okta,
 * Workday, custom). A card opens the create dialog with its platform and methods chosen; without
 * Pro it opens the upgrade prompt instead (`gated`).
 */
export function QuickSetupTemplates({
  gated,
  disabled,
  onChoose,
}: {
  gated: boolean;
  /** While the plan loads: which of the two a card opens is not known yet. */
  disabled?: boolean;
  onChoose: (template: IntegrationTemplate) => void;
}) {
  const templates = useIntegrationTemplatesQuery();
  return (
    <Stack as="section" aria-labelledby="quick-setup-title" gap="4">
      <Stack gap="1">
        <Heading as="h2" id="quick-setup-title" size="lg">
          Quick Setup
        </Heading>
        <Text color="fg.muted" fontSize="sm">
          Start from a platform: its API type, sign-in method and test path are filled in.
        </Text>
      </Stack>
      {templates.isPending ? (
        <ListSkeleton rows={2} height="20" label="Loading quick-setup templates" />
      ) : templates.isError ? (
        <QueryErrorCard
          message="Failed to load the quick-setup templates."
          onRetry={() => void templates.refetch()}
          retrying={templates.isFetching}
        />
      ) : (
        <SimpleGrid as="ul" aria-label="Quick-setup templates" listStyleType="none" columns={{ base: 1, sm: 2, xl: 3 }} gap="4">
          {templates.data.map((template) => (
            <TemplateCard key={template.id} template={template} gated={gated} disabled={disabled} onChoose={() => onChoose(template)} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

function TemplateCard({
  template,
  gated,
  disabled,
  onChoose,
}: {
  template: IntegrationTemplate;
  gated: boolean;
  disabled?: boolean;
  onChoose: () => void;
}) {
  const titleId = useId();
  return (
    <Card.Root as="li" aria-labelledby={titleId} variant="outline" size="sm">
      <Card.Body gap="3">
        <HStack gap="3" align="center">
          <PlatformIconTile platform={template.platform} tone="accent" />
          <Card.Title id={titleId} as="h3" fontSize="md">
            {template.name}
          </Card.Title>
        </HStack>
        <Card.Description flex="1">{template.description}</Card.Description>
        <HStack gap="2" wrap="wrap">
          {template.ready ? (
            <Badge variant="subtle" colorPalette="green">
              Ready to use
            </Badge>
          ) : null}
          <Badge variant="outline">{template.apiType}</Badge>
          <Badge variant="outline">{authMethodLabels[template.authMethod]}</Badge>
        </HStack>
      </Card.Body>
      <Card.Footer>
        <Button size="sm" variant="outline" w="full" disabled={disabled} onClick={onChoose} aria-label={`Set up ${template.name}`}>
          {gated ? <CrownIcon aria-hidden="true" /> : <PlatformIcon platform={template.platform} size={16} />}
          Set up
        </Button>
      </Card.Footer>
    </Card.Root>
  );
}
