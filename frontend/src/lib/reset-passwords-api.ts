import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { PasswordResetJob } from '@shared/schemas/reset-passwords';
import type { AccountFilter } from '@shared/schemas/account-selection';
import { ApiError, apiRequest, serverMessageOf } from './api-client';
import { jobPollInterval } from './job-polling';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';

/** A reset has ended: nothing more to poll. */
export const resetFinished = (status: PasswordResetJob['status'] | undefined) => status === 'completed' || status === 'failed';

/** GET /api/security/reset-passwords/{id} until it ends, on the jobs' schedule (1 s, slowing to 5 s). */
export function usePasswordResetQuery(jobId: string | undefined, initial?: PasswordResetJob) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['/api/security/reset-passwords', jobId ?? ''] as const,
    queryFn: () => apiRequest<PasswordResetJob>(`/api/security/reset-passwords/${encodeURIComponent(jobId!)}`),
    enabled: !!jobId,
    initialData: initial?.id === jobId ? initial : undefined,
    refetchInterval: (q) => (resetFinished(q.state.data?.status) ? false : jobPollInterval(q.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    retry: 3,
  });
  const finished = resetFinished(query.data?.status);
  useEffect(() => {
    // The project's passwords (Show Passwords) and its lock changed.
    if (finished) void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
  }, [finished, queryClient]);
  return query;
}

/** What a reset takes: a project's accounts, all of them or (the bulk bar) the listed ones or a filter's. */
export type ResetRequest = string | { projectId: string; accountIds?: string[]; filter?: AccountFilter };

/** POST /api/security/reset-passwords (202 with the job); a refusal the server explains shows its message. */
export function useStartPasswordReset() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: ResetRequest) => apiRequest<PasswordResetJob>('/api/security/reset-passwords', { method: 'POST', body: typeof request === 'string' ? { projectId: request } : request }),
    onSuccess: (job) => {
      queryClient.setQueryData(['/api/security/reset-passwords', job.id], job);
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      if (error instanceof ApiError && error.status === 409) void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      toaster.create({
        type: 'error',
        title: 'Reset not started',
        description: serverMessageOf(error, [400, 402, 403, 404, 409]) ?? 'Failed to start the password reset. Please try again.',
      });
    },
  });
}
