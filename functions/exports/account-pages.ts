import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';

/** A project's account items, one DynamoDB page at a time, in file order. */
export type AccountPages = (userId: string, projectId: string) => AsyncIterable<Record<string, unknown>[]>;

/** Items per Query page: one page is all an export holds in memory. */
export const ACCOUNT_PAGE_SIZE = 1000;

/**
 * Paged Query of the project's partition. The next page is requested as soon as one arrives, so
 * reading overlaps with writing the file (at most two pages held).
 */
export const dynamoAccountPages =
  (db: DynamoDBDocumentClient, tableName: string, pageSize = ACCOUNT_PAGE_SIZE): AccountPages =>
    async function* pages(userId, projectId) {
      const { PK } = keys.accountsOf(userId, projectId);
      const query = (start?: Record<string, unknown>) =>
        db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': PK },
            Limit: pageSize,
            ExclusiveStartKey: start,
          }),
        );
      let next: Promise<QueryCommandOutput> | undefined = query();
      while (next) {
        const page: QueryCommandOutput = await next;
        next = page.LastEvaluatedKey ? query(page.LastEvaluatedKey) : undefined;
        // A prefetched page that is never awaited (the consumer stopped) must not crash the process.
        next?.catch(() => undefined);
        if (page.Items?.length) yield page.Items;
      }
    };
