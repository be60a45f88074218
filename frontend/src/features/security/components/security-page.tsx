import { Button } from '@chakra-ui/react';
import { KeyRoundIcon, ShieldCheckIcon } from 'lucide-react';
import { useState } from 'react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';
import { ResetPasswordsDialog } from './reset-passwords-dialog';
import { SecuritySettingsCard } from './security-settings-card';

export function SecurityPage() {
  // The quick action (helper D's dialog); the lead places it in the page's final layout.
  const [resetOpen, setResetOpen] = useState(false);
  return (
    <>
      <PageHeader title="Security Center" subtitle="Monitor the security of your account." />
      <SecuritySettingsCard />
      <Button variant="outline" alignSelf="flex-start" mb="4" onClick={() => setResetOpen(true)}>
        <KeyRoundIcon /> Reset Passwords
      </Button>
      <ResetPasswordsDialog open={resetOpen} onClose={() => setResetOpen(false)} />
      <EmptyStateCard
        icon={<ShieldCheckIcon />}
        title="No security events"
        description="Sign-ins and security changes will be listed here once event tracking arrives."
      />
    </>
  );
}
