import { useQuery } from '@tanstack/react-query';
import type { CreateExportRequest, ExportView } from '@shared/schemas/export';
import { apiRequest } from '../../../lib/api-client';
import { pollCap } from '../../../lib/poll-cap';
import { queryKeys } from '../../../lib/query-keys';
import { isExportRunning, useStartQueuedExport } from '../../../lib/queued-exports';

export const exportHistoryQueryKey = queryKeys.exportHistory;

/** While an export waits or runs, the history is read this often (and not at all otherwise). */
export const EXPORT_POLL_MS = pollCap(2000);
/**
 * A history older than this is read again when the window regains focus (a file may have expired
 * meanwhile; download links are minted per download, not kept in the list).
 */
export const HISTORY_FRESH_MS = 10 * 60 * 1000;

export { isExportRunning };

/** GET /api/exports/history, newest first. */
export function useExportHistoryQuery() {
  return useQuery({
    queryKey: exportHistoryQueryKey,
    queryFn: () => apiRequest<ExportView[]>('/api/exports/history'),
    refetchInterval: (query) => (query.state.data?.some(isExportRunning) ? EXPORT_POLL_MS : false),
    // Unlike the app's defaults (never stale, no focus refetch): files expire after 7 days.
    staleTime: HISTORY_FRESH_MS,
    refetchOnWindowFocus: true,
    // A lost poll is not the export failing: keep asking.
    retry: (failures, error) => !error.message.startsWith('401') && failures < 2,
  });
}

/**
 * POST /api/exports: answers 202 with the pending export, which the history shows at once (and
 * then polls). A refusal the server explains (Pro format 403, unknown project 404, invalid 400)
 * shows the server's message under the spec's title.
 */
export const useStartExport = () => useStartQueuedExport<CreateExportRequest>('/api/exports');
