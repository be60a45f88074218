import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ProvisioningJob, ProvisioningMode } from '@shared/schemas/provisioning';
import { ApiError, apiRequest, serverMessageOf } from './api-client';
import { jobPollInterval } from './job-polling';
import { provisioningFinished } from './provisioning-progress';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';
import { plural } from '@shared/text/plural';

/**
 * GET /api/provisioning-jobs/{id} until the run has completed or failed, on the bulk jobs'
 * schedule (1 s, slowing to 5 s). A paused run is still followed at the slow pace: it resumes on
 * its own once the integration's test passes. Each change of its counts refreshes the project
 * (its Synced / Sync Failed / Pending) and the accounts' badges.
 */
export function useProvisioningJobQuery(jobId: string | undefined, initial?: ProvisioningJob) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: queryKeys.provisioningJob(jobId ?? ''),
    queryFn: () => apiRequest<ProvisioningJob>(`/api/provisioning-jobs/${encodeURIComponent(jobId!)}`),
    enabled: !!jobId,
    initialData: initial?.id === jobId ? initial : undefined,
    refetchInterval: (q) => (provisioningFinished(q.state.data?.status) ? false : jobPollInterval(q.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    // A lost poll is not the run failing: keep asking.
    retry: 3,
  });
  const job = query.data;
  const progress = job ? `${job.status}:${job.synced}:${job.failed}` : '';
  useEffect(() => {
    if (!job) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    void queryClient.invalidateQueries({ queryKey: queryKeys.accountSearch });
    // Keyed by the counts: a poll that changed nothing reads nothing more.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [progress]);
  return query;
}

export interface StartProvisioningInput {
  projectId: string;
  integrationId: string;
  mode: ProvisioningMode;
}

/**
 * POST /api/projects/{id}/provision (202 with the run). A refusal the server explains (a run
 * already active, nothing to retry, an integration that cannot be a target) shows its message.
 */
export function useStartProvisioning() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, integrationId, mode }: StartProvisioningInput) =>
      apiRequest<ProvisioningJob>(`/api/projects/${encodeURIComponent(projectId)}/provision`, { method: 'POST', body: { integrationId, mode } }),
    onSuccess: (job) => {
      queryClient.setQueryData(queryKeys.provisioningJob(job.id), job);
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      toaster.create({
        type: 'success',
        title: job.mode === 'retry' ? 'Retry started' : job.mode === 'undo' ? 'Undo started' : 'Provisioning started',
        description: `${plural(job.total, 'account')} ${job.mode === 'undo' ? 'on' : 'to'} ${job.integrationName}.`,
      });
    },
    onError: (error, variables) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      if (error instanceof ApiError && error.status === 409) void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      toaster.create({
        type: 'error',
        title: variables.mode === 'undo' ? 'Undo not started' : 'Provisioning not started',
        description: serverMessageOf(error, [400, 403, 404, 409]) ?? 'Failed to start provisioning. Please try again.',
      });
    },
  });
}
