import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { queryPages } from '../core/query-pages';

export type ItemKey = { PK: string; SK: string };

/** The table as account deletion sees it: the user's items, found by key (never a Scan). */
export interface ErasureStore {
  /** The user item, strongly consistent; undefined when it is gone. */
  profile(userId: string): Promise<Record<string, unknown> | undefined>;
  /** One item by its key, strongly consistent; undefined when there is none. */
  item(key: ItemKey): Promise<Record<string, unknown> | undefined>;
  /** Every item of a partition (all attributes), a page at a time. */
  items(pk: string): AsyncIterable<Record<string, unknown>[]>;
  /** Deletes the items (25 to a batch, unprocessed ones sent again); answers how many. */
  deleteKeys(itemKeys: readonly ItemKey[]): Promise<number>;
  /** Deletes every item of a partition; answers how many. */
  deletePartition(pk: string): Promise<number>;
  /** Deletes one item (the user item, last). */
  deleteItem(key: ItemKey): Promise<void>;
  /** Sets a job item's status to failed with the reason, if its status is still `from`; false when it moved on. */
  stopJob(key: ItemKey, from: string, reason: string, at: Date): Promise<boolean>;
}

const BATCH = 25;
const MAX_UNPROCESSED_ROUNDS = 8;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function dynamoErasureStore(db: DynamoDBDocumentClient, tableName: string): ErasureStore {
  async function* items(pk: string, projection?: string): AsyncIterable<Record<string, unknown>[]> {
    const query = { TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ...(projection ? { ProjectionExpression: projection } : {}), ConsistentRead: true };
    for await (const page of queryPages(db, query)) if (page.Items?.length) yield page.Items;
  }

  async function deleteKeys(itemKeys: readonly ItemKey[]): Promise<number> {
    for (let i = 0; i < itemKeys.length; i += BATCH) {
      let requests = itemKeys.slice(i, i + BATCH).map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } }));
      for (let round = 0; requests.length > 0; round++) {
        if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`DynamoDB left ${requests.length} deletions unprocessed`);
        if (round > 0) await pause(50 * 2 ** round);
        const result = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
        requests = (result.UnprocessedItems?.[tableName] ?? []) as typeof requests;
      }
    }
    return itemKeys.length;
  }

  return {
    async profile(userId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true }));
      return Item;
    },

    async item(key) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: { PK: key.PK, SK: key.SK }, ConsistentRead: true }));
      return Item;
    },

    items: (pk) => items(pk),
    deleteKeys,

    async deletePartition(pk) {
      let deleted = 0;
      for await (const page of items(pk, 'PK, SK')) deleted += await deleteKeys(page.map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
      return deleted;
    },

    async deleteItem(key) {
      await db.send(new DeleteCommand({ TableName: tableName, Key: key }));
    },

    async stopJob(key, from, reason, at) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET #status = :failed, reason = :reason, updatedAt = :at',
            ConditionExpression: '#status = :from',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':failed': 'failed', ':reason': reason, ':at': at.toISOString(), ':from': from },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
