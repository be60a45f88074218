import { Button, Card, HStack, Stack } from '@chakra-ui/react';
import { DownloadIcon, PackageIcon } from 'lucide-react';
import { QueuedExportStatus } from '../../../components/queued-export-status';
import { useDownloadExport } from '../../../lib/export-download';
import { isExportRunning, useExportReadyToast, useLatestExport, useStartAccountDataExport } from '../../../lib/queued-exports';

/**
 * Export All Data (Settings > Data): one zip of everything BulkOnboard holds on the user, built by
 * the export worker; a toast says when it is ready, and it stays in the Export Center's history.
 */
export function ExportAllDataCard() {
  const start = useStartAccountDataExport();
  const latest = useLatestExport('account-data');
  useExportReadyToast(latest, 'All your data (ZIP)');
  const busy = start.isPending || (latest !== undefined && isExportRunning(latest));
  const download = useDownloadExport();
  const downloadable = latest?.status === 'completed' && !latest.expired;

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
            <Button onClick={() => start.mutate()} loading={busy} loadingText="Preparing your data..." alignSelf="flex-start">
              <PackageIcon aria-hidden="true" />
              Export All Data
            </Button>
            {downloadable ? (
              <Button variant="outline" loading={download.isPending} loadingText="Preparing..." onClick={() => download.mutate(latest.id)}>
                <DownloadIcon aria-hidden="true" />
                Download
              </Button>
            ) : null}
          </HStack>
          <QueuedExportStatus latest={latest} idle="The file contains your passwords: keep it safe." done="The file contains your passwords: keep it safe." />
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
