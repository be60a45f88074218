import type { WakeFollowOns } from './wake-follow-ons';
import { gunzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryItems } from '../core/query-pages';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { createPasswordGenerator, type RandomBytes } from '../../shared/generation/password';
import { queues } from '../../shared/queues';
import { passwordSettingsSchema } from '../../shared/schemas/bulk';
import { isThrottling, isTransactionConflict, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { secretContext, type Cipher } from '../core/encryption';
import { itemKey, itemsByKey } from '../core/items-by-key';
import { keys } from '../core/keys';
import { accountItem } from '../accounts/account-item';
import { countAttributes } from '../accounts/attribute-counts';
import { attributeIndexItems } from '../accounts/attribute-index-items';
import { activityItem } from '../dashboard/activity';
import { counterUpdates, monthOf, userTimeZone } from '../analytics/counters';
import { LOCK_TTL_MS, UsernameTakenError, usernameBlocks, type BulkStore } from './bulk-store';
import { bulkChunkMessageSchema, type BulkChunkMessage } from './bulk-chunk';
import { usernamesFor } from './usernames';
import { CHUNK_WINDOW, type AddFollowUps } from './bulk-jobs';
import { bulkJobFinished } from '../notifications/events';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { plural } from '../../shared/text/plural';
import { inLanes } from '../core/lanes';

export interface ChunkDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  store: BulkStore;
  now: () => Date;
  newId: (now: Date) => string;
  /** Retries of TransactionConflict and throttling on the job's items (workerRetry by default). */
  retry?: RetryPolicy;
  /** Queues the project-completion e-mail when the job ends (the bulk worker and the dead-letter worker alike). */
  mail?: QueueMail;
  /**
   * Puts a chunk body on the bulk queue: a recorded chunk releases its job's next waiting one
   * (releaseNext). Needed by whoever records chunks of a running job (the workers).
   */
  bulkQueue?: (body: string, userId: string) => Promise<void>;
  /**
   * Starts what a job adding people to a project asked for once its accounts exist (add-people.ts
   * startFollowUps: provisioning to the project's integration, credential e-mails).
   */
  followUps?: (userId: string, projectId: string, followUps: AddFollowUps) => Promise<Record<string, string>>;
  /** Wakes the project's provisioning run and credentials send that wait for this import to end (wake-follow-ons.ts). */
  wake?: WakeFollowOns;
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
    const jobKey = keys.bulkJob(message.userId, message.jobId);
    // One read (BatchGetItem, strongly consistent) of the chunk's marker and its job (needed
    // whenever the chunk is new, which is nearly always). The successor's waiting item is read
    // only once this chunk's accounts are written (releaseNext): read at the start, two
    // overlapping deliveries of one chunk would both find it and both queue it while neither had
    // recorded its marker yet, and so on down the job's lane.
    const read = await itemsByKey(deps.db, deps.tableName, [marker, jobKey], { consistent: true, retry: deps.retry ?? workerRetry, what: `Reading chunk ${message.chunk} of job ${message.jobId}` });
    const seen = read.get(itemKey(marker));
    const job = read.get(itemKey(jobKey));
    // Already recorded: the delivery that recorded it may have failed while releasing the next
    // chunk or completing the job, so both are done again (otherwise the job could stay 'running' for ever).
    if (seen) return settle(deps, message);
    if (job?.status === 'failed') {
      // The job stopped (another chunk failed): no account of it may appear after its lock was released.
      await releaseLock(deps, message.userId, job);
      await recordChunk(deps, message, { done: 0, failedRows: message.rows }, String(job.reason ?? JOB_STOPPED));
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
    // Only the first chunks find the job queued: the others would send an update whose condition fails.
    if (job?.status === 'queued') await markRunning(deps, message);

    // The user's lock, extended for this chunk. While the job holds it without a break since its
    // start, no other creation read or wrote a name: the names read at the job's start (or none,
    // for a user without accounts) are still all the taken ones, and this chunk's names, chosen
    // against them, need no condition. A lock the job took back after another creation held it
    // (it lapsed while the chunks waited) is a new tenure: names read fresh, claimed conditionally.
    const renewedAt = deps.now().getTime();
    const lockOwner = typeof job?.lockOwner === 'string' ? job.lockOwner : undefined;
    const tenure = lockOwner ? await deps.store.renewLock(message.userId, lockOwner, { now: renewedAt, until: renewedAt + LOCK_TTL_MS }) : undefined;
    // The job's startedAt is the moment its creation took the lock (one `started` for both).
    const unbroken = tenure !== undefined && tenure.since !== undefined && tenure.since === job?.startedAt;
    const taken = tenure && !unbroken
      ? await deps.store.takenUsernames(message.userId, [...new Set(message.rows.map((r) => r.base))], COUNT_UNKNOWN, ownNames(message))
      : await takenForJob(deps.store, message);
    const usernames = usernamesFor(message.rows, taken);
    const cipher = await deps.cipher();
    const items = message.rows.map((row, i) => {
      const id = keys.accountId(message.projectId, row.row);
      return accountItem({
        id,
        userId: message.userId,
        projectId: message.projectId,
        projectName: message.projectName,
        row: row.row,
        firstName: row.firstName,
        lastName: row.lastName,
        email: row.email,
        ...(row.attributes ? { attributes: row.attributes } : {}),
        username: usernames[i]!,
        passwordCiphertext: cipher.encrypt(nextPassword(), secretContext.account(message.userId, id)),
        accountType: message.accountType,
        isActive: true,
        externalStatus: 'pending',
        createdAt: message.createdAt,
      }, message.shards ?? 1);
    });
    // Each name becomes its account's own on the base table before that account is written: an
    // account never exists without its name recorded (a dead chunk's stored rows count as done).
    // Under the job's unbroken lock the chunk's names go first, as username blocks (one item per
    // username partition instead of one per name: DynamoDB Local costs per item,
    // docs/bulk-files.md), plain puts sent only while the renewed lock has most of its life left
    // (LOCK_FENCE_MS); otherwise each name is a conditional write, refused when another account
    // holds it, in groups pipelined with the accounts (a group's accounts are written while the
    // next group's names are).
    const fence = renewedAt + LOCK_FENCE_MS;
    const groups: (typeof items)[] = [];
    for (let i = 0; i < items.length; i += CLAIM_GROUP) groups.push(items.slice(i, i + CLAIM_GROUP));
    const lanes = Math.min(PIPELINE, groups.length);
    const parallel = writesPerCall(job, lanes);
    if (unbroken) {
      if (deps.now().getTime() > fence) throw new Error(`Chunk ${message.chunk} of job ${message.jobId} ran past its lock's fence: delivered again, it renews the lock first`);
      // The names before any account, with the calls of all the chunk's lanes.
      await deps.store.writeAll(usernameBlocks(message.userId, message, usernames), { parallel: parallel * lanes });
    }
    // The Attribute filter's entries of the chunk's extra columns, before the accounts: an account
    // that exists has its entries (one whose account is not written yet is skipped by the reader).
    const indexItems = message.rows.flatMap((row) => attributeIndexItems(message.userId, message.projectId, row.row, row.attributes));
    if (indexItems.length) await deps.store.writeAll(indexItems, { parallel: parallel * lanes });
    const claimNames = async (group: typeof items) => {
      if (unbroken) return;
      const claims = group.map((item) => ({ username: String(item.username), projectId: message.projectId, accountId: String(item.id), ...(addsPeople(message) ? { jobId: message.jobId } : {}) }));
      return deps.store.claimUsernames(message.userId, claims);
    };
    try {
      await inLanes(groups, lanes, async (group) => {
        await claimNames(group);
        // Several chunks are written at once (the queue's maxConcurrency): a few calls each
        // keep the table's total write concurrency bounded (writesPerCall).
        await deps.store.writeAll(group, { parallel });
      });
    } catch (error) {
      // Only when the user's lock was bypassed (expired): the next delivery reads the names again
      // and writes the same account keys with them.
      if (error instanceof UsernameTakenError) takenByJob.delete(message.jobId);
      throw error;
    }
    // Every account of the chunk is written: the job's next chunk goes on the queue now, beside
    // this one's counting and recording rather than after them (the workers do not sit idle while
    // this chunk records itself). From the job as read at the start: a job failed since then only
    // makes the released chunk find it failed and record its rows as not created. A delivery that
    // dies before its record is delivered again and writes the same accounts; the successor's
    // waiting item is gone by then (or, deleted or not, its marker makes a second run a no-op).
    const released = hasSuccessor(job, message) ? releaseNext(deps, message, Promise.resolve(job)) : Promise.resolve();
    const recorded = (async () => {
      // Their extra column values counted (the Attribute filter's exact count), once per chunk.
      await countAttributes(deps, message.userId, message.projectId, message.rows, chunkOnce(message));
      await recordChunk(deps, message, { done: message.rows.length, failedRows: [] }, undefined, { released: true });
    })();
    // Both settled before either's failure is reported (the delivery is retried whole).
    const [release, record] = await Promise.allSettled([released, recorded]);
    if (release.status === 'rejected') throw release.reason;
    if (record.status === 'rejected') throw record.reason;
  };

/** The id a chunk's attribute counts are recorded under: a redelivery counts nothing twice. */
const chunkOnce = (message: BulkChunkMessage) => `${message.jobId}#${message.chunk}`;

/**
 * A job adding people to an existing project has its own id (a creation's job is its project's):
 * the project's other accounts hold names too, so only the job's own names are left out of the
 * taken ones (name items and blocks carry the job's id), not the project's.
 */
const addsPeople = (message: BulkChunkMessage) => message.jobId !== message.projectId;
const ownNames = (message: BulkChunkMessage) => (addsPeople(message) ? { jobId: message.jobId } : message.projectId);

/** Accounts per username transaction (at most 100 actions), and groups in flight per chunk. */
const CLAIM_GROUP = 100;
const PIPELINE = 3;
/**
 * BatchWriteItem calls one job keeps in flight over all of its chunks on the queue: a large job's
 * CHUNK_WINDOW chunks write one call per group lane each (PIPELINE lanes a chunk). A job of fewer
 * chunks, and a chunk of fewer groups, gives each lane the calls the missing chunks and lanes would
 * have had (a one-chunk 100-row job writes its 4 batches at once). So every running job, small or
 * large, has about the same number of writes in flight: a large job's 9, not 18 as with 2 calls a
 * lane, which left another user's small job a smaller share of the writer (issue 15's fair turns,
 * bench/fair.ts; alone, a large job writes about as fast with 9: some 5% slower at the median,
 * docs/bulk-files.md).
 */
const JOB_WRITE_CALLS = CHUNK_WINDOW * PIPELINE;
export const writesPerCall = (job: Record<string, unknown> | undefined, lanes = PIPELINE): number => {
  const chunks = Number(job?.chunks);
  const inFlight = Number.isInteger(chunks) && chunks > 0 ? Math.min(chunks, CHUNK_WINDOW) : CHUNK_WINDOW;
  return Math.max(1, Math.floor(JOB_WRITE_CALLS / (inFlight * Math.max(1, lanes))));
};
/**
 * A chunk sends its unconditional name writes only this long after renewing the lock: a third of
 * the lock's life, so every write it sent has landed long before another creation could take the
 * lock (a worker's own timeout, 5 minutes at most, ends it sooner still).
 */
export const LOCK_FENCE_MS = LOCK_TTL_MS / 3;
/** An account count that makes takenUsernames ask per base: after a break in the lock, the job's count says nothing. */
const COUNT_UNKNOWN = Number.MAX_SAFE_INTEGER;

const BULK_ATTEMPTS = queues.find((q) => q.name === 'bulk')?.maxReceiveCount ?? 3;
const JOB_STOPPED = 'Not created: the job stopped.';

/**
 * Dead-letter worker: a chunk that failed maxReceiveCount times. The job fails with the reason and
 * releases the user's lock at once; the chunk's rows are recorded as failed (kept on the chunk
 * item, listed in the project's rejected-rows report), the reserved counters given back, and the
 * job's other chunks stop the same way. Nothing is lost silently.
 */
export const recordDeadChunk = (deps: ChunkDeps) => async (message: BulkChunkMessage): Promise<void> => {
  const marker = keys.bulkJobChunk(message.userId, message.jobId, message.chunk);
  const { Item: seen } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: marker, ConsistentRead: true }));
  // Recorded, only its release or completion step kept failing: do them, fail nothing.
  if (seen) return settle(deps, message);
  // Count what exists: accounts an earlier delivery stored are done (their place stays counted);
  // only the rows with no account are failed.
  const stored = await storedRows(deps, message);
  const missing = message.rows.filter((r) => !stored.has(r.row));
  // The stored ones' values counted (those an earlier delivery counted are not counted again).
  await countAttributes(deps, message.userId, message.projectId, message.rows.filter((r) => stored.has(r.row)), chunkOnce(message));
  if (!missing.length) {
    // Every account is there (e.g. recording it conflicted with other workers every time).
    await recordChunk(deps, message, { done: message.rows.length, failedRows: [] });
    return;
  }
  await failJob(deps, message, `${rowSpan(missing)} could not be stored after ${BULK_ATTEMPTS} attempts.`, { done: message.rows.length - missing.length, failedRows: missing });
};

