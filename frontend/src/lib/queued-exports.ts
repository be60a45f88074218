import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { ExportKind, ExportView } from '@shared/schemas/export';
import { apiRequest, serverMessageOf } from './api-client';
import { pollCap } from './poll-cap';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';

/*
 * The Export Center's exports of everything of one kind the user has, started from elsewhere in
 * the app: Export All Data (Settings > Data) and Export Logs (Security Center). Each is recorded
 * and queued by the server, written by the export worker, and shows in the export history at once;
 * where it was started, the newest of its kind is followed until its file is ready.
 */

const POLL_MS = pollCap(2000);
export const isExportRunning = (entry: ExportView): boolean => entry.status === 'pending' || entry.status === 'processing';

/** POST to start an export (a project's: with its request; the others: none): the new entry goes to the top of the history. */
export function useStartQueuedExport<Body = void>(path: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Body) => apiRequest<ExportView>(path, { method: 'POST', ...(body === undefined ? {} : { body }) }),
    onSuccess: (created) => {
      queryClient.setQueryData<ExportView[]>(queryKeys.exportHistory, (history) => [created, ...(history ?? []).filter((entry) => entry.id !== created.id)]);
      void queryClient.invalidateQueries({ queryKey: queryKeys.exportHistory });
      toaster.create({
        type: 'success',
        title: 'Export started',
        description: "Your export is being processed. You'll be notified when it's ready.",
      });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({
        type: 'error',
        title: 'Export failed',
        description: serverMessageOf(error, [400, 403, 404]) ?? 'Failed to start export. Please try again.',
      });
    },
  });
}

/** POST /api/exports/account-data (Export All Data; 'Export again' in the Export Center): a zip of everything of the user. */
export const useStartAccountDataExport = () => useStartQueuedExport('/api/exports/account-data');
/** POST /api/exports/security-events (Export Logs; 'Export again' in the Export Center): every security event as CSV. */
export const useStartSecurityEventsExport = () => useStartQueuedExport('/api/exports/security-events');

/** The newest export of `kind`, from the export history (read every 2 s while it runs). */
function useLatestExport(kind: ExportKind): ExportView | undefined {
  const history = useQuery({
    queryKey: queryKeys.exportHistory,
    queryFn: () => apiRequest<ExportView[]>('/api/exports/history'),
    refetchInterval: (query) => (query.state.data?.some((entry) => entry.kind === kind && isExportRunning(entry)) ? POLL_MS : false),
    staleTime: 60_000,
    refetchOnWindowFocus: true,
  });
  return history.data?.find((entry) => entry.kind === kind);
}

/** The newest export of `kind`, followed where it was started: read while it runs, a toast when it is ready (`what`: 'All your data (ZIP)'). */
export function useFollowedExport(kind: ExportKind, what: string): { latest: ExportView | undefined; running: boolean } {
  const latest = useLatestExport(kind);
  useExportReadyToast(latest, what);
  return { latest, running: latest !== undefined && isExportRunning(latest) };
}

/** 'You'll be notified when it's ready' (spec 8): a toast when the export followed here completes (`what`: 'All your data (ZIP)'). */
function useExportReadyToast(latest: ExportView | undefined, what: string): void {
  const watched = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!latest) return;
    if (isExportRunning(latest)) {
      watched.current = latest.id;
      return;
    }
    if (watched.current === latest.id) {
      watched.current = undefined;
      if (latest.status === 'completed') {
        toaster.create({ type: 'success', title: 'Export ready', description: `${what} is ready to download.` });
      } else if (latest.status === 'failed') {
        toaster.create({ type: 'error', title: 'Export failed', description: latest.error ?? 'The export failed. Please try again.' });
      }
    }
  }, [latest, what]);
}
