import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counterUpdates, type CounterChange } from '../analytics/counters';
import type { BulkJob, PasswordSettings } from '../../shared/schemas/bulk';
import { keys } from '../core/keys';
import { projectItem, type ProjectRecord } from '../projects/project-item';
import type { CheckedRow } from './check-rows';
import type { UsernameSlot } from './usernames';
import type { BulkChunkMessage } from './bulk-chunk';

/** Rows per queue message at most: small enough to write in seconds. */
export const CHUNK_ROWS = 500;
/**
 * A message's size at most, and a SendMessageBatch's: SQS takes 256 KB per message and per
 * batch. Long rows (names and addresses near their limits) make smaller chunks.
 */
export const CHUNK_MAX_BYTES = 200 * 1024;
export const BATCH_MAX_BYTES = 250 * 1024;
const SQS_BATCH_ENTRIES = 10;

export interface BulkJobStarter {
  start(job: {
    userId: string;
    project: ProjectRecord;
    rows: (CheckedRow & UsernameSlot)[];
    /** The user's accounts before this job: 0 means no username can clash with an older one. */
    existingAccounts: number;
    passwordSettings: PasswordSettings;
    lockOwner: string;
    now: Date;
    /** The user's timezone: the chunks count their rows in the user's month (functions/analytics/counters.ts). */
    timeZone: string;
    /** What the job counts when it starts (the project, the rows refused up front), in the project's own put. */
    counters: { month: string; change: CounterChange };
  }): Promise<BulkJob>;
}

/** Writes the job and its project, then puts the rows on the bulk queue in chunks. */
export function sqsBulkJobStarter(
  db: DynamoDBDocumentClient,
  tableName: string,
  sqs: SQSClient,
  queueUrl: string,
  /** Records a chunk the queue refused (process-chunk.ts recordUnqueuedChunk): its rows failed, the job failed. */
  recordUnqueued?: (message: BulkChunkMessage) => Promise<void>,
): BulkJobStarter {
  return {
    async start({ userId, project, rows, existingAccounts, passwordSettings, lockOwner, now, timeZone, counters }) {
      const createdAt = now.toISOString();
      const bodies = chunkBodies(rows, (chunk, chunkRows) => ({
        userId,
        jobId: project.id,
        projectId: project.id,
        projectName: project.name,
        accountType: project.accountType,
        createdAt,
        passwordSettings,
        existingAccounts,
        shards: project.accountShards ?? 1,
        timeZone,
        chunk,
        rows: chunkRows,
      }));
      const job: BulkJob = {
        id: project.id,
        projectId: project.id,
        status: 'queued',
        total: rows.length,
        done: 0,
        failedCount: 0,
        createdAt,
        updatedAt: createdAt,
      };
      // The project and its counters in one write: a project is counted exactly when it exists.
      await db.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: tableName, Item: projectItem(project) } }, ...counterUpdates(tableName, userId, counters.month, counters.change)],
        }),
      );
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.bulkJob(userId, job.id), entityType: 'BulkJob', ...job, chunks: bodies.length, lockOwner, startedAt: now.getTime(), projectName: project.name },
        }),
      );
      // Which chunks the queue did not take: the whole batch when the call failed, else its Failed entries.
      const unqueued: { chunk: number; body: string }[] = [];
      let sendError: unknown;
      await Promise.all(
        batchesOf(bodies).map(async (batch) => {
          try {
            const { Failed } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map(({ chunk, body }) => ({ Id: String(chunk), MessageBody: body })) }));
            const failedIds = new Set((Failed ?? []).map((entry) => entry.Id));
            unqueued.push(...batch.filter(({ chunk }) => failedIds.has(String(chunk))));
          } catch (error) {
            sendError ??= error;
            unqueued.push(...batch);
          }
        }),
      );
      if (unqueued.length && recordUnqueued) {
        // Every row stays accounted for: the refused chunks' rows are failed on the job now, the
        // chunks that were queued see a failed job and record theirs as failed too.
        for (const { body } of unqueued) await recordUnqueued(JSON.parse(body) as BulkChunkMessage);
        return job;
      }
      if (unqueued.length) {
        const error = sendError ?? new Error(`Could not queue ${unqueued.length} chunks of job ${job.id}`);
        // Chunks that did reach the queue see a failed job and record their rows as failed.
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.bulkJob(userId, job.id),
            UpdateExpression: 'SET #status = :failed, reason = :reason, completedAt = :now, updatedAt = :now',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':failed': 'failed', ':reason': 'The job could not be queued. Please try again.', ':now': new Date().toISOString() },
          }),
        );
        throw error;
      }
      return job;
    },
  };
}

type ChunkRow = BulkChunkMessage['rows'][number];

/** The job's rows as message bodies: at most CHUNK_ROWS rows and CHUNK_MAX_BYTES each. */
export function chunkBodies(rows: readonly (CheckedRow & UsernameSlot)[], message: (chunk: number, rows: ChunkRow[]) => BulkChunkMessage): { chunk: number; body: string }[] {
  const envelope = Buffer.byteLength(JSON.stringify(message(0, [])));
  const bodies: { chunk: number; body: string }[] = [];
  let current: ChunkRow[] = [];
  let size = envelope;
  const flush = () => {
    const chunk = bodies.length;
    bodies.push({ chunk, body: JSON.stringify(message(chunk, current)) });
    current = [];
    size = envelope;
  };
  for (const { row, firstName, lastName, email, base, k } of rows) {
    const item: ChunkRow = { row, firstName, lastName, email, base, k };
    const itemSize = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length && (current.length >= CHUNK_ROWS || size + itemSize > CHUNK_MAX_BYTES)) flush();
    current.push(item);
    size += itemSize;
  }
  if (current.length) flush();
  return bodies;
}

/** Message bodies grouped for SendMessageBatch: at most 10 entries and BATCH_MAX_BYTES each. */
export function batchesOf<T extends { body: string }>(bodies: readonly T[]): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const entry of bodies) {
    const entrySize = Buffer.byteLength(entry.body);
    if (current.length && (current.length >= SQS_BATCH_ENTRIES || size + entrySize > BATCH_MAX_BYTES)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(entry);
    size += entrySize;
  }
  if (current.length) batches.push(current);
  return batches;
}
