import { randomUUID } from 'node:crypto';
import { GetCommand, type TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { recordFailedRows } from './job-failures';
import { commitChunkDone } from './job-records';
import type { AccountJobKind, ChunkRange, JobDeps, JobItem } from './kind';
import { failJob, finishJob, markPickedUp, readJob } from './lifecycle';
import { releaseNext } from './window';

/**
 * One chunk of a job (a shard's accounts between two rows), the same for every kind: the kind's
 * work (ChunkWork) says what happens to each account; the engine makes every delivery safe.
 * 1. A chunk already done (a redelivery) only releases its successor, if that never happened,
 *    and checks the job's end. A job that is not working (paused, failed, completed) takes nothing.
 * 2. One delivery of a chunk at a time (a lease: lease.ts, or the kind's own); a copy waits on
 *    the queue. What the work reads first (`load`) is read while the lease is taken.
 * 3. The work ends 'done' with the chunk's tally (counted from what was written, never from what
 *    was meant), 'later' (the rest in a new delivery: the accounts handled are not taken again),
 *    'wait' (the integration's turn is another delivery's: asked again shortly) or
 *    'stopped' (the work paused or failed the job: a resume queues its chunks again).
 * 4. 'done': the tally is added to the job (and whatever else counts it) in the transaction that
 *    writes the chunk's done marker, once; then the next chunk is released and the end checked.
 * The dead-letter worker gives a chunk that failed every delivery up (deadChunkRecorder): the
 * kind records its accounts not handled as failed with the reason, and the chunk is done.
 */

/** A chunk message of a job run by the engine: a row range and its user (its job: kind.jobOf). */
export type JobChunk = ChunkRange & { userId: string; requeues?: number };

/** What a chunk did, as counted from its accounts. */
export interface ChunkTally {
  /** Written on the chunk's done marker (its counts; `released: true` when the work queued the successor itself). */
  marker: Record<string, number | boolean>;
  /** Added to the job's counters (beside chunksDone). */
  job: Record<string, number>;
  /** Rows of the chunk's accounts the job could not handle (a kind that `listsFailures`): kept beside the job before the marker is written (job-failures.ts). */
  failedRows?: readonly number[];
  /** Other writes of the same transaction (the project's counters, analytics); one whose condition fails ends the job ('The project was deleted.'). */
  also?: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;
}

/**
 * `later`: the rest in a new delivery after that many ms, counted as a requeue (MAX_REQUEUES);
 * `wait`: nothing done, the integration's turn is another delivery's (integration-turn.ts): back
 * on the queue for that many seconds, not counted.
 */
export type ChunkEnd = { done: ChunkTally } | { later: number } | { wait: number } | 'stopped';

/** A kind's work on one chunk: `load` (optional) runs while the lease is taken, `run` under it. */
export interface ChunkWork<Chunk, Loaded = undefined> {
  load?: (job: JobItem, message: Chunk) => Promise<Loaded>;
  run: (job: JobItem, message: Chunk, loaded: Loaded) => Promise<ChunkEnd>;
}

/** A kind's record of a chunk that failed every delivery: its accounts not handled fail with the reason; the chunk's tally. */
export type GiveUp<Chunk> = (job: JobItem, message: Chunk) => Promise<ChunkTally>;

/** Who works a chunk: the engine's lease item (lease.ts `leaseItem`), or a kind's own (a send's, on its chunk item). */
export interface ChunkLease<Chunk> {
  take: (deps: Pick<JobDeps, 'db' | 'tableName' | 'now'>, message: Chunk, holder: string) => Promise<boolean>;
  give: (deps: Pick<JobDeps, 'db' | 'tableName'>, message: Chunk, holder: string) => Promise<void>;
  /** How long a copy that found it held waits on the queue. */
  retrySeconds: number;
  /** A done chunk's lease needs no giving back (it lives on the done marker, which no lease is taken on). */
  keptWhenDone?: boolean;
}

/** Deliveries of one chunk put back on the queue (a long wait for the platform) before its accounts fail: hours of waiting. */
export const MAX_REQUEUES = 30;

export const idsOf = (kind: AccountJobKind<unknown, JobChunk>, message: JobChunk) => ({ userId: message.userId, jobId: kind.jobOf(message), chunk: message.chunk });

const readMarker = async (deps: Pick<JobDeps, 'db' | 'tableName'>, kind: AccountJobKind<unknown, JobChunk>, message: JobChunk) => {
  const { userId, jobId, chunk } = idsOf(kind, message);
  return (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: kind.chunkKey(userId, jobId, chunk), ConsistentRead: true }))).Item;
};

