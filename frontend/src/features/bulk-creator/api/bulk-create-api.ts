import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { BulkCreateRequest, BulkCreateSummary, BulkJob, CreatedAccount } from '@shared/schemas/bulk';
import type { Project } from '@shared/schemas/project';
import { apiRequest, serverMessageOf } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';
import { toaster } from '../../../lib/toaster';

/** 200: up to SYNC_ROW_LIMIT rows, created at once. */
export interface BulkCreateDone {
  project: Project;
  accounts: CreatedAccount[];
  summary: BulkCreateSummary;
}

/** 202: more rows, created by a background job (summary.failed: rows refused up-front). */
export interface BulkCreateStarted {
  project: Project;
  job: BulkJob;
  summary: BulkCreateSummary;
}

export type BulkCreateResponse = BulkCreateDone | BulkCreateStarted;

export const isJobStarted = (response: BulkCreateResponse): response is BulkCreateStarted => 'job' in response;

/** Everything a creation changes: projects, dashboard, usage, search. */
export function invalidateAfterBulkCreate(queryClient: QueryClient): void {
  for (const queryKey of [
    queryKeys.projects,
    queryKeys.dashboardStats,
    queryKeys.recentActivity,
    queryKeys.subscriptionStatus,
    queryKeys.accountSearch,
  ]) {
    void queryClient.invalidateQueries({ queryKey });
  }
}

/**
 * POST /api/bulk-create. A failure shows the spec's toast; a refusal the server explains (plan
 * limit 403, another job running 409, invalid request 400) shows the server's message instead.
 */
export function useBulkCreateMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: BulkCreateRequest) =>
      apiRequest<BulkCreateResponse>('/api/bulk-create', { method: 'POST', body: request }),
    onSuccess: () => invalidateAfterBulkCreate(queryClient),
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({
        type: 'error',
        title: 'Error creating accounts',
        description: serverMessageOf(error) ?? 'Failed to create accounts. Please try again.',
      });
    },
  });
}

export const JOB_POLL_MS = 1000;
const isFinished = (job: BulkJob | undefined) => job?.status === 'completed' || job?.status === 'failed';

/**
 * GET /api/bulk-jobs/{id} every second until the job has completed or failed (the one polling
 * query); idle without a job.
 */
export function useBulkJobQuery(started: BulkJob | undefined) {
  return useQuery({
    queryKey: queryKeys.bulkJob(started?.id ?? ''),
    queryFn: () => apiRequest<BulkJob>(`/api/bulk-jobs/${encodeURIComponent(started!.id)}`),
    enabled: !!started,
    initialData: started,
    // initialData counts as fresh forever under staleTime Infinity: the interval does the reading.
    refetchInterval: (query) => (isFinished(query.state.data) ? false : JOB_POLL_MS),
    refetchIntervalInBackground: true,
    // A lost poll is not the job failing: keep asking.
    retry: 3,
  });
}

export const jobFinished = isFinished;
