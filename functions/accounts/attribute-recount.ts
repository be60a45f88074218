import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
import { logger } from '../core/logger';
import type { AttributeRecountMessage, ProvisioningQueue } from '../provisioning/provisioning-message';
import { attributeValueKey } from './attribute-index-items';
import { itemKey, itemsByKey } from '../core/items-by-key';

/**
 * The recount of a project's Attribute filter counters (docs/data-model.md, "Counts"): for a
 * project older than its counters (`attributeCountsKept` absent), whose counters never counted
 * the accounts it had before them, each counter is brought to the number of the project's
 * accounts holding its value, once, while the writers go on; then the project is marked
 * `attributeCountsKept` and its Attribute filter's count is exact.
 *
 * Why a correction is enough: every writer since the counters moves them by what it changes
 * (attribute-counts.ts), so a counter is off by a fixed amount (the accounts that held the value
 * before the counters, never counted) that no later write changes. The recount measures it once
 * per value: the counter read (consistent), then the value's index entries and their accounts
 * (consistent; an entry whose account is gone or holds another value is not counted), then one
 * `ADD n <truth − read>` conditional on the counter's `moves` (every writer adds 1 to it) being
 * what it read, and on no import of the user writing (its lock free or lapsed: a chunk stores its
 * accounts and entries before it counts them, under the lock). A write between the two reads
 * fails the condition and the value is measured again on the next step. The recount's id joins
 * the counter's `counted` set with it, so a redelivered step passes the value.
 *
 * The work: the project's `#ATTR` partition walked in key order (the entries, value by value,
 * then the counters, `~COUNT#…`, so a value none of whose accounts is left is recounted too),
 * STEP_ITEMS items a step; `attributeRecount` on the project item (`id`, `cursor`, `at`) says
 * where it is. Each step is a message on the provisioning queue (`attribute-recount`), which
 * queues the next one with a delay (paced: one step at a time per project); a step that finds
 * the recount taken over, done, or the project gone does nothing.
 */

/** Items of the `#ATTR` partition one step walks at most (its values each measured whole). */
export const STEP_ITEMS = 200;
/** A recount that made no step for this long is taken over by the next start (its message was lost). */
export const RECOUNT_STALE_MS = 10 * 60_000;

type Deps = { db: DynamoDBDocumentClient; tableName: string; now?: () => Date };

export type RecountStep = 'done' | 'more' | 'wait' | 'gone';

/**
 * Starts a project's recount once: the project item marked (condition: not counted exactly yet,
 * and no recount under way that moved in the last RECOUNT_STALE_MS). Answers the recount's id, or
 * undefined when there is nothing to start; the caller queues its first step.
 */
export async function startAttributeRecount(deps: Deps, userId: string, projectId: string): Promise<string | undefined> {
  const now = (deps.now?.() ?? new Date()).getTime();
  const id = randomUUID();
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.project(userId, projectId),
        UpdateExpression: 'SET attributeRecount = :recount',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(attributeCountsKept) AND (attribute_not_exists(attributeRecount) OR attributeRecount.#at < :stale)',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':recount': { id, at: now }, ':stale': now - RECOUNT_STALE_MS },
      }),
    );
    return id;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

const valueOf = (sk: string): { key: string; valueKey: string } | undefined => {
  const parts = sk.startsWith('~COUNT#') ? sk.slice('~COUNT#'.length).split('#') : sk.split('#');
  return parts.length >= 2 && parts[0] && parts[1] ? { key: parts[0], valueKey: parts[1] } : undefined;
};

/** One step of the recount `recountId` of a project: up to STEP_ITEMS items of its partition, each value met measured and corrected. */
export async function attributeRecountStep(deps: Deps, userId: string, projectId: string, recountId: string): Promise<RecountStep> {
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
  const recount = project?.attributeRecount as { id?: string; cursor?: string } | undefined;
  if (!project || project.entityType !== 'Project' || project.attributeCountsKept === true || recount?.id !== recountId) return 'gone';
  const shards = Math.max(1, Number(project.accountShards ?? 1));
  const { PK } = keys.accountAttributeCount(userId, projectId, 'k', 'v');
  const page = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: recount.cursor ? 'PK = :pk AND SK > :after' : 'PK = :pk',
      ExpressionAttributeValues: { ':pk': PK, ...(recount.cursor ? { ':after': recount.cursor } : {}) },
      ProjectionExpression: 'SK',
      ConsistentRead: true,
      Limit: STEP_ITEMS,
    }),
  );
  const items = page.Items ?? [];
  const values = new Map<string, { key: string; valueKey: string }>();
  for (const item of items) {
    const value = valueOf(String(item.SK));
    if (value) values.set(`${value.key}#${value.valueKey}`, value);
  }
  for (const value of values.values()) {
    if ((await recountValue(deps, userId, projectId, shards, recountId, value)) === 'wait') return 'wait';
  }
  const done = page.LastEvaluatedKey === undefined;
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.project(userId, projectId),
        UpdateExpression: done ? 'SET attributeCountsKept = :kept REMOVE attributeRecount' : 'SET attributeRecount.#cursor = :cursor, attributeRecount.#at = :at',
        // From where this step read: a second delivery of the same step (a copy) that comes later finds it moved and ends.
        ConditionExpression: `attributeRecount.#id = :id AND ${recount.cursor === undefined ? 'attribute_not_exists(attributeRecount.#cursor)' : 'attributeRecount.#cursor = :read'}`,
        ExpressionAttributeNames: { '#id': 'id', '#cursor': 'cursor', ...(done ? {} : { '#at': 'at' }) },
        ExpressionAttributeValues: {
          ':id': recountId,
          ...(recount.cursor === undefined ? {} : { ':read': recount.cursor }),
          ...(done ? { ':kept': true } : { ':cursor': String(items[items.length - 1]!.SK), ':at': (deps.now?.() ?? new Date()).getTime() }),
        },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return 'gone';
    throw error;
  }
  return done ? 'done' : 'more';
}