/** 'Rows 1001 to 1200' or 'Row 7': what a failure reason names. */
function rowSpan(rows: readonly { row: number }[]): string {
  const numbers = rows.map((r) => r.row);
  return numbers.length > 1 ? `Rows ${Math.min(...numbers)} to ${Math.max(...numbers)}` : `Row ${numbers[0] ?? '?'}`;
}

/**
 * A chunk that never reached the queue (SendMessageBatch refused it): its rows are failed on the
 * job with the reason, their reserved places given back and the job failed, so done + failed
 * still adds up to the job's total.
 */
export const recordUnqueuedChunk = (deps: ChunkDeps) => async (message: BulkChunkMessage): Promise<void> => {
  await failJob(deps, message, `${rowSpan(message.rows)} could not be queued. Please create them again.`);
};

/** The rows of the chunk whose account item exists (strongly consistent reads of the project's partition). */
async function storedRows(deps: ChunkDeps, message: BulkChunkMessage): Promise<Set<number>> {
  const stored = new Set<number>();
  if (!message.rows.length) return stored;
  const wanted = new Set(message.rows.map((r) => r.row));
  const first = keys.account(message.userId, message.projectId, Math.min(...wanted)).SK;
  const last = keys.account(message.userId, message.projectId, Math.max(...wanted)).SK;
  for (const partition of keys.accountPartitions(message.userId, message.projectId, message.shards ?? 1)) {
    const input = {
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': partition, ':first': first, ':last': last },
      ProjectionExpression: 'SK',
      ConsistentRead: true,
    };
    for (const item of await queryItems(deps.db, input)) {
      const row = Number(String(item.SK).slice('ACCOUNT#'.length));
      if (wanted.has(row)) stored.add(row);
    }
  }
  return stored;
}

