import {
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { planLimits, UNLIMITED } from '../../shared/plans';
import { ConflictError, NotFoundError, PlanLimitError } from '../core/errors';
import { keys } from '../core/keys';
import { ACCOUNT_LIMIT_MESSAGE, effectivePlan, PROJECT_LIMIT_MESSAGE, type Usage } from '../usage/plan-usage';

export type Item = Record<string, unknown> & { PK: string; SK: string };

export interface BulkStore {
  usage(userId: string): Promise<Usage>;
  /**
   * Atomically adds one project and `accounts` accounts to the user's counters, only if the plan
   * still allows it and no other bulk creation holds the user's username lock; takes the lock.
   */
  reserve(userId: string, usage: Pick<Usage, 'plan' | 'stored'>, accounts: number, lock: { owner: string; until: number; now: number }): Promise<void>;
  /** Gives back counters (rows that were not created) and, when owner is set, the lock. */
  release(userId: string, change: { projects: number; accounts: number }, lockOwner?: string): Promise<void>;
  /** A creation finished: record its processing time and give the lock back. */
  finish(userId: string, done: { lockOwner: string; accounts: number; processingMs: number }): Promise<void>;
  /** Usernames of the user's accounts that start with any of the bases. */
  takenUsernames(
    userId: string,
    bases: readonly string[],
    accountCount: number,
    excludeProjectId?: string,
    options?: { readAll?: boolean },
  ): Promise<Set<string>>;
  /** Writes items with BatchWriteItem (`parallel` calls at once), retrying unprocessed items with backoff. */
  writeAll(items: readonly Item[], options?: { parallel?: number }): Promise<void>;
}

const LOCK_BUSY = 'Another bulk creation of yours is still running. Try again when it has finished.';

export function dynamoBulkStore(db: DynamoDBDocumentClient, tableName: string): BulkStore {
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

  return {
    usage,

    async reserve(userId, usage, accounts, lock) {
      const limits = planLimits[usage.plan];
      // The plan and status read by usage() must still hold: a webhook in between changes the limits.
      const stored = usage.stored ?? {};
      const conditions = [
        stored.plan === undefined ? 'attribute_not_exists(subscriptionPlan)' : 'subscriptionPlan = :plan',
        stored.status === undefined ? 'attribute_not_exists(subscriptionStatus)' : 'subscriptionStatus = :status',
        '(attribute_not_exists(bulkLock) OR bulkLock.#until < :now)',
      ];
      const values: Record<string, unknown> = { ':now': lock.now, ':one': 1, ':n': accounts, ':lock': { owner: lock.owner, until: lock.until } };
      if (stored.plan !== undefined) values[':plan'] = stored.plan;
      if (stored.status !== undefined) values[':status'] = stored.status;
      if (limits.projects !== UNLIMITED) {
        conditions.push('(attribute_not_exists(projectCount) OR projectCount < :maxProjects)');
        values[':maxProjects'] = limits.projects;
      }
      if (limits.accountsTotal !== UNLIMITED) {
        conditions.push('(attribute_not_exists(accountCount) OR accountCount <= :maxBefore)');
        values[':maxBefore'] = limits.accountsTotal - accounts;
      }
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'ADD projectCount :one, accountCount :n SET bulkLock = :lock',
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        if (!error.Item) throw new NotFoundError('User not found');
        // Say which condition failed, from the item as it was.
        const old = (error.Item ?? {}) as Record<string, { N?: string; S?: string; M?: Record<string, { N?: string }> }>;
        const projects = Number(old.projectCount?.N ?? 0);
        const used = Number(old.accountCount?.N ?? 0);
        const lockUntil = Number(old.bulkLock?.M?.until?.N ?? 0);
        if (old.subscriptionPlan?.S !== stored.plan || old.subscriptionStatus?.S !== stored.status) throw new ConflictError('Your plan changed while this request ran. Please try again.');
        if (limits.projects !== UNLIMITED && projects >= limits.projects) throw new PlanLimitError(PROJECT_LIMIT_MESSAGE, { limit: 'projects', max: limits.projects, used: projects });
        if (limits.accountsTotal !== UNLIMITED && used + accounts > limits.accountsTotal) {
          throw new PlanLimitError(ACCOUNT_LIMIT_MESSAGE, { limit: 'accountsTotal', max: limits.accountsTotal, used, requested: accounts });
        }
        if (lockUntil >= lock.now) throw new ConflictError(LOCK_BUSY);
        throw error;
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

    async finish(userId, done) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'ADD processingMs :ms, processedAccounts :n REMOVE bulkLock',
            ConditionExpression: 'bulkLock.#owner = :owner',
            ExpressionAttributeNames: { '#owner': 'owner' },
            ExpressionAttributeValues: { ':ms': done.processingMs, ':n': done.accounts, ':owner': done.lockOwner },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // The lock had expired and was taken over: keep the statistics, leave the lock alone.
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'ADD processingMs :ms, processedAccounts :n',
            ExpressionAttributeValues: { ':ms': done.processingMs, ':n': done.accounts },
          }),
        );
      }
    },

    async takenUsernames(userId, bases, accountCount, excludeProjectId, options = {}) {
      const taken = new Set<string>();
      if (accountCount === 0 || (bases.length === 0 && !options.readAll)) return taken;
      // Accounts of the project being created do not count: a chunk run twice must see the same names.
      const filter = excludeProjectId ? { FilterExpression: 'projectId <> :project', values: { ':project': excludeProjectId } } : undefined;
      const collect = async (partition: string, prefix?: string) => {
        let start: Record<string, unknown> | undefined;
        do {
          const result = await db.send(
            new QueryCommand({
              TableName: tableName,
              IndexName: 'AccountsByUsername',
              KeyConditionExpression: prefix ? 'GSI4PK = :pk AND begins_with(GSI4SK, :prefix)' : 'GSI4PK = :pk',
              ...(filter ? { FilterExpression: filter.FilterExpression } : {}),
              ExpressionAttributeValues: { ':pk': partition, ...(prefix ? { ':prefix': prefix } : {}), ...filter?.values },
              ProjectionExpression: 'username',
              ExclusiveStartKey: start,
            }),
          );
          for (const item of result.Items ?? []) taken.add(String(item.username));
          start = result.LastEvaluatedKey;
        } while (start);
      };
      const inParallel = async <T>(work: T[], run: (item: T) => Promise<void>) => {
        const queue = [...work];
        await Promise.all(Array.from({ length: 16 }, async () => { for (let next = queue.pop(); next !== undefined; next = queue.pop()) await run(next); }));
      };
      // The cheaper plan: read every username of the user once, or one small query per name.
      if (options.readAll || accountCount <= bases.length * 20) await inParallel(keys.allAccountSearchPartitions(userId), (partition) => collect(partition));
      else await inParallel([...bases], (base) => collect(keys.accountSearchPartition(userId, base), base));
      return taken;
    },

    async writeAll(items, options = {}) {
      const batches: Item[][] = [];
      for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25) as Item[]);
      const writeBatch = async (batch: Item[]) => {
        let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
        for (let attempt = 0; pending.length; attempt++) {
          if (attempt > 8) throw new Error(`${pending.length} items stayed unprocessed after ${attempt} attempts`);
          if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
          const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
          pending = (UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined) ?? [];
        }
      };
      const queue = batches.reverse();
      await Promise.all(
        Array.from({ length: Math.min(options.parallel ?? 8, queue.length) }, async () => {
          for (let batch = queue.pop(); batch; batch = queue.pop()) await writeBatch(batch);
        }),
      );
    },
  };
}