/** One value measured and its counter corrected ('wait': a write or an import came between, measure it again later). */
async function recountValue(deps: Deps, userId: string, projectId: string, shards: number, recountId: string, value: { key: string; valueKey: string }): Promise<'counted' | 'wait'> {
  const counterKey = keys.accountAttributeCount(userId, projectId, value.key, value.valueKey);
  const { Item: counter } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: counterKey, ConsistentRead: true }));
  const counted = counter?.counted instanceof Set ? counter.counted : new Set<string>();
  if (counted.has(recountId)) return 'counted';
  const user = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ProjectionExpression: 'bulkLock', ConsistentRead: true }));
  const now = (deps.now?.() ?? new Date()).getTime();
  if (Number((user.Item?.bulkLock as { until?: number } | undefined)?.until ?? 0) >= now) return 'wait';
  // The value's entries, then their accounts: those still there and holding the value are its truth.
  const { PK, SKPrefix } = keys.accountAttributeIndexOf(userId, projectId, value.key, value.valueKey);
  const rows = (
    await queryItems(deps.db, { TableName: deps.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix }, ProjectionExpression: '#row', ExpressionAttributeNames: { '#row': 'row' }, ConsistentRead: true })
  ).map((entry) => Number(entry.row));
  const accountKeys = rows.map((row) => keys.account(userId, projectId, row, shards));
  const accounts = await itemsByKey(deps.db, deps.tableName, accountKeys);
  let truth = 0;
  for (const key of accountKeys) {
    const account = accounts.get(itemKey(key));
    const held = (account?.attributes as Record<string, string> | undefined)?.[value.key];
    if (account?.entityType === 'Account' && held !== undefined && held.trim() !== '' && attributeValueKey(held) === value.valueKey) truth++;
  }
  const read = Number(counter?.n ?? 0);
  const moves = counter?.moves;
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: deps.tableName,
              Key: counterKey,
              UpdateExpression: 'ADD n :by, counted :once SET entityType = :type',
              ConditionExpression: `${moves === undefined ? 'attribute_not_exists(moves)' : 'moves = :moves'} AND (attribute_not_exists(counted) OR NOT contains(counted, :id))`,
              ExpressionAttributeValues: { ':by': truth - read, ':once': new Set([recountId]), ':id': recountId, ':type': 'AccountAttributeCount', ...(moves === undefined ? {} : { ':moves': moves }) },
            },
          },
          {
            ConditionCheck: {
              TableName: deps.tableName,
              Key: keys.user(userId),
              ConditionExpression: 'attribute_not_exists(bulkLock) OR bulkLock.#until < :now',
              ExpressionAttributeNames: { '#until': 'until' },
              ExpressionAttributeValues: { ':now': (deps.now?.() ?? new Date()).getTime() },
            },
          },
          { ConditionCheck: { TableName: deps.tableName, Key: keys.project(userId, projectId), ConditionExpression: 'attributeRecount.#id = :id', ExpressionAttributeNames: { '#id': 'id' }, ExpressionAttributeValues: { ':id': recountId } } },
        ],
      }),
    );
    return 'counted';
  } catch (error) {
    if (error instanceof TransactionCanceledException) return 'wait';
    throw error;
  }
}

/** Seconds between two steps of one recount (paced: one step at a time per project), and after a 'wait'. */
export const RECOUNT_NEXT_SECONDS = 1;
export const RECOUNT_WAIT_SECONDS = 30;

/** The provisioning worker's handling of a step message: the step, then the next step queued (done or taken over: nothing). */
export const attributeRecountWorker = (deps: Deps & { queue: ProvisioningQueue }) => async (message: AttributeRecountMessage) => {
  const step = await attributeRecountStep(deps, message.userId, message.projectId, message.recountId);
  if (step === 'more' || step === 'wait') await deps.queue.send([message], step === 'more' ? RECOUNT_NEXT_SECONDS : RECOUNT_WAIT_SECONDS);
};

/**
 * The Account Database's Attribute filter met a project older than its counters (read from its
 * item: no `attributeCountsKept`, no recount under way or one stalled): its recount is started and
 * its first step queued. Never fails the request that asked (the count stays 'Up to N' meanwhile).
 */
export const attributeRecountStarter = (deps: Deps & { queue: ProvisioningQueue }) => async (userId: string, projects: readonly Record<string, unknown>[]) => {
  const now = (deps.now?.() ?? new Date()).getTime();
  const due = projects.filter((project) => project.attributeCountsKept !== true && !(Number((project.attributeRecount as { at?: number } | undefined)?.at ?? 0) >= now - RECOUNT_STALE_MS));
  for (const project of due) {
    try {
      const recountId = await startAttributeRecount(deps, userId, String(project.id));
      if (recountId) await deps.queue.send([{ type: 'attribute-recount', userId, projectId: String(project.id), recountId }]);
    } catch (error) {
      logger.error('Could not start the recount of a project\'s attribute counters', { userId, projectId: String(project.id), error: error instanceof Error ? error.message : String(error) });
    }
  }
};
