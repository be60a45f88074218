import { Badge, Button, Card, Flex, HStack, Stack, Text } from '@chakra-ui/react';
import { CrownIcon, PencilIcon, PlugZapIcon, Trash2Icon } from 'lucide-react';
import { useId, useState } from 'react';
import { authMethodLabels, platformLabels, type Integration } from '@shared/schemas/integrations';
import { provisioningSupport } from '@shared/schemas/provisioning';
import { formatDateTime } from '../../../lib/format-date';
import { useTestIntegration } from '../api/integrations-api';
import { DeleteIntegrationDialog } from './delete-integration-dialog';
import { IntegrationTestBadge } from './integration-test-badge';
import { PlatformIconTile } from './platform-icon';

/**
 * One integration of 'Active Integrations': what it connects to, its last test, and Test, Edit
 * and Delete. Without Pro, Test and Edit open the upgrade prompt (`gated`); Delete stays.
 */
export function IntegrationItem({
  integration,
  gated,
  disabled,
  onGate,
  onEdit,
}: {
  integration: Integration;
  gated: boolean;
  /** While the plan loads: whether Test runs or opens the gate is not known yet. */
  disabled?: boolean;
  onGate: () => void;
  onEdit: () => void;
}) {
  const titleId = useId();
  const test = useTestIntegration();
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const tested = !!integration.lastTestDate;
  const target = provisioningSupport(integration);

  return (
    <Card.Root as="li" aria-labelledby={titleId} variant="outline" size="sm">
      <Card.Body>
        <Flex direction={{ base: 'column', md: 'row' }} justify="space-between" align={{ base: 'stretch', md: 'center' }} gap="4">
          <HStack gap="3" align="flex-start" minW="0">
            <PlatformIconTile platform={integration.platform} />
            <Stack gap="1" minW="0">
              <HStack gap="2" wrap="wrap">
                <Text as="h3" id={titleId} fontWeight="semibold" wordBreak="break-word">
                  {integration.name}
                </Text>
                <Badge colorPalette={integration.isActive ? 'green' : 'gray'} variant="subtle">
                  {integration.isActive ? 'Active' : 'Inactive'}
                </Badge>
                <IntegrationTestBadge integration={integration} />
              </HStack>
              <Text fontSize="sm" color="fg.muted">
                {platformLabels[integration.platform] ?? integration.platform} · {integration.apiType} ·{' '}
                {authMethodLabels[integration.authMethod] ?? integration.authMethod}
              </Text>
              <Text fontSize="sm" fontFamily="mono" color="fg.muted" truncate title={integration.baseUrl}>
                {integration.baseUrl}
              </Text>
              {target.supported ? null : (
                <Text fontSize="sm" color="fg.muted" wordBreak="break-word">
                  {target.reason}
                </Text>
              )}
              {integration.description ? (
                <Text fontSize="sm" lineClamp={2} wordBreak="break-word">
                  {integration.description}
                </Text>
              ) : null}
              <Text
                fontSize="sm"
                color={tested && integration.lastTestStatus === 'failed' ? 'fg.error' : 'fg.muted'}
                wordBreak="break-word"
              >
                {tested ? (
                  <>
                    Last tested <time dateTime={integration.lastTestDate}>{formatDateTime(integration.lastTestDate!)}</time>
                    {integration.lastTestMessage ? `: ${integration.lastTestMessage}` : ''}
                  </>
                ) : (
                  'Not tested yet: Test checks that the platform answers with these credentials.'
                )}
              </Text>
            </Stack>
          </HStack>
          <HStack gap="2" flexShrink="0" wrap="wrap">
            <Button
              size="sm"
              variant="outline"
              disabled={disabled}
              loading={test.isPending}
              loadingText="Testing..."
              onClick={() => (gated ? onGate() : test.mutate(integration.id))}
            >
              {gated ? <CrownIcon aria-hidden="true" /> : <PlugZapIcon aria-hidden="true" />}
              Test
            </Button>
            <Button size="sm" variant="outline" disabled={disabled} onClick={() => (gated ? onGate() : onEdit())}>
              {gated ? <CrownIcon aria-hidden="true" /> : <PencilIcon aria-hidden="true" />}
              Edit
            </Button>
            <Button size="sm" variant="outline" colorPalette="red" onClick={() => setConfirmingDelete(true)}>
              <Trash2Icon aria-hidden="true" />
              Delete
            </Button>
          </HStack>
        </Flex>
      </Card.Body>
      <DeleteIntegrationDialog integration={integration} open={confirmingDelete} onOpenChange={setConfirmingDelete} />
    </Card.Root>
  );
}
