import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EmailSuppression } from '../../shared/schemas/email-suppressions';
import { keys } from '../core/keys';
import { queryAllUnder } from '../core/prefix-query';

export interface SuppressionStore {
  list(userId: string): Promise<EmailSuppression[]>;
  /** False when the address was not on the list. */
  remove(userId: string, email: string): Promise<boolean>;
}

const suppressionOf = (item: Record<string, unknown>): EmailSuppression => ({
  email: String(item.email),
  reason: item.reason === 'complained' ? 'complained' : 'bounced',
  detail: typeof item.detail === 'string' ? item.detail : '',
  createdAt: String(item.createdAt),
  ...(typeof item.projectId === 'string' ? { projectId: item.projectId } : {}),
});

export function dynamoSuppressionStore(db: DynamoDBDocumentClient, tableName: string): SuppressionStore {
  return {
    async list(userId) {
      return (await queryAllUnder(db, tableName, keys.emailSuppressionsOf(userId), { consistent: true })).map(suppressionOf);
    },
    async remove(userId, email) {
      try {
        await db.send(new DeleteCommand({ TableName: tableName, Key: keys.emailSuppression(userId, email), ConditionExpression: 'attribute_exists(PK)' }));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
