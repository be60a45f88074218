import { Badge, Box, Button, Card, Flex, Heading, HStack, Spinner, Stack, Text } from '@chakra-ui/react';
import { DownloadIcon, FileDownIcon, RotateCwIcon } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { EXPORT_FILE_DAYS, type ExportView } from '@shared/schemas/export';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { ListSkeleton } from '../../../components/list-skeleton';
import { QueryErrorCard } from '../../../components/query-error-card';
import { formatDate, formatDateTime } from '../../../lib/format-date';
import { toaster } from '../../../lib/toaster';
import { useStartAccountDataExport, useStartSecurityEventsExport } from '../../../lib/queued-exports';
import { useDownloadExport } from '../../../lib/export-download';
import { isExportRunning, useExportHistoryQuery, useStartExport } from '../api/exports-api';
import { formatFileSize } from '../lib/format-file-size';
import { formatBadgeNames, formatNames } from '../lib/format-names';
import { ExportStatusBadge } from './export-status-badge';
import { plural } from '@shared/text/plural';

/** What a finished export holds: accounts, or security events for 'Export Logs'. */
const rowsOf = (entry: ExportView, count: number) => (entry.kind === 'security-events' ? plural(count, 'security event', 'security events') : plural(count, 'account'));

/** Spec 8's promise ('You'll be notified when it's ready'): a toast when a watched export is done. */
function useReadyToast(history: ExportView[] | undefined): void {
  const running = useRef<Set<string> | undefined>(undefined);
  useEffect(() => {
    if (!history) return;
    const previous = running.current;
    running.current = new Set(history.filter(isExportRunning).map((entry) => entry.id));
    if (!previous) return; // the first read: nothing was watched yet
    const ready = history.find((entry) => previous.has(entry.id) && entry.status === 'completed');
    if (ready) {
      toaster.create({
        type: 'success',
        title: 'Export ready',
        description: `${ready.projectName} (${formatNames[ready.format]}) is ready to download.`,
      });
    }
  }, [history]);
}

/** 'Export History' (spec 2): newest first, read every 2 s while an export waits or runs. */
export function ExportHistory() {
  const history = useExportHistoryQuery();
  useReadyToast(history.data);

  return (
    <Stack as="section" aria-labelledby="export-history-title" gap="4">
      <Flex justify="space-between" align="flex-end" gap="3" wrap="wrap">
        <Stack gap="1">
          <Heading as="h2" id="export-history-title" size="lg">
            Export History
          </Heading>
          <Text color="fg.muted" fontSize="sm">
            Files can be downloaded for {EXPORT_FILE_DAYS} days.
          </Text>
        </Stack>
        {history.isFetching && history.data ? <Spinner size="sm" color="fg.muted" aria-label="Refreshing export history" /> : null}
      </Flex>
      {history.isPending ? (
        <ListSkeleton rows={3} height="20" label="Loading export history" />
      ) : history.isError && !history.data ? (
        <QueryErrorCard
          message="Failed to load export history."
          onRetry={() => void history.refetch()}
          retrying={history.isFetching}
        />
      ) : history.data.length === 0 ? (
        <EmptyStateCard
          icon={<FileDownIcon />}
          title="No exports yet"
          description="An export writes the accounts of a project, with their credentials, to a CSV, Excel or JSON file you can download. Start one above."
        />
      ) : (
        <>
          {history.isError ? (
            <QueryErrorCard
              message="Failed to refresh export history."
              onRetry={() => void history.refetch()}
              retrying={history.isFetching}
            />
          ) : null}
          <Stack as="ul" aria-label="Export history" gap="3" listStyleType="none">
            {history.data.map((entry) => (
              <ExportHistoryItem key={entry.id} entry={entry} />
            ))}
          </Stack>
        </>
      )}
    </Stack>
  );
}

function ExportHistoryItem({ entry }: { entry: ExportView }) {
  const download = useDownloadExport();
  const againProject = useStartExport();
  const againAccountData = useStartAccountDataExport();
  const againSecurityEvents = useStartSecurityEventsExport();
  const again = entry.kind === 'account-data' ? againAccountData : entry.kind === 'security-events' ? againSecurityEvents : againProject;
  const exportAgain = () => {
    if (entry.kind === 'account-data' || entry.format === 'zip') againAccountData.mutate();
    else if (entry.kind === 'security-events') againSecurityEvents.mutate();
    else againProject.mutate({ projectId: entry.projectId, format: entry.format });
  };
  const completed = entry.status === 'completed';
  const failed = entry.status === 'failed';
  const downloadable = completed && !entry.expired;
  const facts = [
    completed && entry.rowCount !== undefined ? rowsOf(entry, entry.rowCount) : undefined,
    completed && entry.sizeBytes !== undefined ? formatFileSize(entry.sizeBytes) : undefined,
  ].filter(Boolean);

  return (
    <Card.Root as="li" variant="outline" size="sm">
      <Card.Body>
        <Flex
          direction={{ base: 'column', md: 'row' }}
          justify="space-between"
          align={{ base: 'stretch', md: 'center' }}
          gap="3"
        >
          <Stack gap="1" minW="0">
            <HStack gap="2" wrap="wrap">
              <Text fontWeight="semibold" wordBreak="break-word">
                {entry.projectName}
              </Text>
              <Badge variant="outline">
                {formatBadgeNames[entry.format]}
              </Badge>
              <ExportStatusBadge status={entry.status} />
            </HStack>
            <Text fontSize="sm" color="fg.muted">
              <time dateTime={entry.createdAt}>{formatDateTime(entry.createdAt)}</time>
              {facts.map((fact) => ` · ${fact}`).join('')}
            </Text>
            {isExportRunning(entry) ? (
              <Text fontSize="sm" color="fg.muted">
                {entry.status === 'pending' ? 'Waiting to start...' : 'Writing the file...'}
              </Text>
            ) : failed ? (
              <Text fontSize="sm" color="fg.error" wordBreak="break-word">
                {entry.error ?? 'The export could not be written.'}
              </Text>
            ) : entry.expired ? (
              <Text fontSize="sm" color="fg.warning">
                Expired <time dateTime={entry.fileExpiresAt}>{formatDate(entry.fileExpiresAt)}</time>
              </Text>
            ) : completed ? (
              <Text fontSize="sm" color="fg.muted">
                Expires <time dateTime={entry.fileExpiresAt}>{formatDate(entry.fileExpiresAt)}</time>
              </Text>
            ) : null}
          </Stack>
          {downloadable ? (
            <Box flexShrink="0">
              <Button
                size="sm"
                colorPalette="blue"
                w={{ base: 'full', md: 'auto' }}
                loading={download.isPending}
                loadingText="Preparing..."
                onClick={() => download.mutate(entry.id)}
              >
                <DownloadIcon aria-hidden="true" />
                Download
              </Button>
            </Box>
          ) : (failed || entry.expired) && entry.kind !== 'directory' ? (
            <Box flexShrink="0">
              <Button
                size="sm"
                variant="outline"
                w={{ base: 'full', md: 'auto' }}
                loading={again.isPending}
                loadingText="Starting..."
                onClick={exportAgain}
              >
                <RotateCwIcon aria-hidden="true" />
                {failed ? 'Try again' : 'Export again'}
              </Button>
            </Box>
          ) : null}
        </Flex>
      </Card.Body>
    </Card.Root>
  );
}
