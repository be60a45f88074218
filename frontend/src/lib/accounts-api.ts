import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import type { AccountEditInput, AccountEditResult, AccountHistoryPage } from '@shared/schemas/account-edit';
import { apiRequest } from './api-client';
import { queryKeys } from './query-keys';

/** One account's history (GET /api/accounts/{id}/history), newest first, a page at a time; only while the drawer is open. */
export function useAccountHistoryQuery(accountId: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: queryKeys.accountHistory(accountId),
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: '20' });
      if (pageParam) params.set('cursor', pageParam);
      return apiRequest<AccountHistoryPage>(`/api/accounts/${encodeURIComponent(accountId)}/history?${params}`);
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
    enabled,
  });
}

/**
 * PUT /api/accounts/{id}. The lists that show the account (the project's pages, the search) and
 * its history are read again; errors are the caller's to show (a 400 names its fields).
 */
export function useEditAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ accountId, ...body }: AccountEditInput & { accountId: string }) =>
      apiRequest<AccountEditResult>(`/api/accounts/${encodeURIComponent(accountId)}`, { method: 'PUT', body }),
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['/api/projects', result.account.projectId, 'accounts'] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.accountSearch });
      void queryClient.invalidateQueries({ queryKey: queryKeys.accountHistory(result.account.id) });
    },
  });
}
