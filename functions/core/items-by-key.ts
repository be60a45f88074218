import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isBatchRetryable, requestRetry, UnprocessedItemsError, withRetry, type RetryPolicy } from './dynamo-retry';
import { inLanes } from './lanes';

type Item = Record<string, unknown>;
export interface ItemKey {
  PK: string;
  SK: string;
}

/** How `itemsByKey` names an item in its answer: `<PK>|<SK>`. */
export const itemKey = (key: { PK?: unknown; SK?: unknown }): string => `${String(key.PK)}|${String(key.SK)}`;

/** BatchGetItem takes at most 100 keys a call. */
const KEYS_PER_CALL = 100;

export interface ItemsByKeyOptions {
  /** Strongly consistent reads (a worker deciding from what it reads). */
  consistent?: boolean;
  /** Only these attributes (PK and SK are added: the answer is keyed by them). */
  projection?: { ProjectionExpression: string; ExpressionAttributeNames?: Record<string, string> };
  /** Keys per call, at most 100 (fewer when the projection names many attributes: an expression is at most 4 KB). */
  keysPerCall?: number;
  /** Calls in flight at once (1: one after the other). */
  parallel?: number;
  /** Retries of throttling and of the keys DynamoDB left unprocessed (requestRetry: a request's budget). */
  retry?: RetryPolicy;
  /** What is read, for the error once the retries are spent. */
  what?: string;
}

/**
 * Items by key: the one BatchGetItem reader of the table. Keys are read at most `keysPerCall` a
 * call (a key asked twice is read once: BatchGetItem refuses duplicates); keys DynamoDB leaves
 * unprocessed (a throttled partition) are read again with full jitter within the retry budget.
 * The answer maps `itemKey(key)` to the item; a key with no item is absent.
 */
export async function itemsByKey(db: DynamoDBDocumentClient, tableName: string, itemKeys: readonly ItemKey[], options: ItemsByKeyOptions = {}): Promise<Map<string, Item>> {
  const distinct = [...new Map(itemKeys.map((key) => [itemKey(key), { PK: key.PK, SK: key.SK }])).values()];
  const size = Math.max(1, Math.min(KEYS_PER_CALL, options.keysPerCall ?? KEYS_PER_CALL));
  const batches: ItemKey[][] = [];
  for (let i = 0; i < distinct.length; i += size) batches.push(distinct.slice(i, i + size));
  const projection = options.projection
    ? {
        ProjectionExpression: `#ibkPK, #ibkSK, ${options.projection.ProjectionExpression}`,
        ExpressionAttributeNames: { ...options.projection.ExpressionAttributeNames, '#ibkPK': 'PK', '#ibkSK': 'SK' },
      }
    : {};
  const found = new Map<string, Item>();
  await inLanes(batches, Math.max(1, options.parallel ?? 1), async (batch) => {
    let pending: Item[] = batch.map((key) => ({ PK: key.PK, SK: key.SK }));
    await withRetry(options.what ?? 'Reading items by key', options.retry ?? requestRetry, isBatchRetryable, async () => {
      const { Responses, UnprocessedKeys } = await db.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ...projection, ...(options.consistent ? { ConsistentRead: true } : {}) } } }),
      );
      for (const item of Responses?.[tableName] ?? []) found.set(itemKey(item), item);
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
      if (pending.length) throw new UnprocessedItemsError(pending.length);
    });
  });
  return found;
}
