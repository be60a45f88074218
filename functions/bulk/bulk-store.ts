import {
  BatchWriteCommand,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { RetryLaterError } from '../core/retry-later';
import { countAttributesOrGiveUp } from '../accounts/attribute-counts';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { planLimits, UNLIMITED } from '../../shared/plans';
import { ConflictError, GoneError, NotFoundError, PlanLimitError } from '../core/errors';
import { DELETION_REQUESTED_AT } from '../core/account-gate';
import { isBatchRetryable, isThrottling, isTransactionConflict, requestRetry, UnprocessedItemsError, withRetry, type RetryPolicy } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { queryAllUnder } from '../core/prefix-query';
import { queryItems, queryPages } from '../core/query-pages';
import type { WaitingChunksWriter } from './bulk-jobs';
import { maxAccountRow, shardsOf } from '../accounts/account-partitions';
import { counterUpdates, type CounterChange } from '../analytics/counters';
import { ACCOUNT_LIMIT_MESSAGE, effectivePlan, PROJECT_LIMIT_MESSAGE, projectFullMessage, type Usage } from '../usage/plan-usage';
import { PROJECT_COMPLETED_MESSAGE, PROJECT_EXPIRED_MESSAGE } from '../../shared/schemas/project';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';

export type Item = Record<string, unknown> & { PK: string; SK: string };

export interface BulkStore {
  usage(userId: string): Promise<Usage>;
  /**
   * Atomically adds one project and `accounts` accounts to the user's counters, only if the plan
   * still allows it and no other bulk creation holds the user's username lock; takes the lock.
   */
  reserve(userId: string, usage: Pick<Usage, 'plan' | 'stored'>, accounts: number, lock: { owner: string; until: number; now: number }, options?: { newProject?: boolean }): Promise<{ accountsBefore: number }>;
  /**
   * People added to an existing project (under the user's lock, after reserve without a new
   * project): reserves `rows` row numbers after the project's last (its lastRow counter, started
   * from `rowBase` when it has none), only while the project exists, is not completed and, with
   * `accountsPerProject` (the plan's limit), keeps within it with the new accounts. Returns the first reserved row.
   */
  /** The project item, strongly consistent (undefined: none of this user's). */
  project(userId: string, projectId: string): Promise<Record<string, unknown> | undefined>;
  /**
   * Where the row numbers of people added to a project without a lastRow counter start: after its
   * highest account row. Refused (409) while the project's creation job still runs.
   */
  rowBase(userId: string, project: Record<string, unknown>): Promise<number>;
  reserveRows(userId: string, projectId: string, rows: number, options: { rowBase: number; accountsPerProject?: number; at: string }): Promise<{ firstRow: number }>;
  /** Gives back counters (rows that were not created) and, when owner is set, the lock. */
  release(userId: string, change: { projects: number; accounts: number }, lockOwner?: string): Promise<void>;
  /**
   * A creation finished: record its processing time, count it on the analytics counters (in the
   * same transaction: counted exactly when it is recorded) and give the lock back.
   */
  finish(userId: string, done: { lockOwner: string; accounts: number; processingMs: number; counters?: { month: string; change: CounterChange }; project?: { projectId: string; accounts: number; failed: number; at: string; attributeKeys?: Set<string> } }): Promise<void>;
  /**
   * Usernames of the user's accounts that start with any of the bases: strongly consistent reads
   * of the base table's username items (never an index: see claimUsernames).
   */
  takenUsernames(
    userId: string,
    bases: readonly string[],
    accountCount: number,
    /** The names of the project being created (its id), or of the job adding people to a project ({ jobId }), do not count. */
    exclude?: string | { jobId: string },
    options?: { readAll?: boolean },
  ): Promise<Set<string>>;
  /**
   * Once per user (under the lock, before any name is read): accounts stored before username
   * items existed get theirs, read from the base table (every project's partitions, consistent),
   * so their names count as taken. Marks the user item `usernameItems` when done.
   */
  adoptStoredUsernames(userId: string, accountCount: number): Promise<void>;
  /**
   * A job's chunk, before it writes usernames without conditions (process-chunk.ts): the user's
   * lock must be this job's. Extends it to `until` while it still is the owner's; takes it again
   * when it lapsed and nobody else holds it; throws LockHeldError when another creation holds it.
   * Returns when this tenure of the lock began (`since`: the reserve's `now`, or the moment it was
   * taken back): a tenure that began at the job's start has never left the job.
   */
  renewLock(userId: string, owner: string, lock: { now: number; until: number }): Promise<{ since: number | undefined }>;
  /**
   * Gives each account its username for good: conditional writes on the base table's username
   * items. Throws UsernameTakenError (nothing of the groups that held them written) when another
   * account has one already: the only guard that does not depend on the lock or on timing.
   */
  claimUsernames(userId: string, claims: readonly UsernameClaim[]): Promise<void>;
  /**
   * Writes items with BatchWriteItem (`parallel` calls at once, at most MAX_WRITE_PARALLEL),
   * retrying throttling and unprocessed items with full jitter inside the store's time budget.
   */
  writeAll(items: readonly Item[], options?: { parallel?: number }): Promise<void>;
  /**
   * Accounts written at once (not by a job's chunk) are stored: their extra column values counted
   * once under `once` (functions/accounts/attribute-counts.ts); a failure takes the project's
   * exact-count mark off instead of failing the request.
   */
  countAttributes(userId: string, projectId: string, rows: readonly { row: number; attributes?: Readonly<Record<string, string>> }[], once: string): Promise<void>;
}

const STILL_CREATING = 'The accounts of this project are still being created. Add people once that has finished.';
const LOCK_BUSY = 'Another bulk creation of yours is still running. Try again when it has finished.';

export function dynamoBulkStore(db: DynamoDBDocumentClient, tableName: string, retry: RetryPolicy = requestRetry): BulkStore {
  const usage = async (userId: string): Promise<Usage> => {
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.user(userId),
        ConsistentRead: true,
        ProjectionExpression: 'subscriptionPlan, subscriptionStatus, projectCount, accountCount',
      }),
    );
    if (!Item) throw new NotFoundError('User not found');
    const stored = {
      ...(typeof Item.subscriptionPlan === 'string' ? { plan: Item.subscriptionPlan } : {}),
      ...(typeof Item.subscriptionStatus === 'string' ? { status: Item.subscriptionStatus } : {}),
    };
    return {
      plan: effectivePlan(stored.plan, stored.status),
      projectCount: Number(Item.projectCount ?? 0),
      accountCount: Number(Item.accountCount ?? 0),
      stored,
    };
  };

  /** BatchWriteItem requests, 25 a call, `parallel` calls at once. */
  const batchWrite = async (requests: readonly Record<string, unknown>[], parallel: number) => {
    const batches: Record<string, unknown>[][] = [];
    for (let i = 0; i < requests.length; i += 25) batches.push(requests.slice(i, i + 25));
    await inBoundedParallel(batches, Math.min(parallel, MAX_WRITE_PARALLEL), async (batch) => {
      let pending = batch;
      // Unprocessed items (a throttled partition) come back as a smaller batch: full jitter,
      // inside the time budget, like a throttling error.
      await withRetry(`Writing ${batch.length} items`, retry, isBatchRetryable, async () => {
        const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
        pending = (UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined) ?? [];
        if (pending.length) throw new UnprocessedItemsError(pending.length);
      });
    });
  };
  const writeAll: BulkStore['writeAll'] = (items, options = {}) => batchWrite(items.map((Item) => ({ PutRequest: { Item } })), options.parallel ?? 8);
  const deleteAll = (itemKeys: readonly { PK: string; SK: string }[]) => batchWrite(itemKeys.map((Key) => ({ DeleteRequest: { Key } })), 4);

  return {
    usage,

    async reserve(userId, usage, accounts, lock, options = {}) {
      const newProject = options.newProject !== false;
      const limits = planLimits[usage.plan];
      // The plan and status read by usage() must still hold: a webhook in between changes the limits.
      const stored = usage.stored ?? {};
      const conditions = [
        // A user item that is gone (erased) or whose deletion was requested takes no new project:
        // the deletion worker checked the lock before erasing, and would not see this one.
        'attribute_exists(PK)',
        `attribute_not_exists(${DELETION_REQUESTED_AT})`,
        stored.plan === undefined ? 'attribute_not_exists(subscriptionPlan)' : 'subscriptionPlan = :plan',
        stored.status === undefined ? 'attribute_not_exists(subscriptionStatus)' : 'subscriptionStatus = :status',
        '(attribute_not_exists(bulkLock) OR bulkLock.#until < :now)',
      ];
      // `since` tells this tenure of the lock from any later one of the same owner (renewLock).
      const values: Record<string, unknown> = { ':now': lock.now, ':one': newProject ? 1 : 0, ':n': accounts, ':lock': { owner: lock.owner, until: lock.until, since: lock.now } };
      if (stored.plan !== undefined) values[':plan'] = stored.plan;
      if (stored.status !== undefined) values[':status'] = stored.status;
      if (limits.projects !== UNLIMITED && newProject) {
        conditions.push('(attribute_not_exists(projectCount) OR projectCount < :maxProjects)');
        values[':maxProjects'] = limits.projects;
      }
      if (limits.accountsTotal !== UNLIMITED) {
        conditions.push('(attribute_not_exists(accountCount) OR accountCount <= :maxBefore)');
        values[':maxBefore'] = limits.accountsTotal - accounts;
      }
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'ADD projectCount :one, accountCount :n SET bulkLock = :lock',
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            // The count as the lock was taken: one read before it may miss a creation that ended in between.
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return { accountsBefore: Number(Attributes?.accountCount ?? accounts) - accounts };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        if (!error.Item) throw new NotFoundError('User not found');
        if (error.Item[DELETION_REQUESTED_AT] !== undefined) throw new GoneError();
        // Say which condition failed, from the item as it was.
        const old = (error.Item ?? {}) as Record<string, { N?: string; S?: string; M?: Record<string, { N?: string }> }>;
        const projects = Number(old.projectCount?.N ?? 0);
        const used = Number(old.accountCount?.N ?? 0);
        const lockUntil = Number(old.bulkLock?.M?.until?.N ?? 0);
        if (old.subscriptionPlan?.S !== stored.plan || old.subscriptionStatus?.S !== stored.status) throw new ConflictError('Your plan changed while this request ran. Please try again.');
        if (limits.projects !== UNLIMITED && newProject && projects >= limits.projects) throw new PlanLimitError(PROJECT_LIMIT_MESSAGE, { limit: 'projects', max: limits.projects, used: projects });
        if (limits.accountsTotal !== UNLIMITED && used + accounts > limits.accountsTotal) {
          throw new PlanLimitError(ACCOUNT_LIMIT_MESSAGE, { limit: 'accountsTotal', max: limits.accountsTotal, used, requested: accounts });
        }
        if (lockUntil >= lock.now) throw new ConflictError(LOCK_BUSY);
        throw error;
      }
    },

    async project(userId, projectId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
      return Item;
    },

    async rowBase(userId, project) {
      const projectId = String(project.id);
      const { Item: job } = await db.send(new GetCommand({ TableName: tableName, Key: keys.bulkJob(userId, projectId), ConsistentRead: true, ProjectionExpression: '#status', ExpressionAttributeNames: { '#status': 'status' } }));
      if (job && job.status !== 'completed' && job.status !== 'failed') throw new ConflictError(STILL_CREATING);
      return maxAccountRow(db, tableName, userId, projectId, shardsOf(project));
    },

    async reserveRows(userId, projectId, rows, options) {
      // Not while the project is being deleted (its deletion would miss the new accounts).
      // Nor once its expiry started (the sweep sets expiredAt in the transaction that starts it).
      const conditions = ['attribute_exists(PK)', '(attribute_not_exists(#status) OR #status <> :completed)', 'attribute_not_exists(activeProjectDeletion)', 'attribute_not_exists(expiredAt)'];
      const values: Record<string, unknown> = { ':n': rows, ':base': options.rowBase, ':completed': 'completed', ':at': options.at };
      if (options.accountsPerProject !== undefined) {
        conditions.push('(attribute_not_exists(accountCount) OR accountCount <= :maxBefore)');
        values[':maxBefore'] = options.accountsPerProject - rows;
      }
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.project(userId, projectId),
            UpdateExpression: 'SET lastRow = if_not_exists(lastRow, :base) + :n, updatedAt = :at',
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return { firstRow: Number(Attributes?.lastRow) - rows + 1 };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const old = error.Item as Record<string, { N?: string; S?: string }> | undefined;
        if (!old) throw new NotFoundError('Project not found');
        if (old.status?.S === 'completed') throw new ConflictError(PROJECT_COMPLETED_MESSAGE);
        if (old.activeProjectDeletion?.S) throw new ConflictError(PROJECT_BEING_DELETED);
        if (old.expiredAt?.S) throw new ConflictError(PROJECT_EXPIRED_MESSAGE);
        const held = Number(old.accountCount?.N ?? 0);
        const max = options.accountsPerProject ?? 0;
        throw new PlanLimitError(projectFullMessage(max, held, rows), { limit: 'accountsPerProject', max, used: held, requested: rows });
      }
    },

    async release(userId, change, lockOwner) {
      const sets: string[] = [];
      const values: Record<string, unknown> = {};
      if (change.projects || change.accounts) {
        sets.push('ADD projectCount :p, accountCount :a');
        values[':p'] = -change.projects;
        values[':a'] = -change.accounts;
      }
      if (lockOwner) {
        try {
          await db.send(
            new UpdateCommand({
              TableName: tableName,
              Key: keys.user(userId),
              UpdateExpression: `${sets.join(' ')} REMOVE bulkLock`.trim(),
              ConditionExpression: 'bulkLock.#owner = :owner',
              ExpressionAttributeNames: { '#owner': 'owner' },
              ExpressionAttributeValues: { ...values, ':owner': lockOwner },
            }),
          );
          return;
        } catch (error) {
          // The lock expired and someone else holds it now: only give back the counters.
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      }
      if (sets.length) {
        await db.send(new UpdateCommand({ TableName: tableName, Key: keys.user(userId), UpdateExpression: sets.join(' '), ExpressionAttributeValues: values }));
      }
    },

    async renewLock(userId, owner, lock) {
      /** Extends the lock while it is the owner's (even if it had lapsed: nobody else took it, so no name changed meanwhile). */
      const extend = async (): Promise<{ since: number | undefined } | undefined> => {
        try {
          const { Attributes } = await withRetry('Renewing the username lock', retry, isThrottling, () =>
            db.send(
              new UpdateCommand({
                TableName: tableName,
                Key: keys.user(userId),
                UpdateExpression: 'SET bulkLock.#until = :until',
                ConditionExpression: 'bulkLock.#owner = :owner',
                ExpressionAttributeNames: { '#owner': 'owner', '#until': 'until' },
                ExpressionAttributeValues: { ':owner': owner, ':until': lock.until },
                ReturnValues: 'ALL_NEW',
              }),
            ),
          );
          const since = (Attributes?.bulkLock as { since?: unknown } | undefined)?.since;
          return { since: typeof since === 'number' ? since : undefined };
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) return undefined;
          throw error;
        }
      };
      const held = await extend();
      if (held) return held;
      try {
        // Another creation held it meanwhile (and gave it back, or it lapsed): a new tenure.
        await withRetry('Taking the username lock again', retry, isThrottling, () =>
          db.send(
            new UpdateCommand({
              TableName: tableName,
              Key: keys.user(userId),
              UpdateExpression: 'SET bulkLock = :lock',
              ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(bulkLock) OR bulkLock.#until < :now)',
              ExpressionAttributeNames: { '#until': 'until' },
              ExpressionAttributeValues: { ':lock': { owner, until: lock.until, since: lock.now }, ':now': lock.now },
            }),
          ),
        );
        return { since: lock.now };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      // Another chunk of the same job may have taken it back a moment before: then it is the owner's.
      const taken = await extend();
      if (taken) return taken;
      throw new LockHeldError();
    },

    async finish(userId, done) {
      const counters = done.counters ? counterUpdates(tableName, userId, done.counters.month, done.counters.change) : [];
      const record = (withLock: boolean) =>
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: tableName,
                  Key: keys.user(userId),
                  UpdateExpression: `ADD processingMs :ms, processedAccounts :n${withLock ? ' REMOVE bulkLock' : ''}`,
                  ...(withLock ? { ConditionExpression: 'bulkLock.#owner = :owner', ExpressionAttributeNames: { '#owner': 'owner' } } : {}),
                  ExpressionAttributeValues: { ':ms': done.processingMs, ':n': done.accounts, ...(withLock ? { ':owner': done.lockOwner } : {}) },
                },
              },
              // People added to a project: its counts in the same write as the user's.
              ...(done.project
                ? [
                    {
                      Update: {
                        TableName: tableName,
                        Key: keys.project(userId, done.project.projectId),
                        // The keys of the added people's extra columns join the project's (exports know their columns).
                        UpdateExpression: `ADD accountCount :accounts, failedCount :failed${done.project.attributeKeys ? ', attributeKeys :keys' : ''} SET updatedAt = :at`,
                        ExpressionAttributeValues: {
                          ':accounts': done.project.accounts,
                          ':failed': done.project.failed,
                          ':at': done.project.at,
                          ...(done.project.attributeKeys ? { ':keys': done.project.attributeKeys } : {}),
                        },
                      },
                    },
                  ]
                : []),
              ...counters,
            ],
          }),
        );
      try {
        await withRetry('Recording a creation', retry, (e) => isThrottling(e) || isTransactionConflict(e), () => record(true));
      } catch (error) {
        if (!(error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed')) throw error;
        // The lock had expired and was taken over: keep the statistics, leave the lock alone.
        await withRetry('Recording a creation', retry, (e) => isThrottling(e) || isTransactionConflict(e), () => record(false));
      }
    },

    async takenUsernames(userId, bases, accountCount, exclude, options = {}) {
      const taken = new Set<string>();
      if (accountCount === 0 || (bases.length === 0 && !options.readAll)) return taken;
      // Accounts of the project being created do not count: a chunk run twice must see the same names.
      // Name items and username blocks both carry the project. People added to a project: the
      // project's other accounts count, only the adding job's own names (they carry its id) do not.
      const filter =
        typeof exclude === 'string'
          ? { FilterExpression: 'projectId <> :project', values: { ':project': exclude } }
          : exclude
            ? { FilterExpression: 'attribute_not_exists(jobId) OR jobId <> :job', values: { ':job': exclude.jobId } }
            : undefined;
      // The base table's username items and blocks, read strongly consistent: a name claimed a
      // moment ago is seen (an index read could miss it, and hand the same name out twice).
      const collect = async (partition: string, prefix: string | undefined, keep?: (name: string) => boolean) => {
        const pages = queryPages(
          db,
          {
            TableName: tableName,
            KeyConditionExpression: prefix === undefined ? 'PK = :pk' : 'PK = :pk AND begins_with(SK, :prefix)',
            ...(filter ? { FilterExpression: filter.FilterExpression } : {}),
            ExpressionAttributeValues: { ':pk': partition, ...(prefix === undefined ? {} : { ':prefix': prefix }), ...filter?.values },
            ProjectionExpression: 'username, #names',
            ExpressionAttributeNames: { '#names': 'names' },
            ConsistentRead: true,
          },
          { retry, what: 'Reading usernames' },
        );
        for await (const result of pages) {
          for (const item of result.Items ?? []) {
            if (typeof item.username === 'string') taken.add(item.username);
            // A block holds names of any base of its partition: only those of the bases asked for.
            if (Array.isArray(item.names)) for (const name of item.names as unknown[]) if (typeof name === 'string' && (!keep || keep(name))) taken.add(name);
          }
        }
      };
      const inParallel = async <T>(work: T[], run: (item: T) => Promise<void>) => {
        const queue = [...work];
        await Promise.all(Array.from({ length: 16 }, async () => { for (let next = queue.pop(); next !== undefined; next = queue.pop()) await run(next); }));
      };
      // The cheaper plan: read every username of the user once (each partition whole: its name
      // items and its blocks), or one small query per base plus each partition's blocks once.
      if (options.readAll || accountCount <= bases.length * 20) {
        await inParallel(keys.allUsernamePartitions(userId), (partition) => collect(partition, undefined));
        return taken;
      }
      const basesOf = new Map<string, string[]>();
      for (const base of new Set(bases)) {
        const partition = keys.usernamePartition(userId, base);
        basesOf.set(partition, [...(basesOf.get(partition) ?? []), base]);
      }
      const reads: (() => Promise<void>)[] = [];
      for (const [partition, partitionBases] of basesOf) {
        // The prefix rule of the name items' begins_with, applied to the block's names.
        reads.push(() => collect(partition, keys.usernameBlockPrefix, (name) => partitionBases.some((base) => name.startsWith(base))));
        for (const base of partitionBases) reads.push(() => collect(partition, `USERNAME#${base}`));
      }
      await inParallel(reads, (read) => read());
      return taken;
    },

    async adoptStoredUsernames(userId, accountCount) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true, ProjectionExpression: 'usernameItems' }));
      if (Item?.usernameItems) return;
      if (accountCount > 0) {
        // By name: two old accounts may share one (the index race this replaces); one item each name.
        const claims = new Map<string, Item>();
        for (const project of await queryAllUnder(db, tableName, keys.projectsOf(userId), { consistent: true })) {
          const projectId = String(project.id);
          for (const partition of keys.accountPartitions(userId, projectId, shardsOf(project))) {
            const accounts = await queryItems(db, { TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition }, ProjectionExpression: 'id, username', ConsistentRead: true });
            for (const account of accounts) {
              if (typeof account.username === 'string') claims.set(account.username, usernameItem(userId, { username: account.username, projectId, accountId: String(account.id) }));
            }
          }
        }
        // No condition needed: no name of this user has an item yet, and the lock keeps others out.
        await writeAll([...claims.values()]);
      }
      await db.send(new UpdateCommand({ TableName: tableName, Key: keys.user(userId), UpdateExpression: 'SET usernameItems = :one', ExpressionAttributeValues: { ':one': 1 } }));
    },

    async claimUsernames(userId, claims) {
      // A transaction of conditional puts (BatchWriteItem takes no condition): a name another
      // account holds fails the whole group; the same account may claim its name again (redelivery).
      const groups: UsernameClaim[][] = [];
      for (let i = 0; i < claims.length; i += CLAIMS_PER_TRANSACTION) groups.push(claims.slice(i, i + CLAIMS_PER_TRANSACTION));
      const taken: string[] = [];
      const claimed: UsernameClaim[][] = [];
      await inBoundedParallel(groups, CLAIM_PARALLEL, async (group) => {
        try {
          await withRetry('Claiming usernames', retry, (e) => isThrottling(e) || isTransactionConflict(e), () =>
            db.send(
              new TransactWriteCommand({
                TransactItems: group.map((claim) => ({
                  Put: {
                    TableName: tableName,
                    Item: usernameItem(userId, claim),
                    ConditionExpression: 'attribute_not_exists(PK) OR accountId = :account',
                    ExpressionAttributeValues: { ':account': claim.accountId },
                  },
                })),
              }),
            ),
          );
          claimed.push(group);
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
          const reasons = error.CancellationReasons ?? [];
          const lost = group.filter((_, i) => reasons[i]?.Code === 'ConditionalCheckFailed').map((c) => c.username);
          if (!lost.length) throw error;
          taken.push(...lost);
        }
      });
      if (taken.length) {
        // Give back what this call claimed (the groups that succeeded are this call's own), so a
        // creation that fails here leaves no name held by an account that will never exist.
        await deleteAll(claimed.flat().map((claim) => keys.username(userId, claim.username)));
        throw new UsernameTakenError(taken);
      }
    },

    writeAll,

    countAttributes: (userId, projectId, rows, once) => countAttributesOrGiveUp({ db, tableName, retry }, userId, projectId, rows, once),
  };
}

