import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { CreateIntegrationRequest, Integration, IntegrationTemplate } from '@shared/schemas/integrations';
import type { AttributePreview } from '@shared/schemas/attribute-mapping';
import { ApiError, apiRequest, serverMessageOf } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';
import { invalidatePlanQueries } from '../../../lib/subscription-api';
import { toaster } from '../../../lib/toaster';

/** This feature's query keys, each starting with its GET path (the list is read by other features too). */
export const integrationQueryKeys = {
  list: queryKeys.integrations,
  templates: ['/api/integration-templates'] as const,
};

const isLoggedOut = (error: Error) => error.message.startsWith('401');

/** A refusal for the plan: the plan shown here was out of date (e.g. a payment just failed). */
function refreshPlanOnRefusal(queryClient: QueryClient, error: Error): void {
  if (error instanceof ApiError && error.status === 403) invalidatePlanQueries(queryClient);
}

/** Puts a created or tested integration into the list at once; the list is then read again (spec 7). */
function storeIntegration(queryClient: QueryClient, integration: Integration, position: 'first' | 'inPlace'): void {
  queryClient.setQueryData<Integration[]>(integrationQueryKeys.list, (list = []) =>
    position === 'first'
      ? [integration, ...list.filter((entry) => entry.id !== integration.id)]
      : list.map((entry) => (entry.id === integration.id ? integration : entry)),
  );
  void queryClient.invalidateQueries({ queryKey: integrationQueryKeys.list });
}

/** GET /api/integration-templates: the quick-setup cards. */
export function useIntegrationTemplatesQuery() {
  return useQuery({
    queryKey: integrationQueryKeys.templates,
    queryFn: () => apiRequest<IntegrationTemplate[]>('/api/integration-templates'),
  });
}

/**
 * POST /api/integrations. The request carries credentials, so the mutation is dropped from the
 * cache as soon as nothing observes it (gcTime 0): once the dialog closes, no secret stays in memory.
 */
export function useCreateIntegration() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: CreateIntegrationRequest) =>
      apiRequest<Integration>('/api/integrations', { method: 'POST', body: request }),
    gcTime: 0,
    onSuccess: (created) => {
      storeIntegration(queryClient, created, 'first');
      toaster.create({ type: 'success', title: 'Integration created', description: `${created.name} is ready to test.` });
    },
    onError: (error) => {
      if (isLoggedOut(error)) return; // the logged-out toast is already showing
      refreshPlanOnRefusal(queryClient, error);
      toaster.create({ type: 'error', title: 'Error', description: serverMessageOf(error) ?? 'Failed to create integration.' });
    },
  });
}

/**
 * PUT /api/integrations/{id}: the same fields as create; a credential sent empty (or left out)
 * keeps the stored one. Like create, the request carries credentials: dropped at once (gcTime 0).
 * A changed URL or credentials make the last test stale, so the toast asks for a new test.
 */
export function useUpdateIntegration() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, request }: { id: string; request: CreateIntegrationRequest }) =>
      apiRequest<Integration>(`/api/integrations/${encodeURIComponent(id)}`, { method: 'PUT', body: request }),
    gcTime: 0,
    onSuccess: (updated) => {
      storeIntegration(queryClient, updated, 'inPlace');
      toaster.create({
        type: 'success',
        title: 'Integration saved',
        description: updated.lastTestDate ? `${updated.name} was saved.` : `${updated.name} was saved. Test it to check the connection.`,
      });
    },
    onError: (error) => {
      if (isLoggedOut(error)) return;
      refreshPlanOnRefusal(queryClient, error);
      if (error instanceof ApiError && error.status === 404) void queryClient.invalidateQueries({ queryKey: integrationQueryKeys.list });
      toaster.create({ type: 'error', title: 'Error', description: serverMessageOf(error, [400, 403, 404, 409]) ?? 'Failed to save the integration.' });
    },
  });
}

/**
 * POST /api/integrations/{id}/test: the server calls the platform and answers with the
 * integration, its lastTestStatus and what it found (lastTestMessage).
 */
export function useTestIntegration() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest<Integration>(`/api/integrations/${encodeURIComponent(id)}/test`, { method: 'POST' }),
    onSuccess: (tested) => {
      storeIntegration(queryClient, tested, 'inPlace');
      if (tested.lastTestStatus === 'success') {
        toaster.create({ type: 'success', title: 'Test completed', description: tested.lastTestMessage });
      } else {
        toaster.create({ type: 'error', title: 'Test failed', description: testFailure(tested.lastTestMessage) });
      }
    },
    onError: (error) => {
      if (isLoggedOut(error)) return;
      refreshPlanOnRefusal(queryClient, error);
      if (error instanceof ApiError && error.status === 404) void queryClient.invalidateQueries({ queryKey: integrationQueryKeys.list });
      toaster.create({ type: 'error', title: 'Test failed', description: testFailure(serverMessageOf(error, [400, 403, 404, 409])) });
    },
  });
}

const testFailure = (detail: string | undefined) => (detail ? `Integration test failed. ${detail}` : 'Integration test failed.');

/**
 * DELETE /api/integrations/{id} (204). The spec gives deletion no error handler; a toast saying it
 * failed is kept anyway, since a silent failure would leave the user thinking it was deleted.
 * A 404 (already deleted, e.g. in another tab) also re-reads the list.
 */
export function useDeleteIntegration() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (integration: Integration) =>
      apiRequest<void>(`/api/integrations/${encodeURIComponent(integration.id)}`, { method: 'DELETE' }),
    onSuccess: (_, integration) => {
      queryClient.setQueryData<Integration[]>(integrationQueryKeys.list, (list = []) =>
        list.filter((entry) => entry.id !== integration.id),
      );
      void queryClient.invalidateQueries({ queryKey: integrationQueryKeys.list });
      toaster.create({ type: 'success', title: 'Integration deleted', description: `${integration.name} was deleted.` });
    },
    onError: (error) => {
      if (isLoggedOut(error)) return;
      if (error instanceof ApiError && error.status === 404) void queryClient.invalidateQueries({ queryKey: integrationQueryKeys.list });
      toaster.create({ type: 'error', title: 'Delete failed', description: 'Failed to delete integration.' });
    },
  });
}

/** What one person would look like on the platform with a mapping of extra columns (POST .../attribute-preview). */
export function useAttributePreview() {
  return useMutation({
    mutationFn: ({ id, attributeMapping }: { id: string; attributeMapping?: Record<string, string> }) =>
      apiRequest<AttributePreview>(`/api/integrations/${encodeURIComponent(id)}/attribute-preview`, { method: 'POST', body: attributeMapping ? { attributeMapping } : {} }),
  });
}
