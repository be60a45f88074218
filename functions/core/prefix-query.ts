import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryCount, queryItems } from './query-pages';

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
  return queryItems(db, { TableName: tableName, ...prefixCondition(key), ScanIndexForward: false, ConsistentRead: options.consistent });
}

/** How many items are under a sort-key prefix (counted by DynamoDB, no items sent back). */
export async function countUnder(db: DynamoDBDocumentClient, tableName: string, key: PrefixKey): Promise<number> {
  return queryCount(db, { TableName: tableName, ...prefixCondition(key), ConsistentRead: true });
}
