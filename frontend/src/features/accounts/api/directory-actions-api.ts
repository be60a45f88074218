import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { DirectoryActionInput, DirectoryActionJob } from '@shared/schemas/directory-actions';
import { apiRequest, serverMessageOf } from '../../../lib/api-client';
import { jobPollInterval } from '../../../lib/job-polling';
import { queryKeys } from '../../../lib/query-keys';
import { toaster } from '../../../lib/toaster';

const over = (status: DirectoryActionJob['status'] | undefined) => status === 'completed' || status === 'failed';

/** GET /api/directory-actions/{id} until it is over (1 s, slowing to 5 s); then the lists and counts are read again. */
export function useDirectoryActionQuery(id: string | undefined, initial?: DirectoryActionJob) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['/api/directory-actions', id ?? ''] as const,
    queryFn: () => apiRequest<DirectoryActionJob>(`/api/directory-actions/${encodeURIComponent(id!)}`),
    enabled: !!id,
    initialData: initial?.id === id ? initial : undefined,
    refetchInterval: (q) => (over(q.state.data?.status) ? false : jobPollInterval(q.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    retry: 3,
  });
  const finished = over(query.data?.status);
  useEffect(() => {
    if (!finished) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    void queryClient.invalidateQueries({ queryKey: queryKeys.accountSearch });
  }, [finished, queryClient]);
  return query;
}

/** POST /api/directory-actions (202 with the action); a refusal the server explains shows its message. */
export function useStartDirectoryAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: DirectoryActionInput) => apiRequest<{ action: DirectoryActionJob }>('/api/directory-actions', { method: 'POST', body }).then((answer) => answer.action),
    onSuccess: (action) => queryClient.setQueryData(['/api/directory-actions', action.id], action),
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Not started', description: serverMessageOf(error, [400, 403, 404, 409]) ?? 'The action could not be started. Please try again.' });
    },
  });
}
