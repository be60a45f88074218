import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BulkCreateSummary, BulkJob } from '../../shared/schemas/bulk';
import type { BulkUpload, BulkUploadOptions, BulkUploadStatus } from '../../shared/schemas/bulk-upload';
import type { Project } from '../../shared/schemas/project';
import { keys } from '../core/keys';
import { projectView, type ProjectRecord } from '../projects/project-item';
import type { CreateBulkAccountsResult } from './create-bulk-accounts';

/**
 * How an uploaded file's reading ends (functions/bulk/bulk-uploads.ts): with a job, or failed with
 * a reason; apart, so the dead-letter worker bundles only this (GetItem, UpdateItem, DeleteObject).
 */

/** The object's key: under the user, named by the upload. */
export const uploadKey = (userId: string, uploadId: string): string => `uploads/${userId}/${uploadId}.csv`;
/** What the ending needs: the table, the bucket's delete, the clock. */
export interface EndingDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  objects: { remove(key: string): Promise<void> };
  now: () => Date;
}

export interface UploadItem extends Record<string, unknown> {
  id: string;
  status: BulkUploadStatus;
  checkOnly?: boolean;
  options?: BulkUploadOptions;
  bytes?: number;
  bytesRead?: number;
  rowsRead?: number;
  total?: number;
  validCount?: number;
  failedCount?: number;
  failed?: BulkUpload['failed'];
  project?: Project;
  job?: BulkJob;
  summary?: BulkCreateSummary;
  reason?: string;
  readingSince?: number;
  createdAt: string;
  updatedAt: string;
}

/** Ends an upload that cannot go on: its reason, nothing created, the file deleted. */
export async function failUpload(deps: EndingDeps, userId: string, uploadId: string, reason: string): Promise<void> {
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.bulkUpload(userId, uploadId),
      UpdateExpression: 'SET #status = :failed, reason = :reason, updatedAt = :now REMOVE readingSince',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':failed': 'failed', ':reason': reason, ':now': deps.now().toISOString() },
    }),
  );
  await deps.objects.remove(uploadKey(userId, uploadId));
}

/** The job started: the upload points at it (project, job, summary), and the file is deleted. */
export async function recordQueued(deps: EndingDeps, userId: string, uploadId: string, item: UploadItem, result: Extract<CreateBulkAccountsResult, { kind: 'queued' }> | undefined) {
  const values: Record<string, unknown> = { ':queued': 'queued', ':iso': deps.now().toISOString() };
  const sets = ['#status = :queued', 'updatedAt = :iso'];
  const names: Record<string, string> = { '#status': 'status' };
  if (!result) {
    // Started by an earlier delivery: the project and job as stored, for the dialog to follow.
    const [{ Item: project }, { Item: job }] = await Promise.all([
      deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, uploadId), ConsistentRead: true })),
      deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, uploadId), ConsistentRead: true })),
    ]);
    if (project && job) {
      const view: BulkJob = { id: String(job.id), projectId: String(job.projectId), status: job.status as BulkJob['status'], total: Number(job.total), done: Number(job.done ?? 0), failedCount: Number(job.failedCount ?? 0), createdAt: String(job.createdAt), updatedAt: String(job.updatedAt) };
      Object.assign(values, { ':project': projectView(project as ProjectRecord), ':job': view });
      sets.push('#project = :project', '#job = :job');
      Object.assign(names, { '#project': 'project', '#job': 'job' });
    }
  } else {
    Object.assign(values, { ':project': result.project, ':job': result.job, ':summary': result.summary, ':failed': result.summary.failed, ':total': item.total, ':valid': item.validCount, ':failedCount': item.failedCount, ':rows': item.rowsRead, ':bytes': item.bytesRead });
    sets.push('#project = :project', '#job = :job', '#summary = :summary', 'failed = :failed', '#total = :total', 'validCount = :valid', 'failedCount = :failedCount', 'rowsRead = :rows', 'bytesRead = :bytes');
    // Reserved words in DynamoDB's expressions: by placeholder.
    Object.assign(names, { '#project': 'project', '#job': 'job', '#summary': 'summary', '#total': 'total' });
  }
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.bulkUpload(userId, uploadId),
      // The project lives on: so does the upload that points at it (its TTL goes).
      UpdateExpression: `SET ${sets.join(', ')} REMOVE readingSince, expiresAt`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
  await deps.objects.remove(uploadKey(userId, uploadId));
}

/**
 * The bulk-uploads dead-letter worker: a reading that failed every delivery (timeouts, a service
 * down) ends with a message instead of staying 'reading'; a job it started is left to finish.
 */
export const recordDeadUpload =
  (deps: EndingDeps) =>
  async ({ userId, uploadId }: { userId: string; uploadId: string }): Promise<void> => {
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkUpload(userId, uploadId), ConsistentRead: true }));
    if (!Item || (Item.status !== 'started' && Item.status !== 'reading')) return;
    const { Item: job } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, uploadId), ConsistentRead: true }));
    if (job) {
      await recordQueued(deps, userId, uploadId, Item as UploadItem, undefined);
      return;
    }
    await failUpload(deps, userId, uploadId, 'The file could not be read. Please try again.');
  };
