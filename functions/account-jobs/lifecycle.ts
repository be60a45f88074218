import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { maxAccountRow, shardsOf } from '../accounts/account-partitions';
import { failDeliveryJob, finishDeliveryJob, leaveWorking, readDeliveryJob, type ProjectLock } from './job-records';
import type { AccountJobKind, ChunkRange, JobDeps, JobItem } from './kind';
import { firstChunks, unfinishedChunks, windowOf } from './window';

/**
 * A job's life, the same for every kind (kind.ts): started (the project's lock and the job item in
 * one transaction, then its start message), planned by the worker (waiting for an import first,
 * then counted, its chunks fixed and its first window queued), paused and resumed, and ended
 * (completed once every chunk is done, or failed with a reason; the lock given back and the kind
 * told once). Every step may run again (a redelivered message): each write is conditional.
 */

/**
 * How long a job waits for the import creating its project's accounts without the import moving
 * (no chunk recorded: its `updatedAt`) before it gives up. An import that keeps moving keeps its
 * follow-on jobs waiting, however long it takes (a 250,000-row upload on a busy queue).
 */
export const WAITING_LIMIT_MS = 30 * 60 * 1000;
/**
 * How often a waiting job looks at the import: every 5 s for its first minute (a small import ends
 * at once), then every minute. The import's end wakes it at once (functions/bulk/wake-follow-ons.ts):
 * this look is the fallback for a wake-up that was lost.
 */
export const waitingLookSeconds = (waitedMs: number): number => (waitedMs < 60_000 ? 5 : 60);

export const readJob = (deps: Pick<JobDeps, 'db' | 'tableName'>, kind: AccountJobKind, userId: string, jobId: string) => readDeliveryJob(deps, kind, userId, jobId);

/**
 * Writes the job item and takes the project's lock (kind.lock) in one transaction: a lock never
 * names a job that does not exist. `excludes`: other jobs' locks that keep this one from starting;
 * `projectSet`: what else the start records on the project. Then queues the start message (a job
 * that cannot be queued fails with `unqueued`, and the error is thrown). 'busy': the project is
 * held (or gone, or not as `projectCondition` wants it); nothing was written. 'exists': a job of
 * this id was started before; nothing was written. A kind without a `lock` holds nothing: the
 * project is only checked (`projectCheck`).
 */
export async function startJob(
  deps: JobDeps,
  kind: AccountJobKind,
  job: JobItem & { userId: string; projectId: string; id: string },
  options: {
    excludes: readonly ProjectLock[];
    /** What the start records on the project (a kind that holds it: `lock`). */
    projectSet: Record<string, unknown>;
    /** The job's reason when its start message cannot be queued (it fails); none: it stays queued. */
    unqueued?: string;
    /** Attributes the start removes from the project, and a further condition on it (its names and values other than `#p<n>`, `#r<n>`, `:p<n>`, `:job`): the expiry sweep's. */
    projectRemove?: readonly string[];
    projectCondition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
    /** A kind without a `lock`: the transaction's item for the project instead of taking it (a ConditionCheck, in the kind's own bundle: only its functions hold that grant). */
    projectCheck?: NonNullable<TransactWriteCommandInput['TransactItems']>[number];
    /** Further items of the start's transaction, after the project's and the job's (the expiry sweep's check of the user's creation lock); one whose condition fails: busy. */
    alsoItems?: NonNullable<TransactWriteCommandInput['TransactItems']>;
  },
): Promise<'started' | 'busy' | 'exists'> {
  const set = Object.entries(options.projectSet);
  const removed = options.projectRemove ?? [];
  const extra = options.projectCondition;
  const names = { ...Object.fromEntries(set.map(([name], i) => [`#p${i}`, name])), ...Object.fromEntries(removed.map((name, i) => [`#r${i}`, name])), ...extra?.names };
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          kind.lock
            ? {
                Update: {
                  TableName: deps.tableName,
                  Key: keys.project(job.userId, job.projectId),
                  // accountsVersion: a sync preview read before this job is stale after it (functions/sync/sync-store.ts stampOf).
                  UpdateExpression: `SET ${[kind.lock, ...set.map((_, i) => `#p${i}`)].map((name, i) => `${name} = ${i === 0 ? ':job' : `:p${i - 1}`}`).join(', ')}${removed.length ? ` REMOVE ${removed.map((_, i) => `#r${i}`).join(', ')}` : ''} ADD accountsVersion :one`,
                  ConditionExpression: ['attribute_exists(PK)', ...[kind.lock, ...options.excludes].map((lock) => `attribute_not_exists(${lock})`), ...(extra ? [`(${extra.expression})`] : [])].join(' AND '),
                  ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
                  ExpressionAttributeValues: { ':job': job.id, ':one': 1, ...Object.fromEntries(set.map(([, value], i) => [`:p${i}`, value])), ...extra?.values },
                },
              }
            : // A kind that holds nothing: its own check of the project (it changes no account: no sync preview goes stale).
              lockless(options.projectCheck),
          { Put: { TableName: deps.tableName, Item: { ...kind.key(job.userId, job.id), ...job, ...(kind.listsFailures ? { failuresListed: true } : {}) }, ConditionExpression: 'attribute_not_exists(PK)' } },
          ...(options.alsoItems ?? []),
        ],
      }),
    );
  } catch (error) {
    const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
    if (reasons.some((reason, i) => i !== 1 && reason.Code === 'ConditionalCheckFailed')) return 'busy';
    // The job's id was started before (a start made again with the same id: a redelivered message).
    if (reasons[1]?.Code === 'ConditionalCheckFailed') return 'exists';
    throw error;
  }
  try {
    await deps.queue.send([kind.startMessage(job.userId, job.id)]);
  } catch (error) {
    // No `unqueued`: the job stays queued, and the caller's start made again ('exists') queues it.
    if (options.unqueued !== undefined) await failJob(deps, kind, job.userId, job.id, options.unqueued);
    throw error;
  }
  return 'started';
}