/**
 * A job that cannot go on: status 'failed' with its reason, the user's lock released at once (the
 * user may create again), an activity entry, and this chunk's rows recorded as failed. Every step
 * can run again (redelivery): a failed job's later chunks release the lock again and record
 * themselves as failed.
 */
async function failJob(deps: ChunkDeps, message: BulkChunkMessage, reason: string, counts: ChunkCounts = { done: 0, failedRows: message.rows }): Promise<void> {
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
      // Only the delivery whose update failed the job gets here: one notification.
      await bulkJobFinished(deps, { userId: message.userId, jobId: message.jobId, projectId: message.projectId, projectName: name, outcome: 'failed', created: Number(job.done ?? 0), failed: Math.max(0, Number(job.total ?? 0) - Number(job.done ?? 0)), reason, at: new Date(now) });
    }
  } catch (error) {
    // Already completed or failed (or unknown): only this chunk's rows are left to record. A job
    // failed by an earlier delivery whose lock release did not happen gives its lock back now
    // (the release is conditional on the owner: repeating it is harmless).
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const job = await readJob(deps, message);
    if (job?.status === 'failed') await releaseLock(deps, message.userId, job);
  }
  await recordChunk(deps, message, counts, reason);
}

/** Gives back the lock the job took, if it still holds it (conditional on the owner: safe to repeat). */
async function releaseLock(deps: ChunkDeps, userId: string, job: Record<string, unknown>): Promise<void> {
  if (typeof job.lockOwner === 'string') await deps.store.release(userId, { projects: 0, accounts: 0 }, job.lockOwner);
}

