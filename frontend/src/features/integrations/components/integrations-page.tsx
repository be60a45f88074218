import { PlugIcon } from 'lucide-react';
import { proFeatures } from '@shared/plans';
import { PageHeader } from '../../../components/page-header';
import { ProFeatureEmptyState } from '../../../components/pro-feature-empty-state';

/** Spec 6: free users get no 'Add Integration' button; the empty state's button opens the gate. */
export function IntegrationsPage() {
  return (
    <>
      <PageHeader title="API Integrations" subtitle="Connect external platforms to create accounts there automatically." />
      <ProFeatureEmptyState
        feature={proFeatures.apiIntegrations}
        icon={<PlugIcon />}
        title="Add Your First Integration"
        description="Salesforce, Active Directory, Okta, Workday and custom APIs. Integrations arrive in an upcoming release."
        freeDescription="Create accounts directly on Salesforce, Active Directory, Okta, Workday or your own API. API integrations are part of the Pro plan."
        actionLabel="Add Integration"
      />
    </>
  );
}
