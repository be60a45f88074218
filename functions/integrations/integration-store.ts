import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { recordOf, type IntegrationRecord } from './integration-record';

export { integrationView, recordOf, type IntegrationRecord } from './integration-record';
import { keys } from '../core/keys';
import { countUnder, queryAllUnder } from '../core/prefix-query';

export interface IntegrationStore {
  /** Newest first. */
  list(userId: string): Promise<IntegrationRecord[]>;
  count(userId: string): Promise<number>;
  get(userId: string, id: string): Promise<IntegrationRecord | undefined>;
  create(record: IntegrationRecord): Promise<void>;
  /** Replaces an integration's editable fields; undefined when there is no such integration. */
  update(record: IntegrationRecord): Promise<IntegrationRecord | undefined>;
  /** False when there is no such integration. */
  remove(userId: string, id: string): Promise<boolean>;
  /** The test's outcome; undefined when the integration was deleted meanwhile. */
  recordTest(userId: string, id: string, result: { status: 'success' | 'failed'; message: string; at: string }): Promise<IntegrationRecord | undefined>;
}

export function dynamoIntegrationStore(db: DynamoDBDocumentClient, tableName: string): IntegrationStore {
  return {
    async list(userId) {
      return (await queryAllUnder(db, tableName, keys.integrationsOf(userId))).map(recordOf);
    },

    count: (userId) => countUnder(db, tableName, keys.integrationsOf(userId)),

    async get(userId, id) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.integration(userId, id), ConsistentRead: true }));
      return Item ? recordOf(Item) : undefined;
    },

    async create(record) {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.integration(record.userId, record.id), entityType: 'Integration', ...record },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    async update(record) {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...keys.integration(record.userId, record.id), entityType: 'Integration', ...record },
            ConditionExpression: 'attribute_exists(PK)',
          }),
        );
        return record;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    async remove(userId, id) {
      try {
        await db.send(new DeleteCommand({ TableName: tableName, Key: keys.integration(userId, id), ConditionExpression: 'attribute_exists(PK)' }));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async recordTest(userId, id, result) {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.integration(userId, id),
            UpdateExpression: 'SET lastTestStatus = :status, lastTestMessage = :message, lastTestDate = :at, updatedAt = :at',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':status': result.status, ':message': result.message, ':at': result.at },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? recordOf(Attributes) : undefined;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },
  };
}
