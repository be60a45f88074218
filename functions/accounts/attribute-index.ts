import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { withStates } from './account-states';
import { itemKey, itemsByKey } from '../core/items-by-key';
import { attributeValueKey } from './attribute-index-items';

export { attributeIndexChanges, attributeIndexItems, attributeValueKey, foldAttributeValue } from './attribute-index-items';

/**
 * The Account Database's Attribute filter (docs/data-model.md, pattern 77): an account's extra
 * columns as index items in its project's `#ATTR` partition, sorted by column, value and row.
 * Written with the accounts (creation, Add people, a job's chunks), moved by an Edit in its
 * transaction, erased with the project (keys.projectPartitions). An account deleted since its
 * entries were written leaves them behind; the reader skips them (the account is not found, or
 * no longer has the value), like the status lists' rows.
 */

/**
 * Up to `n` accounts of one project whose column `key` holds `value`, in row order from `after`
 * (the same shape as browse-accounts' projectRows): one Query of the index entries, then those
 * accounts by key with their states. Entries whose account is gone are counted as read and left out.
 */
export async function attributeProjectRows(
  db: DynamoDBDocumentClient,
  tableName: string,
  target: { userId: string; projectId: string; shards: number },
  attribute: { key: string; value: string },
  n: number,
  after: number | undefined,
  descending: boolean,
): Promise<{ items: Record<string, unknown>[]; read: number; more: boolean; last?: number }> {
  const { PK, SKPrefix } = keys.accountAttributeIndexOf(target.userId, target.projectId, attribute.key, attributeValueKey(attribute.value));
  const rowSk = (row: number) => keys.accountAttributeIndex(target.userId, target.projectId, attribute.key, attributeValueKey(attribute.value), Math.max(0, row)).SK;
  const low = !descending && after !== undefined ? rowSk(after + 1) : SKPrefix;
  const high = descending && after !== undefined ? rowSk(after - 1) : `${SKPrefix}~`;
  if (descending && after !== undefined && after <= 1) return { items: [], read: 0, more: false };
  const page = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
      ExpressionAttributeValues: { ':pk': PK, ':low': low, ':high': high },
      ScanIndexForward: !descending,
      Limit: Math.max(1, n),
    }),
  );
  const entries = page.Items ?? [];
  const rows = entries.map((entry) => Number(entry.row));
  const accountKeys = rows.map((row) => keys.account(target.userId, target.projectId, row, target.shards));
  const found = await itemsByKey(db, tableName, accountKeys);
  const accounts = accountKeys.map((key) => found.get(itemKey(key))).filter((item): item is Record<string, unknown> => item !== undefined);
  return {
    items: await withStates(db, tableName, target, accounts),
    read: entries.length + found.size,
    more: page.LastEvaluatedKey !== undefined,
    ...(rows.length ? { last: rows[rows.length - 1] } : {}),
  };
}

/**
 * How many accounts of each project hold column `key` = `value` (any case), from the counters
 * (functions/accounts/attribute-counts.ts): one BatchGetItem of a counter per project, for the
 * projects that keep them (`attributeCountsKept`); a project with no counter of the value has none.
 */
export async function attributeValueCounts(db: DynamoDBDocumentClient, tableName: string, userId: string, projectIds: readonly string[], attribute: { key: string; value: string }): Promise<Map<string, number>> {
  const valueKey = attributeValueKey(attribute.value);
  const counterKeys = projectIds.map((projectId) => keys.accountAttributeCount(userId, projectId, attribute.key, valueKey));
  const found = await itemsByKey(db, tableName, counterKeys);
  return new Map(projectIds.map((projectId, n) => [projectId, Math.max(0, Number(found.get(itemKey(counterKeys[n]!))?.n ?? 0))]));
}
