import { Button, Card, Stack, Text } from '@chakra-ui/react';
import { FileDownIcon } from 'lucide-react';
import { toaster } from '../../../lib/toaster';
import { useExportSecurityLogs } from '../api/security-api';

/** Quick actions (spec 2): Export Logs downloads every event as CSV; Reset Passwords (helper D). */
export function SecurityQuickActions() {
  const exportLogs = useExportSecurityLogs();
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
          {/* Reset Passwords: helper D's ResetPasswordsDialog (reset-passwords-dialog.tsx) goes
              here, with its own trigger button, once that branch lands. */}
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