function lockless<Item>(check: Item | undefined): Item {
  if (!check) throw new Error('A kind that holds no lock starts with its own check of the project (projectCheck).');
  return check;
}

/** The plan of a job over every row of the project: its shard count and its highest row (none when it takes no account). */
export async function planLayout(deps: Pick<JobDeps, 'db' | 'tableName'>, job: JobItem, project: Record<string, unknown>, total: number): Promise<{ shards: number; maxRow: number }> {
  const shards = shardsOf(project);
  return { shards, maxRow: total > 0 ? await maxAccountRow(deps.db, deps.tableName, String(job.userId), String(job.projectId), shards) : 0 };
}

/**
 * A start message: once the project's accounts exist (the import creating them ended), count
 * the job's accounts, fix its plan (a conditional write: a redelivered start plans the same) and
 * queue its first window of chunks once; each chunk done puts the next on the queue (window.ts).
 */
export async function planJob(deps: JobDeps, kind: AccountJobKind, userId: string, jobId: string): Promise<void> {
  let job = await readJob(deps, kind, userId, jobId);
  if (!job) return;
  const projectId = String(job.projectId);
  if (job.status === 'waiting') {
    const { Item: bulkJob } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, projectId), ConsistentRead: true }));
    if (bulkJob && bulkJob.status !== 'completed' && bulkJob.status !== 'failed') {
      const now = deps.now().getTime();
      const since = Number(job.waitingSince ?? now);
      const moved = Date.parse(String(bulkJob.updatedAt ?? ''));
      // Given up only when the import stopped moving for WAITING_LIMIT_MS (a bulk job that records no chunk for that long is not coming back).
      if (now - Math.max(since, Number.isNaN(moved) ? 0 : moved) > WAITING_LIMIT_MS) {
        return failJob(deps, kind, userId, jobId, kind.waitingFailure ?? 'The accounts were not created in time.');
      }
      // Still creating: look again later (a delayed message, no worker waits); the import's end wakes it sooner.
      await deps.queue.send([kind.startMessage(userId, jobId)], waitingLookSeconds(now - since));
      return;
    }
  }
  if (job.status === 'waiting' || job.status === 'queued') {
    const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
    if (!project) return failJob(deps, kind, userId, jobId, 'The project was deleted.');
    const { total, fields } = await kind.plan(deps, job, project);
    const chunks = total > 0 || kind.chunksWithoutAccounts ? kind.chunks({ ...job, ...fields }).length : 0;
    const at = deps.now().toISOString();
    const plan = Object.entries({ ...fields, chunks, window: typeof kind.window === 'function' ? kind.window({ ...job, ...fields }) : kind.window, startedAt: at, updatedAt: at });
    try {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: kind.key(userId, jobId),
          UpdateExpression: `SET #status = :running, #total = :total, ${plan.map((_, i) => `#f${i} = :f${i}`).join(', ')} REMOVE reason`,
          ConditionExpression: '#status IN (:waiting, :queued)',
          ExpressionAttributeNames: { '#status': 'status', '#total': 'total', ...Object.fromEntries(plan.map(([name], i) => [`#f${i}`, name])) },
          ExpressionAttributeValues: { ':running': 'running', ':total': total, ':waiting': 'waiting', ':queued': 'queued', ...Object.fromEntries(plan.map(([, value], i) => [`:f${i}`, value])) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    job = await readJob(deps, kind, userId, jobId);
    if (!job) return;
  }
  if (job.status !== 'running') return;
  if (Number(job.chunks) === 0) return finishJob(deps, kind, userId, jobId);
  if (job.chunksQueued === true) return;
  await deps.queue.send(firstChunks(kind.chunks(job), windowOf(job)));
  await deps.db.send(new UpdateCommand({ TableName: deps.tableName, Key: kind.key(userId, jobId), UpdateExpression: 'SET chunksQueued = :yes', ExpressionAttributeValues: { ':yes': true } }));
}

/** Ends a job as failed with the reason and gives the project's lock back; the kind is told once (only by the call that failed it). */
export async function failJob(deps: Pick<JobDeps, 'db' | 'tableName' | 'now'>, kind: AccountJobKind, userId: string, jobId: string, reason: string): Promise<void> {
  const at = deps.now().toISOString();
  const before = await failDeliveryJob(deps, kind, userId, jobId, reason, at);
  if (before && before.status !== 'failed') await kind.ended?.(deps, { ...before, userId, id: jobId }, 'failed', at, reason);
}

/**
 * A job whose chunks are all done completes and gives the project's lock back; the kind is told
 * once. Called by every delivery of every chunk (and the dead-letter workers): a step that failed
 * once is done by the next.
 */
export async function finishJob(deps: Pick<JobDeps, 'db' | 'tableName' | 'now'>, kind: AccountJobKind, userId: string, jobId: string): Promise<void> {
  const completed = await finishDeliveryJob(deps, kind, userId, jobId);
  if (completed) await kind.ended?.(deps, { ...completed.job, userId, id: jobId }, 'completed', completed.completedAt);
}

/** Pauses a working job with the reason: its chunks stop taking accounts; resumeJob queues them again. */
export async function pauseJob(deps: Pick<JobDeps, 'db' | 'tableName' | 'now'>, kind: AccountJobKind, userId: string, jobId: string, reason: string): Promise<void> {
  await leaveWorking(deps, kind, userId, jobId, 'paused', { reason, updatedAt: deps.now().toISOString() });
}

async function setStatus(deps: Pick<JobDeps, 'db' | 'tableName' | 'now'>, kind: AccountJobKind, userId: string, jobId: string, to: string, from: string) {
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: kind.key(userId, jobId),
      UpdateExpression: 'SET #status = :to, updatedAt = :at REMOVE reason',
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':to': to, ':from': from, ':at': deps.now().toISOString() },
    }),
  );
}