/**
 * The usernames outside the job's project do not change while the job holds the user's lock, so a
 * worker container reads them once per job (in its unbroken tenure of the lock) and reuses them
 * for every chunk it processes (all of them when that is cheaper than asking per name). Jobs take
 * turns on the queue (releaseNext), so a container sees chunks of a few jobs in turn: it keeps the
 * last JOBS_CACHED jobs' sets instead of reading one again each time the turn comes back to it.
 */
const takenByJob = new Map<string, Promise<Set<string>>>();
function takenForJob(store: BulkStore, message: BulkChunkMessage): Promise<Set<string>> {
  if (message.existingAccounts === 0) return Promise.resolve(new Set());
  const readAll = message.existingAccounts <= FULL_READ_LIMIT;
  if (!readAll) return store.takenUsernames(message.userId, [...new Set(message.rows.map((r) => r.base))], message.existingAccounts, ownNames(message));
  let taken = takenByJob.get(message.jobId);
  if (!taken) {
    taken = store.takenUsernames(message.userId, [], message.existingAccounts, ownNames(message), { readAll: true });
    taken.catch(() => takenByJob.delete(message.jobId));
    // The oldest first (a Map keeps insertion order): a few sets of at most 250,000 names each.
    while (takenByJob.size >= JOBS_CACHED) takenByJob.delete(takenByJob.keys().next().value!);
    takenByJob.set(message.jobId, taken);
  }
  return taken;
}
/** Jobs whose usernames a worker container keeps: about the jobs sharing the queue at once. */
const JOBS_CACHED = 4;
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

