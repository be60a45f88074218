import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PASSWORD_CHANGED_AT_ATTRIBUTE } from '../../shared/schemas/security';
import { keys } from '../core/keys';

/**
 * When the password was last set (the user item's passwordChangedAt), apart from the rest of
 * sign-in's storage: the Cognito trigger holds only this UpdateItem for it.
 */
export interface PasswordAgeStore {
  setPasswordChangedAt(userId: string, at: string): Promise<void>;
}

export function dynamoPasswordAgeStore(db: DynamoDBDocumentClient, tableName: string): PasswordAgeStore {
  return {
    async setPasswordChangedAt(userId, at) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET #p = :at',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: { '#p': PASSWORD_CHANGED_AT_ATTRIBUTE },
            ExpressionAttributeValues: { ':at': at },
          }),
        );
      } catch (error) {
        // No user item yet: the first GET /api/auth/user creates it with passwordChangedAt = now.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
  };
}
