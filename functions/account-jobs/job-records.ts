import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isThrottling, isTransactionConflict, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { keys } from '../core/keys';

/**
 * The bookkeeping every account job shares (kind.ts: provisioning runs, credential sends,
 * password resets, ...). Each is one item (its counters, `chunks` and `chunksDone`) and holds its project while it
 * runs through an attribute on the project item (`lock`), so no two of them work on one project's
 * accounts at once. Each chunk records itself done once, in the transaction that adds its tally;
 * the job ends when every chunk is done, and the lock is given back by whichever call sees it over.
 */
/** The project attribute a kind's job holds the project by (`active<Kind>`: the three kinds' below, a new kind's own). */
export type ProjectLock = 'activeProvisioningJob' | 'activeMailSend' | 'activePasswordReset' | `active${string}`;

export interface DeliveryJobKind {
  /** The job item's key. */
  key: (userId: string, jobId: string) => Record<string, string>;
  /** The project attribute that names the job while it runs (none: it holds nothing). */
  lock?: ProjectLock;
  /** Statuses in which the job still works its chunks (it completes from one of them). */
  working: readonly string[];
}

interface Table {
  db: DynamoDBDocumentClient;
  tableName: string;
}

export async function readDeliveryJob(deps: Table, kind: DeliveryJobKind, userId: string, jobId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: kind.key(userId, jobId), ConsistentRead: true }));
  return Item;
}

/** Gives the project back, if this job still holds it (a repeat, or a newer job's lock, changes nothing). */
export async function releaseProjectLock(deps: Table, lock: ProjectLock | undefined, userId: string, projectId: string, jobId: string): Promise<void> {
  if (!lock) return;
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.project(userId, projectId),
        UpdateExpression: `REMOVE ${lock}`,
        ConditionExpression: `${lock} = :job`,
        ExpressionAttributeValues: { ':job': jobId },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * Ends a job as failed with the reason and gives its project back. Returns the job as it was
 * before (its status tells a caller whether this call failed it), or undefined for a job that does
 * not exist (erased meanwhile: nothing is written).
 */
export async function failDeliveryJob(deps: Table, kind: DeliveryJobKind, userId: string, jobId: string, reason: string, at: string): Promise<Record<string, unknown> | undefined> {
  const { Attributes: before } = await deps.db
    .send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: kind.key(userId, jobId),
        UpdateExpression: 'SET #status = :failed, reason = :reason, completedAt = :at, updatedAt = :at',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed', ':reason': reason, ':at': at },
        ReturnValues: 'ALL_OLD',
      }),
    )
    .catch((error: unknown) => {
      if (error instanceof ConditionalCheckFailedException) return { Attributes: undefined };
      throw error;
    });
  if (before) await releaseProjectLock(deps, kind.lock, userId, String(before.projectId), jobId);
  return before;
}

/**
 * A job whose chunks are all done completes, and a job that is over gives its project back.
 * Called by every delivery of every chunk (and the dead-letter workers): a step that failed once
 * is done by the next. One read in the common case (most chunks are not the last). Returns the
 * job as read and whether this call completed it (so only one caller tells the user).
 */
export async function finishDeliveryJob(
  deps: Table & { now: () => Date },
  kind: DeliveryJobKind,
  userId: string,
  jobId: string,
): Promise<{ job: Record<string, unknown>; completedAt: string } | undefined> {
  const job = await readDeliveryJob(deps, kind, userId, jobId);
  if (!job) return undefined;
  let latest: Record<string, unknown> | undefined = job;
  let completed: { job: Record<string, unknown>; completedAt: string } | undefined;
  if (kind.working.includes(String(job.status)) && Number(job.chunksDone ?? 0) >= Number(job.chunks ?? 0)) {
    const at = deps.now().toISOString();
    if (await leaveWorking(deps, kind, userId, jobId, 'completed', { completedAt: at, updatedAt: at })) {
      latest = { ...job, status: 'completed', completedAt: at };
      completed = { job, completedAt: at };
    } else latest = await readDeliveryJob(deps, kind, userId, jobId);
  }
  if (latest?.status === 'completed' || latest?.status === 'failed') await releaseProjectLock(deps, kind.lock, userId, String(latest.projectId), jobId);
  return completed;
}

/**
 * Moves a job out of its working statuses (completed, paused) with `values`, conditionally: one
 * caller wins. False when the job was not working (or is gone).
 */
export async function leaveWorking(deps: Table, kind: DeliveryJobKind, userId: string, jobId: string, status: string, values: Record<string, unknown>): Promise<boolean> {
  const working = Object.fromEntries(kind.working.map((from, i) => [`:w${i}`, from]));
  const fields = Object.entries(values);
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: kind.key(userId, jobId),
        UpdateExpression: `SET #status = :status, ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
        ConditionExpression: `#status IN (${Object.keys(working).join(', ')})`,
        ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])) },
        ExpressionAttributeValues: { ':status': status, ...working, ...Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])) },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Records a chunk done, once: its marker (the chunk's item, written only if it has no `doneAt`
 * yet: a kind may keep the chunk's lease on the same item) and its tally added to the job (and to
 * whatever else counts it, `also`) in one transaction, retried on conflicts and throttling.
 * Returns the marker as written (`released: false` unless the marker says otherwise: the next
 * chunk is not on the queue yet), undefined when an earlier delivery wrote it (the caller reads it
 * when it needs it), or 'refused' when a condition of `also` failed (what it counts is gone: the
 * project was deleted).
 */
export async function commitChunkDone(
  deps: Table & { retry?: RetryPolicy },
  what: string,
  chunkKey: { PK: string; SK: string },
  marker: Record<string, unknown> & { doneAt: string },
  tally: { Key: Record<string, string>; UpdateExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> },
  also: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [],
): Promise<Record<string, unknown> | undefined | 'refused'> {
  const fields = Object.entries(marker);
  try {
    await withRetry(what, deps.retry ?? workerRetry, (e) => isTransactionConflict(e) || isThrottling(e), () =>
      deps.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: deps.tableName,
                Key: chunkKey,
                UpdateExpression: `SET ${fields.map((_, i) => `#m${i} = :m${i}`).join(', ')}`,
                ConditionExpression: 'attribute_not_exists(doneAt)',
                ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#m${i}`, name])),
                ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:m${i}`, value])),
              },
            },
            { Update: { TableName: deps.tableName, ...tally } },
            ...also,
          ],
        }),
      ),
    );
    return { released: false, ...marker };
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    if (reasons.slice(2).some((reason) => reason.Code === 'ConditionalCheckFailed')) return 'refused';
    if (reasons[0]?.Code === 'ConditionalCheckFailed') return undefined;
    throw error;
  }
}