interface ChunkCounts {
  done: number;
  /** The chunk's rows that have no account and never will: recorded on the chunk item. */
  failedRows: readonly BulkChunkMessage['rows'][number][];
}

/**
 * Records the chunk, the job's progress and the project's count in one transaction, then checks
 * whether the job is complete. Several workers record chunks of one job at once: a transaction
 * cancelled by TransactionConflict (another one held the job item) is run again here, with full
 * jitter, instead of failing the delivery; a failed condition on the marker means "already
 * recorded" and is told apart from it by its cancellation reason.
 */
async function recordChunk(deps: ChunkDeps, message: BulkChunkMessage, counts: ChunkCounts, reason?: string, options: { released?: boolean } = {}) {
  const marker = keys.bulkJobChunk(message.userId, message.jobId, message.chunk);
  const failed = counts.failedRows.length;
  // The analytics counters are added to in the marker's transaction: a redelivered chunk adds nothing.
  const timeZone = message.timeZone ?? (await userTimeZone(deps.db, deps.tableName, message.userId));
  const counters = counterUpdates(deps.tableName, message.userId, monthOf(deps.now(), timeZone), { accounts: counts.done, rowsSettled: counts.done + failed, rowsFailed: failed });
  try {
    await withRetry('Recording a chunk', deps.retry ?? workerRetry, (e) => isTransactionConflict(e) || isThrottling(e), () => {
      const now = deps.now().toISOString();
      return deps.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: deps.tableName,
                Item: {
                  ...marker,
                  entityType: 'BulkJobChunk',
                  done: counts.done,
                  failed,
                  ...(failed ? { failedRows: counts.failedRows.map(({ row, firstName, lastName, email }) => ({ row, firstName, lastName, email })) } : {}),
                  ...(failed && reason ? { reason } : {}),
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
                ExpressionAttributeValues: { ':done': counts.done, ':failed': failed, ':now': now },
              },
            },
            {
              Update: {
                TableName: deps.tableName,
                Key: keys.project(message.userId, message.projectId),
                UpdateExpression: 'ADD accountCount :done, failedCount :failed SET updatedAt = :now',
                ExpressionAttributeValues: { ':done': counts.done, ':failed': failed, ':now': now },
              },
            },
            ...(failed
              ? [
                  {
                    // Rows that will never exist give their reserved place back (stored ones keep theirs).
                    Update: {
                      TableName: deps.tableName,
                      Key: keys.user(message.userId),
                      UpdateExpression: 'ADD accountCount :released',
                      ExpressionAttributeValues: { ':released': -failed },
                    },
                  },
                ]
              : []),
            ...counters,
          ],
        }),
      );
    });
  } catch (error) {
    if (!isDuplicate(error)) throw error;
  }
  // Released by the caller already (processChunk): only the job's completion is left to check.
  if (options.released) await finishIfComplete(deps, message, readJob(deps, message));
  else await settle(deps, message);
}

