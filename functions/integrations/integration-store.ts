import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Integration } from '../../shared/schemas/integrations';
import { keys } from '../core/keys';
import { countUnder, queryAllUnder } from '../core/prefix-query';

/** An integration as stored: the credentials one encrypted JSON string (never returned). */
export interface IntegrationRecord extends Omit<Integration, 'authFieldsSet'> {
  userId: string;
  /** AES-256-GCM token of JSON `authConfig`. */
  authConfigEncrypted: string;
  authFieldsSet: string[];
}

export interface IntegrationStore {
  /** Newest first. */
  list(userId: string): Promise<IntegrationRecord[]>;
  count(userId: string): Promise<number>;
  get(userId: string, id: string): Promise<IntegrationRecord | undefined>;
  create(record: IntegrationRecord): Promise<void>;
  /** False when there is no such integration. */
  remove(userId: string, id: string): Promise<boolean>;
  /** The test's outcome; undefined when the integration was deleted meanwhile. */
  recordTest(userId: string, id: string, result: { status: 'success' | 'failed'; message: string; at: string }): Promise<IntegrationRecord | undefined>;
}

const FIELDS = ['id', 'userId', 'name', 'description', 'platform', 'apiType', 'baseUrl', 'authMethod', 'authConfigEncrypted', 'authFieldsSet', 'apiConfig', 'isActive', 'lastTestDate', 'lastTestStatus', 'lastTestMessage', 'createdAt', 'updatedAt'] as const;

const recordOf = (item: Record<string, unknown>): IntegrationRecord => {
  const record: Record<string, unknown> = {};
  for (const field of FIELDS) if (item[field] !== undefined) record[field] = item[field];
  return record as unknown as IntegrationRecord;
};

/** What the browser sees: everything but the credentials. */
export function integrationView(record: IntegrationRecord): Integration {
  const { authConfigEncrypted: _secret, userId: _owner, ...view } = record;
  return view;
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
