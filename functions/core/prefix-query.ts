import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A partition and a sort-key prefix, as keys.projectsOf / integrationsOf / emailTemplatesOf build them. */
export interface PrefixKey {
  PK: string;
  SKPrefix: string;
}

const prefixCondition = (key: PrefixKey) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
  ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix },
});

/** Every item under a sort-key prefix, newest first (ids are time-ordered), all pages. */
export async function queryAllUnder(
  db: DynamoDBDocumentClient,
  tableName: string,
  key: PrefixKey,
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({ TableName: tableName, ...prefixCondition(key), ScanIndexForward: false, ConsistentRead: options.consistent, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** How many items are under a sort-key prefix (counted by DynamoDB, no items sent back). */
export async function countUnder(db: DynamoDBDocumentClient, tableName: string, key: PrefixKey): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ TableName: tableName, ...prefixCondition(key), Select: 'COUNT', ConsistentRead: true, ExclusiveStartKey: start }));
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}