/**
 * After a chunk is recorded (by this delivery or an earlier one): release the job's next chunk and
 * end the job if it is complete, at once, from one consistent read of the job. The two are
 * independent: a complete job has no chunk left waiting (each chunk was released before it could
 * be recorded), and a job that is not complete only has its next chunk released.
 */
async function settle(deps: ChunkDeps, message: BulkChunkMessage): Promise<void> {
  const job = readJob(deps, message);
  await Promise.all([releaseNext(deps, message, job), finishIfComplete(deps, message, job)]);
}

/** The chunk's job, strongly consistent. */
const readJob = async (deps: Pick<ChunkDeps, 'db' | 'tableName'>, message: BulkChunkMessage) =>
  (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(message.userId, message.jobId), ConsistentRead: true }))).Item;

/** Whether the job has a chunk `window` after this one (unknown: it may). The job's last chunks release nothing, and read nothing to find that out. */
const hasSuccessor = (job: Record<string, unknown> | undefined, message: BulkChunkMessage): boolean => {
  const chunks = Number(job?.chunks);
  return !message.window || !Number.isInteger(chunks) || message.chunk + message.window < chunks;
};

/**
 * Fair turns on the shared bulk queue: a job keeps at most `window` chunks on it, the others wait
 * in DynamoDB (bulk-jobs.ts). Chunk c, once recorded, releases chunk c + window: one fixed
 * successor, so a redelivered chunk releases nothing new, and a chunk is never left waiting (its
 * item goes only after the queue took it; a delivery that dies in between leaves it for the next
 * delivery of chunk c, which may queue it twice: its marker makes the second one a no-op).
 * The released chunk joins the queue behind the chunks other jobs queued meanwhile.
 * A stopped (failed) job's waiting chunks skip the queue: recorded as not created here, each
 * releasing the next, so done + failed still reaches the total and the reserved places go back.
 */
async function releaseNext(deps: ChunkDeps, message: BulkChunkMessage, jobRead: Promise<Record<string, unknown> | undefined>): Promise<void> {
  if (!message.window) return;
  const next = message.chunk + message.window;
  let key: Record<string, string> = keys.bulkJobWaitingChunk(message.userId, message.jobId, next);
  let { Item: waiting } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true }));
  if (!waiting) {
    // A job started before waiting chunks were spread keeps them in the user's partition.
    key = keys.legacyBulkJobWaitingChunk(message.userId, message.jobId, next);
    ({ Item: waiting } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true })));
  }
  if (!waiting) return; // the job has no such chunk, or it was released already
  const body = gunzipSync(waiting.body as Uint8Array).toString('utf8');
  const nextChunk = bulkChunkMessageSchema.parse(JSON.parse(body));
  const job = await jobRead;
  if (!job) return; // the job is gone (its user was deleted)
  if (job.status === 'failed') {
    await recordChunk(deps, nextChunk, { done: 0, failedRows: nextChunk.rows }, String(job.reason ?? JOB_STOPPED));
  } else {
    if (!deps.bulkQueue) throw new Error(`Chunk ${nextChunk.chunk} of job ${nextChunk.jobId} is due on the bulk queue, but no queue was given`);
    await deps.bulkQueue(body, nextChunk.userId);
  }
  await deps.db.send(new DeleteCommand({ TableName: deps.tableName, Key: key }));
}

/**
 * A job whose chunks are all recorded ends, and every step of its ending can run again: any
 * delivery of any chunk (and the dead-letter worker) calls this, so a step that failed once is
 * done by the next. The lock first (released only by its owner: safe to repeat), so a user who
 * sees the job end can start the next creation at once; then the status (the UI stops polling),
 * then the activity entries (fixed keys: written twice is written once), then the statistics
 * (once: guarded by finalizedAt in the same transaction). Every chunk is recorded by then, so every
 * name of the job is written: the lock guards nothing the ending does.
 */
