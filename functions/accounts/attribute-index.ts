import { createHash } from 'node:crypto';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { withStates } from './account-states';
import { accountsByKey } from './search-accounts';

/**
 * The Account Database's Attribute filter (docs/data-model.md, pattern 77): an account's extra
 * columns as index items in its project's `#ATTR` partition, sorted by column, value and row.
 * Written with the accounts (creation, Add people, a job's chunks), moved by an Edit in its
 * transaction, erased with the project (keys.projectPartitions). An account deleted since its
 * entries were written leaves them behind; the reader skips them (the account is not found, or
 * no longer has the value), like the status lists' rows.
 */

/** Values compare without regard to case or surrounding spaces: "sales" finds "Sales". */
export const foldAttributeValue = (value: string): string => value.trim().toLowerCase();

/** The value as a sort-key part: URI-encoded (no '#'), or, when long, a hash of it (a sort key holds 1 KB). */
export function attributeValueKey(value: string): string {
  const folded = foldAttributeValue(value);
  const encoded = encodeURIComponent(folded);
  return encoded.length <= 200 ? encoded : `~${createHash('sha256').update(folded).digest('hex')}`;
}

/** One account's index items (none without extra columns). */
export function attributeIndexItems(userId: string, projectId: string, row: number, attributes: Readonly<Record<string, string>> | undefined): (Record<string, unknown> & { PK: string; SK: string })[] {
  return Object.entries(attributes ?? {})
    .filter(([, value]) => value.trim() !== '')
    .map(([key]) => ({ ...keys.accountAttributeIndex(userId, projectId, key, attributeValueKey(attributes![key]!), row), entityType: 'AccountAttributeIndex', row }));
}

/** What an Edit changes in the index: the entries of values gone or changed to delete, those of new values to put. */
export function attributeIndexChanges(userId: string, projectId: string, row: number, before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>) {
  const beforeItems = attributeIndexItems(userId, projectId, row, before);
  const afterItems = attributeIndexItems(userId, projectId, row, after);
  const afterKeys = new Set(afterItems.map((item) => item.SK));
  const beforeKeys = new Set(beforeItems.map((item) => item.SK));
  return {
    remove: beforeItems.filter((item) => !afterKeys.has(item.SK)).map(({ PK, SK }) => ({ PK, SK })),
    put: afterItems.filter((item) => !beforeKeys.has(item.SK)),
  };
}

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
  const found = await accountsByKey(db, tableName, accountKeys);
  const accounts = accountKeys.map((key) => found.get(`${key.PK}|${key.SK}`)).filter((item): item is Record<string, unknown> => item !== undefined);
  return {
    items: await withStates(db, tableName, target, accounts),
    read: entries.length + found.size,
    more: page.LastEvaluatedKey !== undefined,
    ...(rows.length ? { last: rows[rows.length - 1] } : {}),
  };
}
