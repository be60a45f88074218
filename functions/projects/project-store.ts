import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountsPageInOrder, shardsOf } from '../accounts/account-partitions';
import { ValidationError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { queryAllUnder } from '../core/prefix-query';

/** Reads of projects and their accounts, always inside the caller's own partitions. */
export interface ProjectStore {
  list(userId: string): Promise<Record<string, unknown>[]>;
  get(userId: string, projectId: string): Promise<Record<string, unknown>>;
  accountsPage(userId: string, projectId: string, limit: number, cursor?: string): Promise<{ items: Record<string, unknown>[]; nextCursor?: string }>;
}

const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');

export function dynamoProjectStore(db: DynamoDBDocumentClient, tableName: string): ProjectStore {
  const get = async (userId: string, projectId: string) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.project(userId, projectId) }));
    if (!Item) throw new NotFoundError('Project not found');
    return Item;
  };
  return {
    list: (userId) => queryAllUnder(db, tableName, keys.projectsOf(userId)),
    get,
    async accountsPage(userId, projectId, limit, cursor) {
      const project = await get(userId, projectId);
      const { PK } = keys.accountsOf(userId, projectId);
      let start: Record<string, unknown> | undefined;
      if (cursor) {
        try {
          start = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
        } catch {
          throw new ValidationError('Invalid cursor');
        }
        // A cursor can only continue this project's listing, never point elsewhere.
        if (start?.PK !== PK || typeof start.SK !== 'string' || Object.keys(start).length !== 2) throw new ValidationError('Invalid cursor');
      }
      // Every shard of the project, merged in file order; the cursor keeps its old shape (the
      // last row's key in shard 0's partition), so a cursor handed out before still works.
      const page = await accountsPageInOrder(db, tableName, { userId, projectId, shards: shardsOf(project) }, limit, start ? String(start.SK) : undefined);
      return { items: page.items, ...(page.lastSk ? { nextCursor: encodeCursor({ PK, SK: page.lastSk }) } : {}) };
    },
  };
}
