import { gzipSync } from 'node:zlib';
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queues } from '../../shared/queues';
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
/**
 * Chunks of one job on the bulk queue at once: one fewer than the queue has workers, so a job alone
 * keeps all workers but one busy and a job started later (another user's 100 rows) finds that one
 * free instead of waiting for a chunk of the large job to end (measured: the bench's 100-row job
 * waited ~5 s, a whole chunk, when the window was every worker). Queued behind at most this many
 * chunks of each job before it instead of behind all of them (a 50,000-row job has 100). The job's
 * other chunks wait in DynamoDB; each recorded chunk puts the next one on the queue
 * (process-chunk.ts releaseNext), behind what other jobs queued meanwhile, so running jobs take
 * turns chunk by chunk.
 */
export const CHUNK_WINDOW = Math.max(1, (queues.find((q) => q.name === 'bulk')?.maxConcurrency ?? 4) - 1);

/** What a job adding people to a project starts once its accounts exist: the project's platform, the credential e-mails. */
export interface AddFollowUps {
  integrationId?: string;
  sendCredentials?: Record<string, unknown>;
  /** The rows the add made (the project's rows `from..to`): its e-mails go to these only. */
  rows?: { from: number; to: number };
}

export interface BulkJobStarter {
  start(job: {
    userId: string;
    project: ProjectRecord;
    /**
     * Read once, in order, as they are chunked: an uploaded file's rows come from its second
     * reading of the object as the chunks are written (memory: docs/bulk-files.md).
     */
    rows: Iterable<CheckedRow & UsernameSlot> | AsyncIterable<CheckedRow & UsernameSlot>;
    /** The user's accounts before this job: 0 means no username can clash with an older one. */
    existingAccounts: number;
    passwordSettings: PasswordSettings;
    lockOwner: string;
    now: Date;
    /** The user's timezone: the chunks count their rows in the user's month (functions/analytics/counters.ts). */
    timeZone: string;
    /** What the job counts when it starts (the project, the rows refused up front), in the project's own put. */
    counters: { month: string; change: CounterChange };
    /**
     * People added to the existing project (functions/bulk/create-bulk-accounts.ts): the job has
     * its own id, the project is not written again (only its rows refused up front are counted on
     * it), and what to start once the accounts exist is kept on the job (process-chunk.ts).
     */
    append?: { jobId: string; failed: number; followUps?: AddFollowUps };
  }): Promise<BulkJob>;
}

/**
 * Writes the project, then the job's rows in chunks as they come: the first CHUNK_WINDOW kept for
 * the bulk queue, every later one gzipped and stored in DynamoDB at once (it waits there until a
 * chunk of the job releases it); then the job, then the first window on the queue. Only the
 * window and the chunks being written are held, however many rows the job has.
 */
