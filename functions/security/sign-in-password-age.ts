import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PASSWORD_CHANGED_AT_ATTRIBUTE, SESSIONS_NOT_BEFORE_ATTRIBUTE, securitySettingsWithDefaults } from '../../shared/schemas/security';
import { keys } from '../core/keys';
import { SECURITY_SETTINGS_ATTRIBUTE } from './security-settings';

/**
 * What the Cognito trigger and the change-password route write on the user item, apart from the
 * rest of sign-in's storage: the trigger's bundle holds only these GetItem / UpdateItem calls.
 */
export interface PasswordAgeStore {
  /** When the password was last set (the user item's passwordChangedAt). */
  setPasswordChangedAt(userId: string, at: string): Promise<void>;
}

export interface SessionCutoffStore {
  /** The user's allowConcurrentSessions (true, the default, when the user has no item yet). */
  concurrentSessionsAllowed(userId: string): Promise<boolean>;
  /** Sessions signed in before `authTime` (epoch seconds) no longer count (the account gate refuses them). */
  setSessionsNotBefore(userId: string, authTime: number): Promise<void>;
}

/** Moves the user item's sessionsNotBefore forward, never back: a sign-in answered late must not revive a session a newer one replaced. */
export async function moveSessionsNotBefore(db: DynamoDBDocumentClient, tableName: string, userId: string, authTime: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.user(userId),
        UpdateExpression: 'SET #n = :t',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#n) OR #n < :t)',
        ExpressionAttributeNames: { '#n': SESSIONS_NOT_BEFORE_ATTRIBUTE },
        ExpressionAttributeValues: { ':t': authTime },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

export function dynamoPasswordAgeStore(db: DynamoDBDocumentClient, tableName: string): PasswordAgeStore & SessionCutoffStore {
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
    async concurrentSessionsAllowed(userId) {
      const { Item } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true, ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE } }),
      );
      return securitySettingsWithDefaults(Item?.[SECURITY_SETTINGS_ATTRIBUTE]).allowConcurrentSessions;
    },
    setSessionsNotBefore: (userId, authTime) => moveSessionsNotBefore(db, tableName, userId, authTime),
  };
}
