import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import type { DirectoryExportRequest, DirectoryFilters, DirectoryPage, DirectorySort } from '@shared/schemas/account-directory';
import type { ExportView } from '@shared/exports';
import { apiRequest, serverMessageOf } from '../../../lib/api-client';
import { toaster } from '../../../lib/toaster';
import { queryKeys } from '../../../lib/query-keys';

export const DIRECTORY_PAGE_SIZE = 25;

export interface DirectoryRequest {
  term: string;
  sort: DirectorySort;
  filters: DirectoryFilters;
  showPasswords: boolean;
}

/**
 * GET /api/accounts: the user's accounts, a page at a time ('Load more'), with the term, sort and
 * filters. Kept under the search's query key, so whatever refreshes the search (an edit, a send,
 * an account action) refreshes this list too.
 */
export function useAccountDirectoryQuery(request: DirectoryRequest) {
  const term = request.term.trim();
  return useInfiniteQuery({
    queryKey: [...queryKeys.accountSearch, 'directory', { ...request, term }],
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ sort: request.sort, limit: String(DIRECTORY_PAGE_SIZE) });
      if (term) params.set('q', term);
      for (const [name, value] of Object.entries(request.filters)) if (typeof value === 'string' && value) params.set(name, value);
      if (request.showPasswords) params.set('showPasswords', 'true');
      if (pageParam) params.set('cursor', pageParam);
      return apiRequest<DirectoryPage>(`/api/accounts?${params}`);
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
    // While the next term or filter loads, the last results stay (no flashing skeleton on every key).
    placeholderData: keepPreviousData,
  });
}

/** 'Export All': POST /api/exports/directory with the filters, term and sort shown; the file is made in the Export Center. */
export function useStartDirectoryExport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: DirectoryExportRequest) => apiRequest<ExportView>('/api/exports/directory', { method: 'POST', body: request }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.exportHistory });
      toaster.create({ type: 'success', title: 'Export started', description: "Your export is being processed in the Export Center. You'll be notified when it's ready." });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Export failed', description: serverMessageOf(error, [400, 403, 404]) ?? 'Failed to start export. Please try again.' });
    },
  });
}
