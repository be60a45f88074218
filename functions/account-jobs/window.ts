import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAllUnder } from '../core/prefix-query';
import type { AccountJobKind, ChunkRange, JobDeps, JobItem } from './kind';

/**
 * Fair turns on a shared queue. A job keeps at most a window of chunks on its queue (the kind's
 * `window`: the queue's maxConcurrency, so a job alone keeps every worker busy), and a job started
 * later (another user's 10 accounts) waits behind at most that many chunks of each job before it,
 * not behind all of them. The other chunks are not stored anywhere: the plan is fixed
 * (kind.chunks), so chunk c, once done, puts chunk c + window on the queue (releaseNext), behind
 * what other jobs queued meanwhile: running jobs take turns chunk by chunk.
 */

/** The window a job was planned with; 0 for a job planned before windows existed (it queued every chunk at once). */
export const windowOf = (job: Record<string, unknown>): number => Math.max(0, Math.floor(Number(job.window ?? 0)) || 0);

/** What a job puts on the queue when it is planned: its first `window` chunks (all of them without a window). */
export function firstChunks<T extends { chunk: number }>(plan: readonly T[], window: number): T[] {
  return window ? plan.filter((c) => c.chunk < window) : [...plan];
}

/**
 * What a resume puts on the queue again: the unfinished chunks that were due on it, the first
 * `window` ones and those whose releaser (chunk - window) is done. The others are released as
 * those finish, so a resumed job holds a window again, not all of its unfinished chunks.
 */
export function dueChunks<T extends { chunk: number }>(plan: readonly T[], done: ReadonlySet<number>, window: number): T[] {
  return plan.filter((c) => !done.has(c.chunk) && (!window || c.chunk < window || done.has(c.chunk - window)));
}

/**
 * Puts `next` on the queue once for the done chunk whose item is at `markerKey` (the marker's
 * `released`, set after the queue took it); `marker`, when the caller holds it, saves the read.
 * A delivery that dies between the send and the mark leaves it for the next delivery of the
 * chunk, which may queue it twice: the copy is stopped by its lease and its done marker.
 */
export async function releaseOnce<Message>(deps: Pick<JobDeps<Message>, 'db' | 'tableName' | 'queue'>, markerKey: { PK: string; SK: string }, next: Message, marker?: Record<string, unknown>): Promise<void> {
  const done = marker ?? (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: markerKey, ConsistentRead: true }))).Item;
  if (done?.doneAt === undefined || done.released === true) return;
  await deps.queue.send([next]);
  try {
    await deps.db.send(new UpdateCommand({ TableName: deps.tableName, Key: markerKey, UpdateExpression: 'SET released = :yes', ConditionExpression: 'attribute_exists(doneAt)', ExpressionAttributeValues: { ':yes': true } }));
  } catch (error) {
    // The job was erased meanwhile (its user's deletion): nothing to mark.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * The chunk a done chunk c puts on the queue (c + window), or undefined: none left, a job planned
 * before windows (it queued every chunk), or a job that is not working (paused: its resume queues
 * the due chunks again; failed or completed: nothing is left to do).
 */
export function successorOf<Chunk extends ChunkRange>(kind: AccountJobKind<unknown, Chunk>, job: JobItem, chunk: number): Chunk | undefined {
  const window = windowOf(job);
  if (!window || !kind.working.includes(String(job.status))) return undefined;
  return kind.chunks(job).find((c) => c.chunk === chunk + window);
}

/**
 * Done chunk c of a working job puts chunk c + window on the queue, once (releaseOnce). By any
 * path that records it done: its worker, a redelivery that finds it done, the dead-letter worker.
 */
export async function releaseNext<Chunk extends ChunkRange>(
  deps: Pick<JobDeps<NoInfer<Chunk>>, 'db' | 'tableName' | 'queue'>,
  kind: AccountJobKind<unknown, Chunk>,
  job: JobItem,
  chunk: number,
  marker?: Record<string, unknown>,
): Promise<void> {
  const next = successorOf(kind, job, chunk);
  if (next) await releaseOnce(deps, kind.chunkKey(String(job.userId), String(job.id), chunk), next, marker);
}

/** The chunks of a job to queue again on a resume: not done yet, and due on the queue (dueChunks). */
export async function unfinishedChunks<Chunk extends ChunkRange>(deps: Pick<JobDeps, 'db' | 'tableName'>, kind: AccountJobKind<unknown, Chunk>, job: JobItem): Promise<Chunk[]> {
  const { PK, SK } = kind.key(String(job.userId), String(job.id));
  const markers = await queryAllUnder(deps.db, deps.tableName, { PK, SKPrefix: `${SK}#CHUNK#` }, { consistent: true });
  const done = new Set(markers.filter((item) => item.doneAt !== undefined).map((item) => Number(item.chunk)));
  return dueChunks(kind.chunks(job), done, windowOf(job));
}
