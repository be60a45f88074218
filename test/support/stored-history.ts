import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';

/**
 * Every history entry the table holds for a project's accounts, as the tests count them: the items
 * of one account (an edit: keys.accountHistory) and each account's attribute of the account
 * actions' block items (keys.accountHistoryBlock, functions/accounts/account-history-blocks.ts).
 * `row`: one account's only.
 */
export async function storedHistory(db: DynamoDBDocumentClient, tableName: string, userId: string, projectId: string, row?: number): Promise<{ row: number; kind: string; at: string; detail?: string }[]> {
  const { PK } = keys.accountHistoryOf(userId, projectId, 1);
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PK }, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const found: { row: number; kind: string; at: string; detail?: string }[] = [];
  for (const item of items) {
    if (item.entityType === 'AccountHistory') found.push({ row: Number(String(item.SK).split('#')[0]), kind: String(item.kind), at: String(item.at), ...(typeof item.detail === 'string' ? { detail: item.detail } : {}) });
    else if (item.entityType === 'AccountHistoryBlock') {
      for (const [name, value] of Object.entries(item)) {
        const entry = value as { kind?: unknown; at?: unknown; detail?: unknown };
        if (/^r\d+$/.test(name) && entry && typeof entry.kind === 'string') found.push({ row: Number(name.slice(1)), kind: entry.kind, at: String(entry.at), ...(typeof entry.detail === 'string' ? { detail: entry.detail } : {}) });
      }
    }
  }
  return row === undefined ? found : found.filter((entry) => entry.row === row);
}
