import { Button, Link, Text } from '@chakra-ui/react';
import { DownloadIcon } from 'lucide-react';
import { Link as RouterLink } from 'react-router';
import type { ExportView } from '@shared/schemas/export';
import { useDownloadExport } from '../lib/export-download';
import { formatDateTime } from '../lib/format-date';
import { isExportRunning } from '../lib/queued-exports';

/** Where the newest export of a kind stands, in words, and the way to the Export Center (`idle`: before the first one; `done`: after 'Last export <time>.'). */
export function QueuedExportStatus({ latest, idle, done = '' }: { latest: ExportView | undefined; idle: string; done?: string }) {
  return (
    <Text fontSize="sm" color="fg.muted" aria-live="polite">
      {latest === undefined
        ? idle
        : isExportRunning(latest)
          ? 'Your export is being prepared.'
          : latest.status === 'failed'
            ? (latest.error ?? 'The export failed. Please try again.')
            : latest.expired
              ? 'Your last export has expired. Export again for a new file.'
              : `Last export ${formatDateTime(latest.createdAt)}.${done ? ` ${done}` : ''}`}{' '}
      <Link asChild colorPalette="blue">
        <RouterLink to="/exports">Export Center</RouterLink>
      </Link>
    </Text>
  );
}

/** 'Download' of the newest export of a kind, once its file is ready (nothing otherwise). */
export function QueuedExportDownload({ latest }: { latest: ExportView | undefined }) {
  const download = useDownloadExport();
  if (latest?.status !== 'completed' || latest.expired) return null;
  return (
    <Button variant="outline" loading={download.isPending} loadingText="Preparing..." onClick={() => download.mutate(latest.id)}>
      <DownloadIcon aria-hidden="true" />
      Download
    </Button>
  );
}
