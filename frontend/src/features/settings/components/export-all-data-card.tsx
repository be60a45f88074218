import { Button, Card, HStack, Stack } from '@chakra-ui/react';
import { PackageIcon } from 'lucide-react';
import { QueuedExportDownload, QueuedExportStatus } from '../../../components/queued-export-status';
import { useFollowedExport, useStartAccountDataExport } from '../../../lib/queued-exports';

/**
 * Export All Data (Settings > Data): one zip of everything BulkOnboard holds on the user, built by
 * the export worker; a toast says when it is ready, and it stays in the Export Center's history.
 */
export function ExportAllDataCard() {
  const start = useStartAccountDataExport();
  const { latest, running } = useFollowedExport('account-data', 'All your data (ZIP)');

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Export All Data</Card.Title>
        <Card.Description>
          One zip file with your profile, settings, projects, accounts with their passwords, integrations (without their
          credentials), e-mail templates, export history and notifications, as JSON and CSV.
        </Card.Description>
      </Card.Header>
      <Card.Body>
        <Stack gap="4">
          <HStack gap="3" wrap="wrap">
            <Button onClick={() => start.mutate()} loading={start.isPending || running} loadingText="Preparing your data..." alignSelf="flex-start">
              <PackageIcon aria-hidden="true" />
              Export All Data
            </Button>
            <QueuedExportDownload latest={latest} />
          </HStack>
          <QueuedExportStatus latest={latest} idle="The file contains your passwords: keep it safe." done="The file contains your passwords: keep it safe." />
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
