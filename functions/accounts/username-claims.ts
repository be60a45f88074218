import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { queryItems, queryPages } from '../core/query-pages';

/**
 * The user's usernames that start with `base`, read strongly consistent from the base table: the
 * name items (`USERNAME#<base>...`) and the names in the username blocks of large imports in the
 * base's partition. The same reading as the bulk creator's (functions/bulk/bulk-store.ts,
 * takenUsernames) for one base, without that store's writers in this bundle.
 */
export async function takenUsernamesOfBase(db: DynamoDBDocumentClient, tableName: string, userId: string, base: string): Promise<Set<string>> {
  const taken = new Set<string>();
  const partition = keys.usernamePartition(userId, base);
  for (const prefix of [`USERNAME#${base}`, keys.usernameBlockPrefix]) {
    const items = await queryItems(db, {
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
      ProjectionExpression: 'username, #names',
      ExpressionAttributeNames: { '#names': 'names' },
      ConsistentRead: true,
    });
    for (const item of items) {
      if (typeof item.username === 'string') taken.add(item.username);
      if (Array.isArray(item.names)) for (const name of item.names as unknown[]) if (typeof name === 'string' && name.startsWith(base)) taken.add(name);
    }
  }
  return taken;
}

/**
 * The username block of a large import that holds `username` for an account of `projectId`, and
 * the name's position in its list (to remove it, conditional on it still being there); undefined
 * when no block holds it.
 */
export async function blockHolding(db: DynamoDBDocumentClient, tableName: string, userId: string, username: string, projectId: string): Promise<{ key: { PK: string; SK: string }; index: number } | undefined> {
  const partition = keys.username(userId, username).PK;
  const blocks = queryPages(db, {
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: 'projectId = :project AND contains(#names, :name)',
    ExpressionAttributeValues: { ':pk': partition, ':prefix': keys.usernameBlockPrefix, ':project': projectId, ':name': username },
    ExpressionAttributeNames: { '#names': 'names' },
    ProjectionExpression: 'PK, SK, #names',
    ConsistentRead: true,
  });
  // The first block that holds it: no page after it is read.
  for await (const page of blocks) {
    for (const item of page.Items ?? []) {
      const index = Array.isArray(item.names) ? (item.names as unknown[]).indexOf(username) : -1;
      if (index >= 0) return { key: { PK: String(item.PK), SK: String(item.SK) }, index };
    }
  }
  return undefined;
}