async function finishIfComplete(deps: ChunkDeps, message: BulkChunkMessage, jobRead: Promise<Record<string, unknown> | undefined>) {
  const jobKey = keys.bulkJob(message.userId, message.jobId);
  const read = () => readJob(deps, message);
  let job = await jobRead;
  if (!job) return;
  const done = Number(job.done ?? 0);
  const failed = Number(job.failedCount ?? 0);
  if (done + failed < Number(job.total)) return;
  await releaseLock(deps, message.userId, job);
  // Every row is handled (created or not): what waits for the accounts may start now.
  await deps.wake?.(message.userId, message.projectId);
  // Stopped by failJob (which wrote its own activity) or finished with nothing created.
  if (job.status === 'failed') return;
  if (job.status !== 'completed') {
    const finished = deps.now().toISOString();
    let endedHere = false;
    try {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: jobKey,
          UpdateExpression: 'SET #status = :status, completedAt = :now, updatedAt = :now',
          ConditionExpression: '#status <> :completed AND #status <> :failed',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': done > 0 ? 'completed' : 'failed', ':now': finished, ':completed': 'completed', ':failed': 'failed' },
        }),
      );
      endedHere = true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // another delivery ended it
    }
    job = await read();
    if (!job) return;
    if (job.status !== 'completed') {
      // Every row was rejected: the job failed, and this delivery failed it (a completed job is
      // notified once its statistics are recorded, below).
      if (endedHere) {
        const name = String(job.projectName ?? message.projectName);
        await bulkJobFinished(deps, { userId: message.userId, jobId: message.jobId, projectId: message.projectId, projectName: name, outcome: 'failed', created: 0, failed, reason: 'No row could be created.', at: new Date(finished) });
      }
      return;
    }
  }
  if (job.finalizedAt === undefined) {
    const name = String(job.projectName ?? message.projectName);
    const at = String(job.completedAt);
    const adding = job.kind === 'add';
    await deps.store.writeAll([
      ...(adding ? [] : [activityItem(message.userId, String(job.createdAt), `${message.jobId}.created`, `Project "${name}" created`)]),
      ...(done ? [activityItem(message.userId, at, `${message.jobId}.done`, `${plural(done, 'account')} ${adding ? 'added to' : 'created in'} "${name}"`)] : []),
      ...(failed ? [activityItem(message.userId, at, `${message.jobId}.failed`, `${plural(failed, 'row')} ${adding ? 'not added to' : 'not created in'} "${name}"`)] : []),
    ]);
    const processingMs = Date.parse(at) - Number(job.startedAt ?? Date.parse(at));
    try {
      await withRetry('Recording job statistics', deps.retry ?? workerRetry, (e) => isTransactionConflict(e) || isThrottling(e), () =>
        deps.db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: deps.tableName,
                  Key: jobKey,
                  UpdateExpression: 'SET finalizedAt = :now',
                  ConditionExpression: 'attribute_not_exists(finalizedAt)',
                  ExpressionAttributeValues: { ':now': deps.now().toISOString() },
                },
              },
              {
                Update: {
                  TableName: deps.tableName,
                  Key: keys.user(message.userId),
                  UpdateExpression: 'ADD processingMs :ms, processedAccounts :n',
                  ExpressionAttributeValues: { ':ms': processingMs, ':n': done },
                },
              },
            ],
          }),
        ),
      );
      // The one delivery that recorded the statistics tells the user (a redelivery gets the same
      // notification id: written twice is written once).
      await bulkJobFinished(deps, { userId: message.userId, jobId: message.jobId, projectId: message.projectId, projectName: name, outcome: 'completed', created: done, failed, at: new Date(at) });
      // People added to a project: its platform and the credential e-mails, started once (this
      // delivery recorded the statistics); what was started, or why not, is kept on the job.
      if (adding && job.followUps && deps.followUps) {
        const started = await deps.followUps(message.userId, message.projectId, job.followUps as AddFollowUps);
        if (Object.keys(started).length) {
          const names: Record<string, string> = {};
          const values: Record<string, unknown> = {};
          const sets = Object.entries(started).map(([key, value], i) => {
            names[`#f${i}`] = key;
            values[`:f${i}`] = value;
            return `#f${i} = :f${i}`;
          });
          await deps.db.send(new UpdateCommand({ TableName: deps.tableName, Key: jobKey, UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values }));
        }
      }
    } catch (error) {
      // Recorded by another delivery in the meantime.
      if (!(error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed')) throw error;
    }
  }
}