/**
 * A paused job goes on (for a kind whose `working` has 'resuming'): set 'resuming' (conditionally:
 * one resume wins) until its due chunks are queued again, then 'running' (chunks run in both). A
 * resume that died in between is finished by the next one, which finds it 'resuming'. Returns
 * whether it resumed the job.
 */
export async function resumeJob<Chunk extends ChunkRange>(deps: JobDeps<NoInfer<Chunk>>, kind: AccountJobKind<unknown, Chunk>, job: JobItem): Promise<boolean> {
  const userId = String(job.userId);
  const id = String(job.id);
  if (job.status === 'paused') {
    try {
      await setStatus(deps, kind, userId, id, 'resuming', 'paused');
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  } else if (job.status !== 'resuming') return false;
  const chunks = await unfinishedChunks(deps, kind, job);
  await deps.queue.send(chunks);
  try {
    await setStatus(deps, kind, userId, id, 'running', 'resuming');
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  // Every chunk was done already (a copy of the pausing chunk finished it): end the job here.
  if (chunks.length === 0) await finishJob(deps, kind, userId, id);
  return true;
}

/**
 * The first time a chunk of the job is picked up by a worker: from then on its status says
 * running, not queued (run-wait.ts). Written once per job (the caller checks the job it read).
 */
export async function markPickedUp(deps: Pick<JobDeps, 'db' | 'tableName' | 'now'>, kind: AccountJobKind, userId: string, jobId: string): Promise<void> {
  await deps.db
    .send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: kind.key(userId, jobId),
        UpdateExpression: 'SET pickedUpAt = if_not_exists(pickedUpAt, :at)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': deps.now().toISOString() },
      }),
    )
    .catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    });
}
