import { Button, Card, List, Stack, Text } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import { useNavigate } from 'react-router';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { UPGRADE_PATH } from './plan-usage-banner';

/** At a plan limit (spec 6): the limit reached, instead of the upload and entry tabs. */
export function UpgradeRequiredCard({ usage }: { usage: SubscriptionStatus['usage'] }) {
  const navigate = useNavigate();
  const reasons = [
    ...(usage.canCreateProject ? [] : ['You have reached your project limit.']),
    ...(usage.canCreateAccount ? [] : ['You have reached your account limit.']),
  ];
  return (
    <Card.Root variant="outline" borderColor="orange.muted">
      <Card.Body>
        <Stack align="center" textAlign="center" gap="4" py="6">
          <Stack
            align="center"
            justify="center"
            w="12"
            h="12"
            borderRadius="full"
            bg="orange.subtle"
            color="orange.fg"
            aria-hidden="true"
          >
            <CrownIcon size={24} />
          </Stack>
          <Card.Title as="h2" fontSize="xl">
            Upgrade Required
          </Card.Title>
          <List.Root variant="plain" gap="1" align="center">
            {reasons.map((reason) => (
              <List.Item key={reason} fontWeight="medium" justifyContent="center">
                {reason}
              </List.Item>
            ))}
          </List.Root>
          <Text color="fg.muted" maxW="md">
            Pro has unlimited projects and accounts. Your existing projects and accounts stay available in Projects
            and the Account Database.
          </Text>
          <Button colorPalette="blue" onClick={() => void navigate(UPGRADE_PATH)}>
            <CrownIcon aria-hidden="true" />
            Upgrade to Pro
          </Button>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
