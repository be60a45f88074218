import { useQuery } from '@tanstack/react-query';
import type { Analytics } from '@shared/schemas/analytics';
import { apiRequest } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export function useAnalyticsQuery() {
  return useQuery({
    queryKey: queryKeys.analytics,
    queryFn: () => apiRequest<Analytics>('/api/analytics'),
  });
}
