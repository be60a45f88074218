import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { createPasswordGenerator, type RandomBytes } from '../../shared/generation/password';
import { queues } from '../../shared/routes';
import { passwordSettingsSchema } from '../../shared/schemas/bulk';
import type { Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { accountItem } from '../accounts/account-item';
import { activityItem } from '../dashboard/activity';
import type { BulkStore } from './bulk-store';
import type { BulkChunkMessage } from './bulk-chunk';
import { usernamesFor } from './usernames';

export interface ChunkDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  store: BulkStore;
  now: () => Date;
  newId: (now: Date) => string;
}

/** The transaction's first item is the chunk marker: its condition failing means "already recorded". */
const isDuplicate = (error: unknown) => error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';

/**
 * Bulk worker, one chunk of a job:
 * 1. A chunk already recorded (redelivery) is skipped: nothing is created twice. A chunk of a job
 *    that failed is recorded as failed rows without writing anything.
 * 2. Settings that cannot make a password (a job queued before they were checked, or a bug) fail
 *    the job at once with the reason: retrying would fail the same way for 3 visibility timeouts.
 * 3. Give the usernames (same names on any redelivery), generate and encrypt the passwords,
 *    write the accounts (BatchWriteItem, unprocessed retried).
 * 4. Record the chunk, the job's progress and the project's count in one transaction.
 * 5. The chunk that completes the job finishes it (status, activity, timing, lock).
 */
export const processChunk =
  (deps: ChunkDeps & { cipher: () => Promise<Cipher>; randomBytes: RandomBytes }) =>
  async (message: BulkChunkMessage): Promise<void> => {
    const marker = keys.bulkJobChunk(message.userId, message.jobId, message.chunk);
    const { Item: seen } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: marker, ConsistentRead: true }));
    if (seen) return;
    const { Item: job } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(message.userId, message.jobId), ConsistentRead: true }));
    if (job?.status === 'failed') {
      // The job stopped (another chunk failed): no account of it may appear after its lock was released.
      await releaseLock(deps, message.userId, job);
      await recordChunk(deps, message, { done: 0, failed: message.rows.length }, String(job.reason ?? JOB_STOPPED));
      return;
    }
    const settings = passwordSettingsSchema.safeParse(message.passwordSettings);
    if (!settings.success) return failJob(deps, message, settings.error.issues[0]?.message ?? 'Invalid password settings');
    let nextPassword: () => string;
    try {
      nextPassword = createPasswordGenerator(settings.data, deps.randomBytes);
      nextPassword();
    } catch (error) {
      return failJob(deps, message, error instanceof Error ? error.message : String(error));
    }
    await markRunning(deps, message);

    const usernames = usernamesFor(message.rows, await takenForJob(deps.store, message));
    const cipher = await deps.cipher();
    const items = message.rows.map((row, i) =>
      accountItem({
        id: keys.accountId(message.projectId, row.row),
        userId: message.userId,
        projectId: message.projectId,
        projectName: message.projectName,
        row: row.row,
        firstName: row.firstName,
        lastName: row.lastName,
        email: row.email,
        username: usernames[i]!,
        passwordCiphertext: cipher.encrypt(nextPassword()),
        accountType: message.accountType,
        isActive: true,
        externalStatus: 'pending',
        createdAt: message.createdAt,
      }),
    );
    // Several chunks are written at once (the queue's maxConcurrency): a few calls each keep the
    // table's total write concurrency where it is fastest.
    await deps.store.writeAll(items, { parallel: 4 });
    await recordChunk(deps, message, { done: message.rows.length, failed: 0 });
  };

const BULK_ATTEMPTS = queues.find((q) => q.name === 'bulk')?.maxReceiveCount ?? 3;
const JOB_STOPPED = 'Not created: the job stopped.';

/**
 * Dead-letter worker: a chunk that failed maxReceiveCount times. The job fails with the reason and
 * releases the user's lock at once; the chunk's rows are recorded as failed (kept on the chunk
 * item, listed in the project's rejected-rows report), the reserved counters given back, and the
 * job's other chunks stop the same way. Nothing is lost silently.
 */
export const recordDeadChunk = (deps: ChunkDeps) => async (message: BulkChunkMessage): Promise<void> => {
  const rows = message.rows.map((r) => r.row);
  const span = rows.length > 1 ? `Rows ${Math.min(...rows)} to ${Math.max(...rows)}` : `Row ${rows[0] ?? '?'}`;
  await failJob(deps, message, `${span} could not be stored after ${BULK_ATTEMPTS} attempts.`);
};

/**
 * A job that cannot go on: status 'failed' with its reason, the user's lock released at once (the
 * user may create again), an activity entry, and this chunk's rows recorded as failed. Every step
 * can run again (redelivery): a failed job's later chunks release the lock again and record
 * themselves as failed.
 */