export function sqsBulkJobStarter(
  db: DynamoDBDocumentClient,
  tableName: string,
  sqs: SQSClient,
  queueUrl: string,
  /** Stores waiting chunks 25 at a time (BatchWriteItem: the creation's store.writeAll). */
  writeWaiting: WaitingChunksWriter,
  /** Records a chunk the queue refused (process-chunk.ts recordUnqueuedChunk): its rows failed, the job failed. */
  recordUnqueued?: (message: BulkChunkMessage) => Promise<void>,
): BulkJobStarter {
  return {
    async start({ userId, project, rows, existingAccounts, passwordSettings, lockOwner, now, timeZone, counters, append }) {
      const createdAt = now.toISOString();
      const jobId = append?.jobId ?? project.id;
      // The project and its counters in one write: a project is counted exactly when it exists.
      // People added to a project: its rows refused up front and the counters, in one write.
      const projectWrite = append
        ? {
            Update: {
              TableName: tableName,
              Key: keys.project(userId, project.id),
              UpdateExpression: 'ADD failedCount :failed SET updatedAt = :at',
              ExpressionAttributeValues: { ':failed': append.failed, ':at': createdAt },
            },
          }
        : { Put: { TableName: tableName, Item: projectItem(project) } };
      await db.send(new TransactWriteCommand({ TransactItems: [projectWrite, ...counterUpdates(tableName, userId, counters.month, counters.change)] }));
      // The keys of the rows' extra columns, gathered as they are chunked (streamed rows are read once).
      const attributeKeys = new Set<string>();
      const chunks = chunkBodiesOfAsync(withAttributeKeys(rows, attributeKeys), (chunk, chunkRows) => ({
        userId,
        jobId,
        projectId: project.id,
        projectName: project.name,
        accountType: project.accountType,
        createdAt,
        passwordSettings,
        existingAccounts,
        shards: project.accountShards ?? 1,
        timeZone,
        chunk,
        window: CHUNK_WINDOW,
        rows: chunkRows,
      }));
      // The waiting chunks before the job: a job item exists only when all of its chunks do.
      const queuedNow: { chunk: number; body: string }[] = [];
      const waiting = waitingChunkWriter(writeWaiting);
      let total = 0;
      let chunkCount = 0;
      try {
        for await (const made of chunks) {
          total += made.rows;
          chunkCount++;
          if (made.chunk < CHUNK_WINDOW) queuedNow.push({ chunk: made.chunk, body: made.body });
          else await waiting.write({ ...keys.bulkJobWaitingChunk(userId, jobId, made.chunk), entityType: 'BulkJobWaitingChunk', body: gzipSync(made.body) });
        }
      } catch (error) {
        // Rows that failed part-way (their reading, say): the writes under way end before it is reported.
        await waiting.drained().catch(() => undefined);
        throw error;
      }
      await waiting.drained();
      if (attributeKeys.size) {
        // Before the job exists: the project's exports know every column its accounts will carry.
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.project(userId, project.id),
            UpdateExpression: 'ADD attributeKeys :keys',
            // Never a project again from this write alone.
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':keys': attributeKeys },
          }),
        );
      }
      const job: BulkJob = {
        id: jobId,
        projectId: project.id,
        status: 'queued',
        total,
        done: 0,
        failedCount: 0,
        createdAt,
        updatedAt: createdAt,
      };
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.bulkJob(userId, job.id),
            entityType: 'BulkJob',
            ...job,
            chunks: chunkCount,
            window: CHUNK_WINDOW,
            lockOwner,
            startedAt: now.getTime(),
            projectName: project.name,
            ...(append ? { kind: 'add', ...(append.followUps ? { followUps: append.followUps } : {}) } : {}),
          },
        }),
      );
      // Which chunks the queue did not take: the whole batch when the call failed, else its Failed entries.
      const unqueued: { chunk: number; body: string }[] = [];
      let sendError: unknown;
      await Promise.all(
        batchesOf(queuedNow).map(async (batch) => {
          try {
            const { Failed } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map(({ chunk, body }) => ({ Id: String(chunk), MessageBody: body, MessageGroupId: userId })) }));
            const failedIds = new Set((Failed ?? []).map((entry) => entry.Id));
            unqueued.push(...batch.filter(({ chunk }) => failedIds.has(String(chunk))));
          } catch (error) {
            sendError ??= error;
            unqueued.push(...batch);
          }
        }),
      );
      if (unqueued.length && recordUnqueued) {
        // Every row stays accounted for: the refused chunks' rows are failed on the job now (and
        // the chunks waiting behind them with them), the chunks that were queued see a failed job
        // and record theirs (and those they release) as failed too.
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

/**
 * Puts one chunk body on the bulk queue: how a recorded chunk releases its job's next one
 * (process-chunk.ts). The user is the message group: on AWS that makes the standard queue a fair
 * queue (SQS delivers a quiet tenant's messages first while another's hold most of the workers),
 * on top of the window; the local emulator ignores groups on standard queues, the window does not
 * depend on them.
 */
export const sqsBulkQueue = (sqs: SQSClient, queueUrl: string) => async (body: string, userId: string): Promise<void> => {
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: userId }));
};

/** Groups of waiting chunks written at once at most, and waiting chunks in one group (BatchWriteItem's most). */
const WAITING_BATCHES = 2;
const WAITING_BATCH_ITEMS = 25;

/** Stores a group of waiting chunks at once (BatchWriteItem with its unprocessed items retried: the creation's store.writeAll). */
export type WaitingChunksWriter = (items: WaitingChunkItem[]) => Promise<void>;
type WaitingChunkItem = { PK: string; SK: string } & Record<string, unknown>;

/**
 * Stores the waiting chunks as they are made, 25 to a request (a 50,000-row job's 97 waiting
 * chunks in 4 requests before its 202, not 97): `write` waits only while WAITING_BATCHES groups
 * are under way. The writer is passed in by the creation (the store's writeAll, in the functions
 * granted BatchWriteItem), not made here: this module is bundled into every function that batches
 * SQS messages (core/sqs-batch-send.ts), and none of them may write in batches. The first failure
 * is thrown by the next `write` or by `drained`, after the writes under way have ended.
 */
