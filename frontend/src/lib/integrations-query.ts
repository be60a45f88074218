import { useQuery } from '@tanstack/react-query';
import type { Integration } from '@shared/schemas/integrations';
import { apiRequest } from './api-client';
import { queryKeys } from './query-keys';

/**
 * GET /api/integrations, newest first (every plan: a lapsed Pro user still sees and deletes
 * theirs). Read by API Integrations and by the features that provision to one (the Bulk Creator,
 * a project), so it lives here.
 */
export function useIntegrationsQuery(enabled = true) {
  return useQuery({
    queryKey: queryKeys.integrations,
    queryFn: () => apiRequest<Integration[]>('/api/integrations'),
    enabled,
  });
}
