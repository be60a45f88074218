import { Alert, Badge, Button, Heading, HStack, Stack, Text } from '@chakra-ui/react';
import { PlugIcon, PlusIcon } from 'lucide-react';
import { useState } from 'react';
import { proFeatures } from '@shared/plans';
import type { Integration, IntegrationTemplate } from '@shared/schemas/integrations';
import { ListSkeleton } from '../../../components/list-skeleton';
import { PageHeader } from '../../../components/page-header';
import { ProFeatureEmptyState } from '../../../components/pro-feature-empty-state';
import { QueryErrorCard } from '../../../components/query-error-card';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { effectivePlanOf, isPaymentFailed } from '../../../lib/plan-status';
import { useSubscriptionStatus } from '../../../lib/subscription-api';
import { useIntegrationsQuery } from '../../../lib/integrations-query';
import { useIntegrationTemplatesQuery } from '../api/integrations-api';
import { IntegrationDialog } from './integration-dialog';
import { IntegrationItem } from './integration-item';
import { QuickSetupTemplates } from './quick-setup-templates';
import { pluralWord } from '@shared/text/plural';

/**
 * API Integrations (spec 2 and 6): quick-setup cards, the create dialog and the list. Adding and
 * testing need Pro; without it (free, or a Pro plan whose payment failed) 'Add Integration' is
 * hidden and the cards and Test open the upgrade prompt, but existing integrations are still
 * listed and can be deleted. Until the plan has loaded those buttons wait; if it cannot load,
 * the gate applies (the server refuses anyway).
 */
export function IntegrationsPage() {
  const subscription = useSubscriptionStatus();
  const plan = subscription.data ? effectivePlanOf(subscription.data) : undefined;
  const access = plan === 'pro' ? 'pro' : plan || subscription.isError ? 'gated' : 'unknown';
  const gated = access !== 'pro';
  const integrations = useIntegrationsQuery();
  // Shared with the cards (one request): the dialog uses the chosen platform's example URL.
  const templates = useIntegrationTemplatesQuery();
  const [creating, setCreating] = useState<{ template?: IntegrationTemplate }>();
  const [gateOpen, setGateOpen] = useState(false);
  const [editing, setEditing] = useState<Integration>();

  const startCreate = (template?: IntegrationTemplate) => {
    if (access === 'pro') setCreating({ template });
    else if (access === 'gated') setGateOpen(true);
  };

  const list = integrations.data;
  const paymentFailed = !!subscription.data && isPaymentFailed(subscription.data);

  return (
    <>
      <PageHeader
        title="API Integrations"
        subtitle="Connect external platforms to create accounts there automatically."
        actions={
          access === 'pro' ? (
            <Button colorPalette="blue" onClick={() => startCreate()}>
              <PlusIcon aria-hidden="true" />
              Add Integration
            </Button>
          ) : null
        }
      />
      <Stack gap="8">
        {access === 'gated' && list && list.length > 0 ? (
          <Alert.Root status={paymentFailed ? 'warning' : 'info'} alignItems="center" flexWrap="wrap">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Description>
                {paymentFailed
                  ? 'Your last Pro payment failed. Your integrations are kept, but testing them and adding new ones needs an active Pro plan.'
                  : 'API integrations are part of the Pro plan. Your integrations are kept; upgrade to test them or add new ones.'}
              </Alert.Description>
            </Alert.Content>
            <Button size="sm" variant="outline" onClick={() => setGateOpen(true)}>
              {paymentFailed ? 'Update payment' : 'Upgrade'}
            </Button>
          </Alert.Root>
        ) : null}

        <QuickSetupTemplates gated={gated} disabled={access === 'unknown'} onChoose={startCreate} />

        <Stack as="section" aria-labelledby="active-integrations-title" gap="4">
          <HStack gap="2">
            <Heading as="h2" id="active-integrations-title" size="lg">
              Active Integrations
            </Heading>
            {list && list.length > 0 ? (
              <Badge variant="subtle">
                {list.length}
                <Text as="span" srOnly>
                  {` ${pluralWord(list.length, 'integration')}`}
                </Text>
              </Badge>
            ) : null}
          </HStack>
          {integrations.isPending ? (
            <ListSkeleton rows={3} height="24" label="Loading integrations" />
          ) : integrations.isError && !list ? (
            <QueryErrorCard
              message="Failed to load integrations."
              onRetry={() => void integrations.refetch()}
              retrying={integrations.isFetching}
            />
          ) : !list || list.length === 0 ? (
            <ProFeatureEmptyState
              feature={proFeatures.apiIntegrations}
              icon={<PlugIcon />}
              title="Add Your First Integration"
              description="Connect Salesforce, Active Directory, Okta, Workday or your own API, or start from a quick-setup card above."
              freeDescription="Create accounts directly on Salesforce, Active Directory, Okta, Workday or your own API. API integrations are part of the Pro plan."
              actionLabel="Add Integration"
              proAction={
                <Button colorPalette="blue" onClick={() => startCreate()}>
                  <PlusIcon aria-hidden="true" />
                  Create Integration
                </Button>
              }
            />
          ) : (
            <>
              {integrations.isError ? (
                <QueryErrorCard
                  message="Failed to refresh integrations."
                  onRetry={() => void integrations.refetch()}
                  retrying={integrations.isFetching}
                />
              ) : null}
              <Stack as="ul" aria-label="Integrations" gap="3" listStyleType="none">
                {list.map((integration) => (
                  <IntegrationItem
                    key={integration.id}
                    integration={integration}
                    gated={gated}
                    disabled={access === 'unknown'}
                    onGate={() => setGateOpen(true)}
                    onEdit={() => setEditing(integration)}
                  />
                ))}
              </Stack>
            </>
          )}
        </Stack>
      </Stack>

      {creating ? (
        <IntegrationDialog template={creating.template} templates={templates.data} onClose={() => setCreating(undefined)} />
      ) : null}
      {editing ? <IntegrationDialog editing={editing} templates={templates.data} onClose={() => setEditing(undefined)} /> : null}
      <UpgradePromptDialog feature={proFeatures.apiIntegrations} open={gateOpen} onOpenChange={setGateOpen} />
    </>
  );
}
