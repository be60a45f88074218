import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { allAccountsInOrder } from '../accounts/account-partitions';

/** A project's account items, one DynamoDB page at a time, in file order. */
export type AccountPages = (userId: string, projectId: string) => AsyncIterable<Record<string, unknown>[]>;

/** Items per Query page: one page is all an export holds in memory. */
export const ACCOUNT_PAGE_SIZE = 1000;

/**
 * The project's accounts in file order over all its shards (functions/accounts/account-partitions.ts),
 * the next page requested while the current one is written (at most two pages held).
 */
export const dynamoAccountPages =
  (db: DynamoDBDocumentClient, tableName: string, pageSize = ACCOUNT_PAGE_SIZE): AccountPages =>
  (userId, projectId) =>
    allAccountsInOrder(db, tableName, userId, projectId, pageSize);
