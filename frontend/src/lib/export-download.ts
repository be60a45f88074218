import { useMutation } from '@tanstack/react-query';
import type { ExportDownload } from '@shared/schemas/export';
import { apiRequest, serverMessageOf } from './api-client';
import { toaster } from './toaster';

/** Follows a link the way a click on it would (the file comes from another origin: S3). */
function followLink(href: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = '';
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
}

/**
 * 'Download' of a finished export (Export Center, Settings > Data): the server mints a
 * 15-minute link for this one download and records it as a security event, then the browser
 * follows it. An export that expired or is not ready says so in a toast.
 */
export function useDownloadExport() {
  return useMutation({
    mutationFn: (exportId: string) => apiRequest<ExportDownload>(`/api/exports/${encodeURIComponent(exportId)}/download`, { method: 'POST' }),
    onSuccess: (download) => followLink(download.url),
    onError: (error) =>
      toaster.create({
        type: 'error',
        title: 'Download unavailable',
        description: serverMessageOf(error, [404, 409]) ?? 'The file could not be downloaded. Please try again.',
      }),
  });
}
