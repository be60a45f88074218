import * as z from 'zod/mini';
import './zod-messages';
import { bulkCreateRequestSchema, type BulkCreateSummary, type BulkJob, type FailedRow } from './bulk';
import type { Project } from './project';

/**
 * Files too large for a request (issue 15 part 4): the browser uploads the CSV straight to S3
 * through a presigned POST, the bulk-upload worker reads it as a stream with the shared reader
 * and checks every row, then either keeps the per-row report ('check first') or starts the bulk
 * job. One path per size (docs/bulk-files.md): up to SYNC_ROW_LIMIT rows answer at once, up to
 * CSV_MAX_BYTES / MAX_ROWS_PER_REQUEST travel gzipped in the request, larger files come this way.
 */
export const UPLOAD_CSV_MAX_BYTES = 50 * 1024 * 1024;
export const UPLOAD_MAX_ROWS = 250_000;

/** POST /api/bulk-uploads/{id}/start: the bulk-create request's options without the rows, and 'check first'. */
export const bulkUploadStartSchema = z.extend(z.omit(bulkCreateRequestSchema, { csvData: true }), {
  /** Only read and check the file: the per-row report, nothing created (the file is kept for a start that creates). */
  checkOnly: z._default(z.boolean(), false),
});
export type BulkUploadStartRequest = z.input<typeof bulkUploadStartSchema>;
export type BulkUploadOptions = z.output<typeof bulkUploadStartSchema>;

export const bulkUploadStatuses = ['waiting', 'started', 'reading', 'checked', 'queued', 'failed'] as const;
export type BulkUploadStatus = (typeof bulkUploadStatuses)[number];

/** POST /api/bulk-uploads: where and how the browser uploads the file. */
export interface BulkUploadForm {
  id: string;
  url: string;
  /** The presigned POST's form fields, sent before the file. */
  fields: Record<string, string>;
  maxBytes: number;
}

/** GET /api/bulk-uploads/{id}: the reading's progress, then its report or the job it started. */
export interface BulkUpload {
  id: string;
  /**
   * waiting: the form was given, the file not started. started: queued for reading. reading:
   * rowsRead so far. checked: the report of a 'check first' (the file is kept for a start that
   * creates). queued: the job (job.id) creates the accounts. failed: reason says why; nothing created.
   */
  status: BulkUploadStatus;
  checkOnly: boolean;
  /** The uploaded file's size (known once started). */
  bytes?: number;
  bytesRead: number;
  rowsRead: number;
  /** Once read: every data row, those that can be created and those that cannot. */
  total?: number;
  validCount?: number;
  failedCount?: number;
  /** The first FAILED_ROWS_INLINE_MAX rows that cannot be created, with their line numbers. */
  failed?: FailedRow[];
  /** Every row that cannot be created, as CSV. */
  rejectedRowsUrl?: string;
  /** queued: the project, its job (GET /api/bulk-jobs/{id} for rows written) and the creation's summary. */
  project?: Project;
  job?: BulkJob;
  summary?: BulkCreateSummary;
  reason?: string;
  createdAt: string;
  updatedAt: string;
}

export const bulkUploadPath = (id: string): string => `/api/bulk-uploads/${encodeURIComponent(id)}`;
export const uploadRejectedRowsPath = (id: string): string => `${bulkUploadPath(id)}/rejected-rows`;

/** Messages a user sees for a file the worker cannot read (shared with the tests). */
export const uploadMessages = {
  tooLarge: (bytes: number) =>
    `The file is ${(Math.ceil((bytes / (1024 * 1024)) * 10) / 10).toLocaleString('en-US')} MB; the limit is ${UPLOAD_CSV_MAX_BYTES / (1024 * 1024)} MB.`,
  notArrived: 'The file did not arrive. Please upload it again.',
  notUtf8: 'The file is not UTF-8 text. Save it as "CSV UTF-8" and upload it again.',
  notText: 'The file is not a CSV text file (it looks like a zip, Excel or other binary file). Save it as CSV and upload it again.',
  /** The object was replaced between the worker's two readings of it (a second upload to the same form). */
  changed: 'The file changed while it was being read. Please upload it again.',
  notStartable: (status: BulkUploadStatus) =>
    status === 'started' || status === 'reading' ? 'This file is already being read.' : status === 'queued' ? 'Accounts are already being created from this file.' : 'This upload has ended. Upload the file again.',
} as const;
