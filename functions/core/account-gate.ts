import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GoneError, UnauthorizedError } from './errors';
import { keys } from './keys';

/**
 * Throws GoneError when the caller's account is being deleted, and UnauthorizedError when it has
 * no user item, unless `userItem` is 'optional' (GET /api/auth/user, which creates it).
 */
export type AccountGate = (userId: string, options?: { userItem?: 'optional' }) => Promise<void>;

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
  async (userId, options = {}) => {
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.user(userId),
        // The key too: an item without the flag must still come back as an item.
        ProjectionExpression: 'PK, #deleting',
        ExpressionAttributeNames: { '#deleting': DELETION_REQUESTED_AT },
        ConsistentRead: true,
      }),
    );
    if (!Item) {
      if (options.userItem === 'optional') return;
      throw new UnauthorizedError();
    }
    if (Item[DELETION_REQUESTED_AT] !== undefined) throw new GoneError();
  };