/** One username given to one account: the base-table item that makes it the account's alone. */
export interface UsernameClaim {
  username: string;
  projectId: string;
  accountId: string;
  /** The job adding people to an existing project: its own names are told from the project's others by it. */
  jobId?: string;
}

/** The base-table item that holds one of the user's usernames for one account. */
export const usernameItem = (userId: string, claim: UsernameClaim): Item => ({ ...keys.username(userId, claim.username), entityType: 'Username', ...claim });

/**
 * Size bound of one username block's names (UTF-8 bytes, with a few bytes a name for DynamoDB's
 * list encoding): a quarter of DynamoDB's 400 KB item limit. A 500-row chunk's names in one
 * partition stay far below it (500 names of at most ~80 characters: ~42 KB); a block that would
 * pass it goes on in the next part.
 */
export const USERNAME_BLOCK_MAX_BYTES = 100 * 1024;

/**
 * A job chunk's usernames as username blocks: one item per username partition the names fall in
 * (more parts only past the size bound), holding the names in the chunk's order. The same names
 * give the same items, so a redelivered chunk rewrites its blocks instead of adding any.
 */
export function usernameBlocks(
  userId: string,
  chunk: { projectId: string; jobId: string; chunk: number },
  usernames: readonly string[],
  maxBytes = USERNAME_BLOCK_MAX_BYTES,
): Item[] {
  const byPartition = new Map<string, string[]>();
  for (const name of usernames) {
    const partition = keys.username(userId, name).PK;
    const names = byPartition.get(partition);
    if (names) names.push(name);
    else byPartition.set(partition, [name]);
  }
  const blocks: Item[] = [];
  for (const names of byPartition.values()) {
    let part = 0;
    let current: string[] = [];
    let bytes = 0;
    const close = () => {
      blocks.push({ ...keys.usernameBlock(userId, names[0]!, chunk.jobId, chunk.chunk, part), entityType: 'UsernameBlock', projectId: chunk.projectId, jobId: chunk.jobId, chunk: chunk.chunk, names: current });
      part++;
      current = [];
      bytes = 0;
    };
    for (const name of names) {
      const size = Buffer.byteLength(name) + 4;
      if (size > maxBytes) throw new Error(`A username of ${size} bytes cannot fit a username block`);
      if (bytes + size > maxBytes) close();
      current.push(name);
      bytes += size;
    }
    close();
  }
  return blocks;
}

