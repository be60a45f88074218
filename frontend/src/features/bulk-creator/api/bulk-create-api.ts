import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  GZIP_ROWS_FROM,
  IDEMPOTENCY_IN_PROGRESS_MESSAGE,
  IDEMPOTENCY_KEY_HEADER,
  REQUEST_BODY_MAX_BYTES,
  rejectedRowsPath,
  type BulkCreateRequest,
  type BulkCreateSummary,
  type BulkJob,
  type CreatedAccount,
} from '@shared/schemas/bulk';
import type { Project } from '@shared/schemas/project';
import { ApiError, apiDownload, apiRequest, serverMessageOf } from '../../../lib/api-client';
import { saveFile } from '../../../lib/save-file';
import { canGzip, gzipBase64 } from '../../../lib/gzip';
import { queryKeys } from '../../../lib/query-keys';
import { newIdempotencyKey } from '../../../lib/idempotency-key';
import { toaster } from '../../../lib/toaster';
import { jobPollInterval } from '../../../lib/job-polling';

/** 200: up to SYNC_ROW_LIMIT rows and SYNC_BYTE_LIMIT bytes of rows (answersAtOnce, valid or not), created at once. */
export interface BulkCreateDone {
  project: Project;
  accounts: CreatedAccount[];
  summary: BulkCreateSummary;
}

/** 202: more rows or bytes (or an at-once write that failed part-way), created by a background job (summary.failed: rows refused up-front). */
export interface BulkCreateStarted {
  project: Project;
  job: BulkJob;
  summary: BulkCreateSummary;
}

export type BulkCreateResponse = BulkCreateDone | BulkCreateStarted;

export const isJobStarted = (response: BulkCreateResponse): response is BulkCreateStarted => 'job' in response;

/** Everything a creation changes: projects, dashboard, analytics, usage, search. */
export function invalidateAfterBulkCreate(queryClient: QueryClient): void {
  for (const queryKey of [
    queryKeys.projects,
    queryKeys.dashboardStats,
    queryKeys.analytics,
    queryKeys.recentActivity,
    queryKeys.subscriptionStatus,
    queryKeys.accountSearch,
  ]) {
    void queryClient.invalidateQueries({ queryKey });
  }
}

export const TOO_LARGE_TO_SEND = 'This file is too large to send in one go. Split it into smaller files and create them one after another.';

/**
 * The request body. Large row lists travel gzipped (csvDataGzip): Lambda takes at most 6 MB per
 * request, and 50,000 rows as JSON can be more; gzipped they are a fraction of it.
 */
export async function bulkCreateBody(request: BulkCreateRequest): Promise<Record<string, unknown>> {
  const { csvData, ...rest } = request;
  if (csvData.length <= GZIP_ROWS_FROM || !canGzip()) return request as unknown as Record<string, unknown>;
  const csvDataGzip = await gzipBase64(JSON.stringify(csvData));
  // Refused here, with a message, rather than by the gateway after a long upload.
  if (csvDataGzip.length > REQUEST_BODY_MAX_BYTES) throw new ApiError(413, `413: ${TOO_LARGE_TO_SEND}`, TOO_LARGE_TO_SEND);
  return { ...rest, csvDataGzip };
}


/** Waits before each repeat of a request whose answer was lost: the gateway's or the network's fault. */
export const CREATE_RETRY_DELAYS_MS = [1000, 2000, 4000];

const answerLost = (error: unknown) =>
  !(error instanceof ApiError) || error.status === 502 || error.status === 503 || error.status === 504 || (error.status === 409 && error.serverMessage === IDEMPOTENCY_IN_PROGRESS_MESSAGE);

/**
 * POST /api/bulk-create with one Idempotency-Key per click: when the answer is lost (network,
 * 502-504) or the first try is still running (409), the same request is sent again with the same
 * key, and the server answers the first result instead of creating the accounts twice.
 */
export async function sendBulkCreate(request: BulkCreateRequest, delays: readonly number[] = CREATE_RETRY_DELAYS_MS): Promise<BulkCreateResponse> {
  const body = await bulkCreateBody(request);
  const headers = { [IDEMPOTENCY_KEY_HEADER]: newIdempotencyKey() };
  for (let attempt = 0; ; attempt++) {
    try {
      return await apiRequest<BulkCreateResponse>('/api/bulk-create', { method: 'POST', body, headers });
    } catch (error) {
      if (attempt >= delays.length || !answerLost(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }
}

/**
 * POST /api/bulk-create. A failure shows the spec's toast; a refusal the server explains (plan
 * limit 403, another job running 409, invalid request 400) shows the server's message instead.
 */
export function useBulkCreateMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: BulkCreateRequest) => sendBulkCreate(request),
    onSuccess: () => invalidateAfterBulkCreate(queryClient),
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({
        type: 'error',
        title: 'Error creating accounts',
        description:
          error instanceof ApiError && error.status === 413 ? TOO_LARGE_TO_SEND : (serverMessageOf(error) ?? 'Failed to create accounts. Please try again.'),
      });
    },
  });
}

const isFinished = (job: BulkJob | undefined) => job?.status === 'completed' || job?.status === 'failed';

/**
 * GET /api/bulk-jobs/{id} until the job has completed or failed (the one polling query), every
 * second at first and less often as the job goes on (jobPollInterval); idle without a job.
 */
export function useBulkJobQuery(started: BulkJob | undefined) {
  return useQuery({
    queryKey: queryKeys.bulkJob(started?.id ?? ''),
    queryFn: () => apiRequest<BulkJob>(`/api/bulk-jobs/${encodeURIComponent(started!.id)}`),
    enabled: !!started,
    initialData: started,
    // initialData counts as fresh forever under staleTime Infinity: the interval does the reading.
    refetchInterval: (query) => (isFinished(query.state.data) ? false : jobPollInterval(query.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    // A lost poll is not the job failing: keep asking.
    retry: 3,
  });
}

export const jobFinished = isFinished;

/**
 * GET /api/projects/{id}/rejected-rows: every row of a creation that was not created, as the
 * server kept it (the response lists only the first few).
 */
export function useRejectedRowsDownload() {
  return useMutation({
    mutationFn: async (project: Pick<Project, 'id' | 'name'>) => {
      const { blob, filename } = await apiDownload(rejectedRowsPath(project.id));
      saveFile(blob, filename ?? `${project.name}_rejected_rows.csv`);
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Download failed', description: serverMessageOf(error) ?? 'Failed to download the rejected rows.' });
    },
  });
}
