import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ProjectDeletion } from '@shared/schemas/project-deletion';
import { ApiError, apiRequest, serverMessageOf } from './api-client';
import { jobPollInterval } from './job-polling';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';

/** A deletion that will not move again by itself (paused waits for the user or the integration's test). */
export const deletionOver = (status: ProjectDeletion['status'] | undefined) => status === 'completed' || status === 'failed' || status === 'paused';

/**
 * GET /api/project-deletions/{id} until it is over, on the jobs' schedule; the projects and usage
 * are read again then. `onProjectPage`: a deleted project's own page leaves for Projects first
 * (useFollowedProjectDeletion), so the list is not read again under it.
 */
export function useProjectDeletionQuery(jobId: string | undefined, onProjectPage = false) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['/api/project-deletions', jobId ?? ''] as const,
    queryFn: () => apiRequest<ProjectDeletion>(`/api/project-deletions/${encodeURIComponent(jobId!)}`),
    enabled: !!jobId,
    refetchInterval: (q) => (deletionOver(q.state.data?.status) ? false : jobPollInterval(q.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    retry: 3,
  });
  const over = deletionOver(query.data?.status);
  const leaving = onProjectPage && query.data?.projectDeleted === true;
  useEffect(() => {
    if (!over) return;
    for (const queryKey of [queryKeys.subscriptionStatus, queryKeys.dashboardStats, queryKeys.accountSearch]) void queryClient.invalidateQueries({ queryKey });
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects, ...(leaving ? { refetchType: 'none' as const } : {}) });
  }, [over, leaving, queryClient]);
  return query;
}

/**
 * The deletion a project's page started (its job id), kept in the query cache (not fetched): the
 * page follows it to its end even once the project has left the list under it
 * (useFollowedProjectDeletion), and says 'Deleting...' meanwhile, not 'Project not found'.
 */
export const deletionStartedKey = (projectId: string) => ['project-deletion-started', projectId] as const;

/** A deletion started from a project's page: its job, and when (a paused one started again is the same job, followed anew). */
export interface StartedDeletion {
  jobId: string;
  at: number;
}

/** The deletion this page started for `projectId`, if any (set by useDeleteProject). */
export function useStartedDeletion(projectId: string): StartedDeletion | undefined {
  return (
    useQuery({
      queryKey: deletionStartedKey(projectId),
      queryFn: () => null as StartedDeletion | null,
      enabled: false,
      staleTime: Infinity,
    }).data ?? undefined
  );
}

/** DELETE /api/projects/{id} (202 with the job); a refusal the server explains shows its message. */
export function useDeleteProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, removeFromPlatform }: { projectId: string; removeFromPlatform: boolean }) =>
      apiRequest<ProjectDeletion>(`/api/projects/${encodeURIComponent(projectId)}?removeFromPlatform=${String(removeFromPlatform)}`, { method: 'DELETE' }),
    onSuccess: (job, { projectId }) => {
      queryClient.setQueryData(['/api/project-deletions', job.id], job);
      queryClient.setQueryData<StartedDeletion>(deletionStartedKey(projectId), { jobId: job.id, at: Date.now() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      if (error instanceof ApiError && error.status === 409) void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      toaster.create({ type: 'error', title: 'Project not deleted', description: serverMessageOf(error, [400, 403, 404, 409]) ?? 'Failed to delete the project. Please try again.' });
    },
  });
}