async function failJob(deps: ChunkDeps, message: BulkChunkMessage, reason: string): Promise<void> {
  const now = deps.now().toISOString();
  try {
    const { Attributes: job } = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.bulkJob(message.userId, message.jobId),
        UpdateExpression: 'SET #status = :failed, reason = :reason, completedAt = :now, updatedAt = :now',
        ConditionExpression: 'attribute_exists(PK) AND #status <> :completed AND #status <> :failed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed', ':completed': 'completed', ':reason': reason, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    if (job) {
      await releaseLock(deps, message.userId, job);
      const name = String(job.projectName ?? message.projectName);
      await deps.store.writeAll([activityItem(message.userId, now, deps.newId(new Date(now)), `Creating accounts in "${name}" failed: ${reason}`)]);
    }
  } catch (error) {
    // Already completed or failed (or unknown): only this chunk's rows are left to record.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  await recordChunk(deps, message, { done: 0, failed: message.rows.length }, reason);
}

/** Gives back the lock the job took, if it still holds it (conditional on the owner: safe to repeat). */
async function releaseLock(deps: ChunkDeps, userId: string, job: Record<string, unknown>): Promise<void> {
  if (typeof job.lockOwner === 'string') await deps.store.release(userId, { projects: 0, accounts: 0 }, job.lockOwner);
}

/**
 * The usernames outside the job's project do not change while the job holds the user's lock, so a
 * worker container reads them once per job and reuses them for every chunk it processes (all of
 * them when that is cheaper than asking per name).
 */
const takenByJob = new Map<string, Promise<Set<string>>>();
function takenForJob(store: BulkStore, message: BulkChunkMessage): Promise<Set<string>> {
  if (message.existingAccounts === 0) return Promise.resolve(new Set());
  const readAll = message.existingAccounts <= FULL_READ_LIMIT;
  if (!readAll) return store.takenUsernames(message.userId, [...new Set(message.rows.map((r) => r.base))], message.existingAccounts, message.projectId);
  let taken = takenByJob.get(message.jobId);
  if (!taken) {
    taken = store.takenUsernames(message.userId, [], message.existingAccounts, message.projectId, { readAll: true });
    taken.catch(() => takenByJob.delete(message.jobId));
    takenByJob.clear(); // one job at a time per container is plenty
    takenByJob.set(message.jobId, taken);
  }
  return taken;
}
/** Up to this many existing accounts, a container reads all their usernames once per job. */
const FULL_READ_LIMIT = 250_000;

async function markRunning(deps: ChunkDeps, message: BulkChunkMessage) {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.bulkJob(message.userId, message.jobId),
        UpdateExpression: 'SET #status = :running, updatedAt = :now',
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':now': deps.now().toISOString() },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

async function recordChunk(deps: ChunkDeps, message: BulkChunkMessage, counts: { done: number; failed: number }, reason?: string) {
  const now = deps.now().toISOString();
  const marker = keys.bulkJobChunk(message.userId, message.jobId, message.chunk);
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: deps.tableName,
              Item: {
                ...marker,
                entityType: 'BulkJobChunk',
                done: counts.done,
                failed: counts.failed,
                ...(counts.failed ? { failedRows: message.rows.map(({ row, firstName, lastName, email }) => ({ row, firstName, lastName, email })) } : {}),
                ...(counts.failed && reason ? { reason } : {}),
                recordedAt: now,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Update: {
              TableName: deps.tableName,
              Key: keys.bulkJob(message.userId, message.jobId),
              UpdateExpression: 'ADD done :done, failedCount :failed SET updatedAt = :now',
              // A chunk of an unknown job fails (and ends in the DLQ) instead of inventing a job.
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':done': counts.done, ':failed': counts.failed, ':now': now },
            },
          },
          {
            Update: {
              TableName: deps.tableName,
              Key: keys.project(message.userId, message.projectId),
              UpdateExpression: 'ADD accountCount :done, failedCount :failed SET updatedAt = :now',
              ExpressionAttributeValues: { ':done': counts.done, ':failed': counts.failed, ':now': now },
            },
          },
          ...(counts.failed
            ? [
                {
                  // Rows that will never exist give their reserved place back.
                  Update: {
                    TableName: deps.tableName,
                    Key: keys.user(message.userId),
                    UpdateExpression: 'ADD accountCount :released',
                    ExpressionAttributeValues: { ':released': -counts.failed },
                  },
                },
              ]
            : []),
        ],
      }),
    );
  } catch (error) {
    if (isDuplicate(error)) return;
    throw error;
  }
  await finishIfComplete(deps, message);
}

async function finishIfComplete(deps: ChunkDeps, message: BulkChunkMessage) {
  const { Item: job } = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(message.userId, message.jobId), ConsistentRead: true }),
  );
  if (!job) return;
  const done = Number(job.done ?? 0);
  const failed = Number(job.failedCount ?? 0);
  if (done + failed < Number(job.total) || job.status === 'completed' || job.status === 'failed') return;
  const finished = deps.now();
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.bulkJob(message.userId, message.jobId),
        UpdateExpression: 'SET #status = :status, completedAt = :now, updatedAt = :now',
        ConditionExpression: '#status <> :completed AND #status <> :failed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': done > 0 ? 'completed' : 'failed', ':now': finished.toISOString(), ':completed': 'completed', ':failed': 'failed' },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return; // another chunk finished it
    throw error;
  }
  const name = String(job.projectName ?? message.projectName);
  const at = finished.toISOString();
  await deps.store.writeAll([
    activityItem(message.userId, String(job.createdAt), deps.newId(new Date(String(job.createdAt))), `Project "${name}" created`),
    ...(done ? [activityItem(message.userId, at, deps.newId(finished), `${done} ${done === 1 ? 'account' : 'accounts'} created in "${name}"`)] : []),
    ...(failed ? [activityItem(message.userId, at, deps.newId(finished), `${failed} ${failed === 1 ? 'row' : 'rows'} not created in "${name}"`)] : []),
  ]);
  await deps.store.finish(message.userId, {
    lockOwner: String(job.lockOwner),
    accounts: done,
    processingMs: finished.getTime() - Number(job.startedAt ?? finished.getTime()),
  });
}