function waitingChunkWriter(writeGroup: WaitingChunksWriter) {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let group: WaitingChunkItem[] = [];
  const settle = async () => {
    await Promise.all(running);
    if (failure) throw failure.error;
  };
  const flush = async () => {
    if (!group.length) return;
    const items = group;
    group = [];
    if (failure) await settle();
    while (running.size >= WAITING_BATCHES) await Promise.race(running);
    if (failure) await settle();
    const task: Promise<void> = writeGroup(items)
      .then(
        () => undefined,
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(() => running.delete(task));
    running.add(task);
  };
  return {
    async write(Item: WaitingChunkItem): Promise<void> {
      group.push(Item);
      if (group.length >= WAITING_BATCH_ITEMS) await flush();
    },
    /** Writes what is left, waits for every write, and throws the first failure. */
    async drained(): Promise<void> {
      if (!failure) await flush();
      await settle();
    },
  };
}

type ChunkRow = BulkChunkMessage['rows'][number];

/** The job's rows as message bodies: at most CHUNK_ROWS rows and CHUNK_MAX_BYTES each. */
export function chunkBodies(rows: Iterable<CheckedRow & UsernameSlot>, message: (chunk: number, rows: ChunkRow[]) => BulkChunkMessage): { chunk: number; body: string }[] {
  return [...chunkBodiesOf(rows, message)].map(({ chunk, body }) => ({ chunk, body }));
}

/**
 * The rows' chunks, one at a time: `add` gives a chunk's body when a row does not fit in the
 * current one, `end` the last (only one chunk's rows held).
 */
function chunker(message: (chunk: number, rows: ChunkRow[]) => BulkChunkMessage) {
  const envelope = Buffer.byteLength(JSON.stringify(message(0, [])));
  let chunk = 0;
  let current: ChunkRow[] = [];
  let size = envelope;
  const made = () => {
    const body = { chunk: chunk++, body: JSON.stringify(message(chunk - 1, current)), rows: current.length };
    current = [];
    size = envelope;
    return body;
  };
  return {
    add({ row, firstName, lastName, email, base, k, attributes }: CheckedRow & UsernameSlot): { chunk: number; body: string; rows: number } | undefined {
      const item: ChunkRow = { row, firstName, lastName, email, base, k, ...(attributes ? { attributes } : {}) };
      const itemSize = Buffer.byteLength(JSON.stringify(item)) + 1;
      const full = current.length && (current.length >= CHUNK_ROWS || size + itemSize > CHUNK_MAX_BYTES) ? made() : undefined;
      current.push(item);
      size += itemSize;
      return full;
    },
    end: () => (current.length ? made() : undefined),
  };
}

/** The same, one body at a time as the rows come (only one chunk's rows held). */
export function* chunkBodiesOf(rows: Iterable<CheckedRow & UsernameSlot>, message: (chunk: number, rows: ChunkRow[]) => BulkChunkMessage): Generator<{ chunk: number; body: string; rows: number }> {
  const chunks = chunker(message);
  for (const row of rows) {
    const full = chunks.add(row);
    if (full) yield full;
  }
  const last = chunks.end();
  if (last) yield last;
}

/** The same for rows that arrive over time (an uploaded file read again from S3), or an array. */
export async function* chunkBodiesOfAsync(
  rows: Iterable<CheckedRow & UsernameSlot> | AsyncIterable<CheckedRow & UsernameSlot>,
  message: (chunk: number, rows: ChunkRow[]) => BulkChunkMessage,
): AsyncGenerator<{ chunk: number; body: string; rows: number }> {
  const chunks = chunker(message);
  for await (const row of rows) {
    const full = chunks.add(row);
    if (full) yield full;
  }
  const last = chunks.end();
  if (last) yield last;
}

/** The rows unchanged, each one's attribute keys added to `found` as it passes. */
async function* withAttributeKeys<T extends { attributes?: Record<string, string> }>(rows: Iterable<T> | AsyncIterable<T>, found: Set<string>): AsyncGenerator<T> {
  for await (const row of rows) {
    for (const key of Object.keys(row.attributes ?? {})) found.add(key);
    yield row;
  }
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
