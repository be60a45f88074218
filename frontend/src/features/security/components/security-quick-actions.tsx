import { Button, Card, HStack, Stack, Text } from '@chakra-ui/react';
import { FileDownIcon, KeyRoundIcon } from 'lucide-react';
import { useState } from 'react';
import { QueuedExportDownload, QueuedExportStatus } from '../../../components/queued-export-status';
import { useFollowedExport, useStartSecurityEventsExport } from '../../../lib/queued-exports';
import { ResetPasswordsDialog } from './reset-passwords-dialog';

/**
 * Quick actions (spec 2): Export Logs makes every event of the last year into a CSV file in the
 * Export Center (as Export All Data: followed here until it is ready, then downloaded here or
 * there); Reset Passwords gives a project's accounts new passwords.
 */
export function SecurityQuickActions() {
  const exportLogs = useStartSecurityEventsExport();
  const { latest, running } = useFollowedExport('security-events', 'Your security events (CSV)');
  const [resetOpen, setResetOpen] = useState(false);
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
            <HStack gap="2" wrap="wrap">
              <Button variant="outline" onClick={() => exportLogs.mutate()} loading={exportLogs.isPending || running} loadingText="Preparing..." justifyContent="flex-start">
                <FileDownIcon aria-hidden="true" />
                Export Logs
              </Button>
              <QueuedExportDownload latest={latest} />
            </HStack>
            <QueuedExportStatus latest={latest} idle="Every security event of the last year as a CSV file, made in the" />
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