/** How long a bulk creation that becomes a job may hold the user's username lock before others may take it (each chunk extends it). */
export const LOCK_TTL_MS = 15 * 60 * 1000;

/**
 * Another bulk creation of the user holds the username lock: a chunk of a job that lost it (it
 * lapsed while the job waited) writes nothing and is delivered again later (SQS), when it may
 * take the lock back.
 */
export class LockHeldError extends RetryLaterError {
  constructor() {
    super('Another bulk creation of this user holds the username lock: the chunk waits for it.');
    this.name = 'LockHeldError';
  }
}

/** Names another account claimed first: nothing of the group that held them was written. */
export class UsernameTakenError extends ConflictError {
  constructor(readonly usernames: string[]) {
    super('Some usernames were just given to other accounts. Please try again.', { usernames: usernames.slice(0, 20) });
  }
}


/** A transaction holds at most 100 actions. */
const CLAIMS_PER_TRANSACTION = 100;
const CLAIM_PARALLEL = 4;
/** Calls one writer keeps in flight at most, whatever a caller asks: a bound per invocation. */
export const MAX_WRITE_PARALLEL = 8;

async function inBoundedParallel<T>(work: readonly T[], parallel: number, run: (item: T) => Promise<void>): Promise<void> {
  const queue = [...work].reverse();
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(parallel, queue.length)) }, async () => {
      for (let next = queue.pop(); next !== undefined; next = queue.pop()) await run(next);
    }),
  );
}

/** The waiting chunks' group writer of a job's start (bulk-jobs.ts): one group, one request at a time. */
export const waitingChunksWriter =
  (store: Pick<BulkStore, 'writeAll'>): WaitingChunksWriter =>
  (items) =>
    store.writeAll(items, { parallel: 1 });
