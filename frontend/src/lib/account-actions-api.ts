import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { AccountAction, AccountActionJob } from '@shared/schemas/account-actions';
import type { AccountFilter, AccountSelectionCount } from '@shared/schemas/account-selection';
import { ApiError, apiRequest, serverMessageOf } from './api-client';
import { jobPollInterval } from './job-polling';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';

/** An action has ended: nothing more to poll. */
export const actionFinished = (status: AccountActionJob['status'] | undefined) => status === 'completed' || status === 'failed';

/** GET /api/account-actions/{id} until it ends (1 s, slowing to 5 s); then the project's accounts and counts are read again. */
export function useAccountActionQuery(jobId: string | undefined, initial?: AccountActionJob) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['/api/account-actions', jobId ?? ''] as const,
    queryFn: () => apiRequest<AccountActionJob>(`/api/account-actions/${encodeURIComponent(jobId!)}`),
    enabled: !!jobId,
    initialData: initial?.id === jobId ? initial : undefined,
    refetchInterval: (q) => (actionFinished(q.state.data?.status) ? false : jobPollInterval(q.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    retry: 3,
  });
  const finished = actionFinished(query.data?.status);
  useEffect(() => {
    if (!finished) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    void queryClient.invalidateQueries({ queryKey: queryKeys.accountSearch });
    void queryClient.invalidateQueries({ queryKey: ['/api/accounts'] });
  }, [finished, queryClient]);
  return query;
}

export type AccountActionRequest = { projectId: string; action: AccountAction } & ({ accountIds: string[] } | { filter: AccountFilter });

/** POST /api/projects/{id}/account-actions (202 with the job); a refusal the server explains shows its message. */
export function useStartAccountAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, ...body }: AccountActionRequest) =>
      apiRequest<{ job: AccountActionJob }>(`/api/projects/${encodeURIComponent(projectId)}/account-actions`, { method: 'POST', body }).then((answer) => answer.job),
    onSuccess: (job) => queryClient.setQueryData(['/api/account-actions', job.id], job),
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      if (error instanceof ApiError && error.status === 409) void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      toaster.create({
        type: 'error',
        title: 'Not started',
        description: serverMessageOf(error, [400, 402, 403, 404, 409]) ?? 'The action could not be started. Please try again.',
      });
    },
  });
}

/** GET /api/projects/{id}/account-selection?filter=: how many accounts a filter no project counter gives (Active, Deactivated) takes now; read when asked for. */
export function useSelectionCountQuery(projectId: string, filter: AccountFilter, enabled: boolean) {
  return useQuery({
    queryKey: ['/api/projects', projectId, 'account-selection', filter] as const,
    queryFn: () => apiRequest<AccountSelectionCount>(`/api/projects/${encodeURIComponent(projectId)}/account-selection?filter=${filter}`),
    enabled,
    staleTime: 5_000,
  });
}
