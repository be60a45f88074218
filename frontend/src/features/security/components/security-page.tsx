import { ShieldCheckIcon } from 'lucide-react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';
import { SecuritySettingsCard } from './security-settings-card';

export function SecurityPage() {
  return (
    <>
      <PageHeader title="Security Center" subtitle="Monitor the security of your account." />
      <SecuritySettingsCard />
      <EmptyStateCard
        icon={<ShieldCheckIcon />}
        title="No security events"
        description="Sign-ins and security changes will be listed here once event tracking arrives."
      />
    </>
  );
}
