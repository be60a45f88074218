import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GoneError } from './errors';
import { keys } from './keys';

/** Throws GoneError when the caller's account is deleted or being deleted. */
export type AccountGate = (userId: string) => Promise<void>;

/** The user item's attribute that DELETE /api/user/account sets first (functions/account-deletion). */
export const DELETION_REQUESTED_AT = 'deletionRequestedAt';

/**
 * Reads the one attribute of the user item, strongly consistent: a request that arrives right
 * after DELETE /api/user/account answered is refused, so nothing new is written for a user whose
 * deletion job is running. A user item that is gone (deletion finished) is not refused here: the
 * Cognito user is gone too, so GET /api/auth/user cannot create it again (its GetUser fails).
 */
export const dynamoAccountGate =
  (db: DynamoDBDocumentClient, tableName: string): AccountGate =>
  async (userId) => {
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.user(userId),
        ProjectionExpression: '#deleting',
        ExpressionAttributeNames: { '#deleting': DELETION_REQUESTED_AT },
        ConsistentRead: true,
      }),
    );
    if (Item?.[DELETION_REQUESTED_AT] !== undefined) throw new GoneError();
  };
