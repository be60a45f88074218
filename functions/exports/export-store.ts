import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { PlanId } from '../../shared/plans';
import { keys } from '../core/keys';
import { dynamoPlanReader } from '../usage/plan-store';
import { exportItem, type ExportRecord } from './export-item';

/** Export items of one user, and the user's plan (the server decides which formats are allowed). */
export interface ExportStore {
  plan(userId: string): Promise<PlanId>;
  create(record: ExportRecord): Promise<void>;
  get(userId: string, exportId: string): Promise<Record<string, unknown> | undefined>;
  /** Newest first. */
  list(userId: string, limit: number): Promise<Record<string, unknown>[]>;
  /**
   * pending or processing (a redelivery restarts it) -> processing; answers the item, or
   * undefined when it is finished (completed, failed) or gone.
   */
  start(userId: string, exportId: string, now: Date): Promise<Record<string, unknown> | undefined>;
  /**
   * processing -> completed. Answers false when the export is no longer processing: stopped
   * (its account is being deleted) or gone (deleted with its account); its file must not stay.
   */
  complete(userId: string, exportId: string, result: { rowCount: number; sizeBytes: number; now: Date }): Promise<boolean>;
  /**
   * -> failed with `error`, unless completed (or, with `onlyUnfinished`, already failed with its own
   * reason). True when this call ended an unfinished export (it was pending or processing): the one
   * failure to tell the user about.
   */
  fail(userId: string, exportId: string, error: string, now: Date, options?: { onlyUnfinished?: boolean }): Promise<boolean>;
}

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

export function dynamoExportStore(db: DynamoDBDocumentClient, tableName: string): ExportStore {
  return {
    plan: dynamoPlanReader(db, tableName),

    async create(record) {
      await db.send(new PutCommand({ TableName: tableName, Item: exportItem(record), ConditionExpression: 'attribute_not_exists(PK)' }));
    },

    async get(userId, exportId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.export(userId, exportId), ConsistentRead: true }));
      return Item;
    },

    async list(userId, limit) {
      const { PK, SKPrefix } = keys.exportsOf(userId);
      const page = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return page.Items ?? [];
    },

    async start(userId, exportId, now) {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.export(userId, exportId),
            UpdateExpression: 'SET #status = :processing, updatedAt = :now ADD attempts :one',
            ConditionExpression: 'attribute_exists(PK) AND #status IN (:pending, :processing)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':processing': 'processing', ':pending': 'pending', ':now': now.toISOString(), ':one': 1 },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    async complete(userId, exportId, { rowCount, sizeBytes, now }) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.export(userId, exportId),
            UpdateExpression: 'SET #status = :completed, rowCount = :rows, sizeBytes = :size, completedAt = :now, updatedAt = :now REMOVE #error',
            ConditionExpression: 'attribute_exists(PK) AND #status = :processing',
            ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
            ExpressionAttributeValues: { ':completed': 'completed', ':processing': 'processing', ':rows': rowCount, ':size': sizeBytes, ':now': now.toISOString() },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async fail(userId, exportId, error, now, options = {}) {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.export(userId, exportId),
            UpdateExpression: 'SET #status = :failed, #error = :error, updatedAt = :now',
            ReturnValues: 'ALL_OLD',
            ConditionExpression: options.onlyUnfinished
              ? 'attribute_exists(PK) AND #status IN (:pending, :processing)'
              : 'attribute_exists(PK) AND #status <> :completed',
            ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
            ExpressionAttributeValues: {
              ':failed': 'failed',
              ':error': error,
              ':now': now.toISOString(),
              ...(options.onlyUnfinished ? { ':pending': 'pending', ':processing': 'processing' } : { ':completed': 'completed' }),
            },
          }),
        );
        return Attributes?.status === 'pending' || Attributes?.status === 'processing';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return false;
      }
    },
  };
}
