import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AccountView } from '@shared/schemas/project';
import { apiRequest } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export interface AccountSearchResult {
  items: AccountView[];
  count: number;
}

/** GET /api/accounts/search; runs only for a non-empty term (spec 5). */
export function useAccountSearchQuery(term: string, showPasswords: boolean) {
  const q = term.trim();
  return useQuery({
    queryKey: [...queryKeys.accountSearch, q, { showPasswords }],
    queryFn: () => {
      const params = new URLSearchParams({ q });
      if (showPasswords) params.set('showPasswords', 'true');
      return apiRequest<AccountSearchResult>(`/api/accounts/search?${params}`);
    },
    enabled: q.length > 0,
    // While the next term loads, the last results stay (no flashing skeleton on every key).
    placeholderData: keepPreviousData,
  });
}