/** The worker of a kind's chunk messages. */
export function chunkRunner<Chunk extends JobChunk, Loaded = undefined>(
  deps: JobDeps<NoInfer<Chunk>>,
  kind: AccountJobKind<unknown, Chunk>,
  work: ChunkWork<Chunk, Loaded>,
  lease: ChunkLease<Chunk>,
) {
  const anyKind = kind as AccountJobKind<unknown, JobChunk>;
  return async (message: Chunk): Promise<void> => {
    const { userId, jobId } = idsOf(anyKind, message);
    // Both reads at once: every delivery makes them.
    const [marker, job] = await Promise.all([readMarker(deps, anyKind, message), readJob(deps, kind, userId, jobId)]);
    // Done already: the delivery that did it may have died before releasing the next chunk or ending the job.
    if (marker?.doneAt !== undefined) {
      if (job) await releaseNext(deps, kind, job, message.chunk, marker);
      return finishJob(deps, kind, userId, jobId);
    }
    if (!job || !kind.working.includes(String(job.status))) return;
    const holder = randomUUID();
    const leased = lease.take(deps, message, holder);
    let loaded: Loaded;
    try {
      loaded = work.load ? await work.load(job, message) : (undefined as Loaded);
    } catch (error) {
      // Settled before the lease is given back (else a lease written after that would stand).
      if (await leased.catch(() => false)) await lease.give(deps, message, holder);
      throw error;
    }
    if (!(await leased)) {
      await deps.queue.send([message], lease.retrySeconds);
      return;
    }
    let given = false;
    const giveBack = async () => {
      if (given) return;
      given = true;
      await lease.give(deps, message, holder);
    };
    let end: ChunkEnd;
    try {
      if (kind.reportsPickup && job.pickedUpAt === undefined) await markPickedUp(deps, kind, userId, jobId);
      end = await work.run(job, message, loaded);
      if (typeof end === 'object' && 'later' in end) await deps.queue.send([{ ...message, requeues: (message.requeues ?? 0) + 1 }], Math.min(900, Math.ceil(end.later / 1000)));
      else if (typeof end === 'object' && 'wait' in end) await deps.queue.send([message], end.wait);
      // Once the marker is written no copy takes the chunk: the lease goes back beside the release and the end check.
      else if (typeof end === 'object') await recordChunkDone(deps, kind, job, message, end.done, lease.keptWhenDone ? undefined : giveBack);
    } catch (error) {
      await giveBack();
      throw error;
    }
    if (!(lease.keptWhenDone && typeof end === 'object' && 'done' in end)) await giveBack();
  };
}

/**
 * A chunk is done: its tally added to the job's counters (and `also`) in the transaction that
 * writes its done marker, once (the marker's condition): the job's counts add up at every moment
 * and under any redelivery. Then, at once (they touch different items: a job with a chunk left
 * to release is not complete), its successor is released, the job's end checked and `alongside`
 * done (the chunk's lease given back).
 */
export async function recordChunkDone<Chunk extends JobChunk>(
  deps: JobDeps<NoInfer<Chunk>>,
  kind: AccountJobKind<unknown, Chunk>,
  job: JobItem,
  message: Chunk,
  tally: ChunkTally,
  alongside?: () => Promise<void>,
): Promise<void> {
  const { userId, jobId, chunk } = idsOf(kind as AccountJobKind<unknown, JobChunk>, message);
  const at = deps.now().toISOString();
  const adds = Object.entries(tally.job);
  // Before the marker: a delivery that dies between the two writes them again (the same items).
  if (tally.failedRows?.length) await recordFailedRows(deps, userId, kind.key(userId, jobId), jobId, tally.failedRows);
  // Undefined when an earlier delivery wrote the marker: releaseNext reads it.
  const marker = await commitChunkDone(
    deps,
    `Recording a ${kind.name} chunk`,
    kind.chunkKey(userId, jobId, chunk),
    { entityType: kind.chunkEntityType, chunk, ...tally.marker, doneAt: at },
    {
      Key: kind.key(userId, jobId),
      UpdateExpression: `ADD ${['chunksDone :one', ...adds.map((_, i) => `#a${i} :a${i}`)].join(', ')} SET updatedAt = :at`,
      ...(adds.length ? { ExpressionAttributeNames: Object.fromEntries(adds.map(([name], i) => [`#a${i}`, name])) } : {}),
      ExpressionAttributeValues: { ':one': 1, ':at': at, ...Object.fromEntries(adds.map(([, by], i) => [`:a${i}`, by])) },
    },
    tally.also,
  );
  // What the chunk counts is gone (its project was deleted meanwhile): nothing left to count, the job ends.
  if (marker === 'refused') return failJob(deps, kind, userId, jobId, 'The project was deleted.');
  await Promise.all([releaseNext(deps, kind, job, chunk, marker), finishJob(deps, kind, userId, jobId), alongside?.()]);
}

/**
 * The dead-letter worker of a kind's chunk messages: a chunk that failed every delivery (our side:
 * the table, a crash) is given up (its accounts not handled fail with the reason) and recorded
 * done, so the job ends and adds up; one done meanwhile only releases and checks the end.
 */
export function deadChunkRecorder<Chunk extends JobChunk>(deps: JobDeps<NoInfer<Chunk>>, kind: AccountJobKind<unknown, Chunk>, giveUp: GiveUp<Chunk>) {
  const anyKind = kind as AccountJobKind<unknown, JobChunk>;
  return async (message: Chunk): Promise<void> => {
    const { userId, jobId } = idsOf(anyKind, message);
    const job = await readJob(deps, kind, userId, jobId);
    if (!job) return;
    const marker = await readMarker(deps, anyKind, message);
    if (marker?.doneAt === undefined) return recordChunkDone(deps, kind, job, message, await giveUp(job, message));
    await releaseNext(deps, kind, job, message.chunk, marker);
    await finishJob(deps, kind, userId, jobId);
  };
}
