import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ExportView } from '@shared/schemas/export';
import { apiRequest, serverMessageOf } from './api-client';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';

/**
 * POST /api/exports/account-data (Export All Data, Settings > Data; 'Export again' in the Export
 * Center): the export worker zips everything of the user; it shows in the export history at once.
 */
export function useStartAccountDataExport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<ExportView>('/api/exports/account-data', { method: 'POST' }),
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
