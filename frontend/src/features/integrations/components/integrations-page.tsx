import { PlugIcon } from 'lucide-react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';

export function IntegrationsPage() {
  return (
    <>
      <PageHeader
        title="API Integrations"
        subtitle="Connect external platforms to create accounts there automatically."
      />
      <EmptyStateCard
        icon={<PlugIcon />}
        title="Add Your First Integration"
        description="Salesforce, Active Directory, Okta, Workday and custom APIs. Integrations arrive in an upcoming release."
      />
    </>
  );
}
