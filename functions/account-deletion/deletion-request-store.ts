import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DELETION_REQUESTED_AT } from '../core/account-gate';
import { keys } from '../core/keys';

/** The one write of DELETE /api/user/account (apart from the job's store: the route group only updates). */
export interface DeletionRequestStore {
  /** Marks the user as being deleted (the first request's time is kept); false when there is no user item. */
  markDeleting(userId: string, now: Date): Promise<boolean>;
}

export function dynamoDeletionRequestStore(db: DynamoDBDocumentClient, tableName: string): DeletionRequestStore {
  return {
    async markDeleting(userId, now) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET #deleting = if_not_exists(#deleting, :now)',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: { '#deleting': DELETION_REQUESTED_AT },
            ExpressionAttributeValues: { ':now': now.toISOString() },
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
