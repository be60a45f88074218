import { Button, Card, HStack, Link, Stack, Text } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { DownloadIcon, PackageIcon } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { Link as RouterLink } from 'react-router';
import type { ExportView } from '@shared/schemas/export';
import { useStartAccountDataExport } from '../../../lib/account-data-export';
import { apiRequest } from '../../../lib/api-client';
import { useDownloadExport } from '../../../lib/export-download';
import { formatDateTime } from '../../../lib/format-date';
import { pollCap } from '../../../lib/poll-cap';
import { queryKeys } from '../../../lib/query-keys';
import { toaster } from '../../../lib/toaster';

const POLL_MS = pollCap(2000);
const running = (entry: ExportView) => entry.status === 'pending' || entry.status === 'processing';

/** The newest Export All Data of the user, from the export history (read every 2 s while it runs). */
function useLatestAccountDataExport(): ExportView | undefined {
  const history = useQuery({
    queryKey: queryKeys.exportHistory,
    queryFn: () => apiRequest<ExportView[]>('/api/exports/history'),
    refetchInterval: (query) => (query.state.data?.some((entry) => entry.kind === 'account-data' && running(entry)) ? POLL_MS : false),
    staleTime: 60_000,
    refetchOnWindowFocus: true,
  });
  return history.data?.find((entry) => entry.kind === 'account-data');
}

/**
 * Export All Data (Settings > Data): one zip of everything BulkOnboard holds on the user, built by
 * the export worker; a toast says when it is ready, and it stays in the Export Center's history.
 */
export function ExportAllDataCard() {
  const start = useStartAccountDataExport();
  const latest = useLatestAccountDataExport();
  useReadyToast(latest);
  const busy = start.isPending || (latest !== undefined && running(latest));
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
          <Text fontSize="sm" color="fg.muted" aria-live="polite">
            {latest === undefined
              ? 'The file contains your passwords: keep it safe.'
              : running(latest)
                ? 'Your export is being prepared.'
                : latest.status === 'failed'
                  ? (latest.error ?? 'The export failed. Please try again.')
                  : latest.expired
                    ? 'Your last export has expired. Export again for a new file.'
                    : `Last export ${formatDateTime(latest.createdAt)}. The file contains your passwords: keep it safe.`}{' '}
            <Link asChild colorPalette="blue">
              <RouterLink to="/exports">Export Center</RouterLink>
            </Link>
          </Text>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}

/** 'You'll be notified when it's ready' (spec 8): a toast when an export watched here completes. */
function useReadyToast(latest: ExportView | undefined): void {
  const watched = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!latest) return;
    if (running(latest)) {
      watched.current = latest.id;
      return;
    }
    if (watched.current === latest.id) {
      watched.current = undefined;
      if (latest.status === 'completed') {
        toaster.create({ type: 'success', title: 'Export ready', description: 'All your data (ZIP) is ready to download.' });
      } else if (latest.status === 'failed') {
        toaster.create({ type: 'error', title: 'Export failed', description: latest.error ?? 'The export failed. Please try again.' });
      }
    }
  }, [latest]);
}
