import { Button, Card, Stack, Text } from '@chakra-ui/react';
import { FileDownIcon, KeyRoundIcon } from 'lucide-react';
import { useState } from 'react';
import { toaster } from '../../../lib/toaster';
import { useExportSecurityLogs } from '../api/security-api';
import { ResetPasswordsDialog } from './reset-passwords-dialog';

/** Quick actions (spec 2): Export Logs downloads every event as CSV; Reset Passwords gives a project's accounts new passwords. */
export function SecurityQuickActions() {
  const exportLogs = useExportSecurityLogs();
  const [resetOpen, setResetOpen] = useState(false);
  const onExport = () =>
    exportLogs.mutate(undefined, {
      onError: () => toaster.create({ type: 'error', title: 'Export failed', description: 'Failed to export security logs. Please try again.' }),
    });
  return (
    <Card.Root variant="outline" as="section" aria-labelledby="security-actions-title">
      <Card.Header>
        <Card.Title as="h2" id="security-actions-title">
          Quick Actions
        </Card.Title>
      </Card.Header>
      <Card.Body>
        <Stack gap="4">
          <Stack gap="1">
            <Button variant="outline" onClick={onExport} loading={exportLogs.isPending} loadingText="Exporting..." justifyContent="flex-start">
              <FileDownIcon aria-hidden="true" />
              Export Logs
            </Button>
            <Text fontSize="sm" color="fg.muted">
              Every security event of the last year as a CSV file.
            </Text>
          </Stack>
          <Stack gap="1">
            <Button variant="outline" onClick={() => setResetOpen(true)} justifyContent="flex-start">
              <KeyRoundIcon aria-hidden="true" />
              Reset Passwords
            </Button>
            <Text fontSize="sm" color="fg.muted">
              New passwords for every account of a project, and on its platforms where they allow it.
            </Text>
          </Stack>
          <ResetPasswordsDialog open={resetOpen} onClose={() => setResetOpen(false)} />
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
