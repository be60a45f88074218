import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  PASSWORD_CHANGED_AT_ATTRIBUTE,
  securitySettingsWithDefaults,
  type SecuritySettings,
} from '../../shared/schemas/security';
import { secretContext, type Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { queryPages } from '../core/query-pages';
import { moveSessionsNotBefore } from './sign-in-password-age';
import { SECURITY_SETTINGS_ATTRIBUTE } from './security-settings';
import type { RequestOrigin } from './security-events';

/*
 * What sign-in reads and writes beside the guard: the user's security settings and password age
 * (the user item), the user item's sessionsNotBefore, and the user's sessions, each holding its
 * refresh token encrypted so that a sign-in with concurrent sessions off can revoke the others.
 */
const DAY_SECONDS = 24 * 60 * 60;
/** The app client's refresh token validity (lib/stateful-stack.ts): a session is worth keeping that long. */
export const REFRESH_TOKEN_DAYS = 30;

export interface SignInAccount {
  settings: SecuritySettings;
  /** When the password was last set: passwordChangedAt, else the user item's createdAt; undefined without a user item. */
  passwordSetAt?: string;
}

export interface StoredSession {
  sessionId: string;
  refreshToken: string;
}

export interface SignInAccountStore {
  /** Undefined when the user has no item yet (the first sign-in: GET /api/auth/user creates it). */
  account(userId: string): Promise<SignInAccount | undefined>;
  /** Sessions signed in before `authTime` (epoch seconds) no longer count (the account gate refuses them). */
  setSessionsNotBefore(userId: string, authTime: number): Promise<void>;
  /** The security setting twoFactorEnabled made false (Cognito signed the user in without a code). */
  setTwoFactorOff(userId: string): Promise<void>;
  saveSession(userId: string, refreshToken: string, authTime: number, origin: RequestOrigin, now: Date): Promise<string>;
  /** Every stored session of the user but `exceptSessionId`, tokens decrypted (one that no longer decrypts is skipped). */
  otherSessions(userId: string, exceptSessionId: string): Promise<StoredSession[]>;
  deleteSession(userId: string, sessionId: string): Promise<void>;
}

export function dynamoSignInAccountStore(db: DynamoDBDocumentClient, tableName: string, cipher: () => Promise<Cipher>): SignInAccountStore {
  return {
    async account(userId) {
      const { Item } = await db.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.user(userId),
          ConsistentRead: true,
          ProjectionExpression: 'PK, createdAt, #s, #p',
          ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE, '#p': PASSWORD_CHANGED_AT_ATTRIBUTE },
        }),
      );
      if (!Item) return undefined;
      const passwordSetAt = [Item[PASSWORD_CHANGED_AT_ATTRIBUTE], Item.createdAt].find((value): value is string => typeof value === 'string');
      return { settings: securitySettingsWithDefaults(Item[SECURITY_SETTINGS_ATTRIBUTE]), ...(passwordSetAt ? { passwordSetAt } : {}) };
    },
    setSessionsNotBefore: (userId, authTime) => moveSessionsNotBefore(db, tableName, userId, authTime),
    async setTwoFactorOff(userId) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET #s.twoFactorEnabled = :off',
            ConditionExpression: 'attribute_exists(#s)',
            ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE },
            ExpressionAttributeValues: { ':off': false },
          }),
        );
      } catch (error) {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      }
    },
    async saveSession(userId, refreshToken, authTime, origin, now) {
      const sessionId = randomUUID();
      const encrypted = (await cipher()).encrypt(refreshToken, secretContext.session(userId, sessionId));
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.session(userId, sessionId),
            entityType: 'Session',
            sessionId,
            refreshToken: encrypted,
            authTime,
            ipAddress: origin.ipAddress,
            userAgent: origin.userAgent,
            createdAt: now.toISOString(),
            expiresAt: Math.floor(now.getTime() / 1000) + REFRESH_TOKEN_DAYS * DAY_SECONDS,
          },
        }),
      );
      return sessionId;
    },
    async otherSessions(userId, exceptSessionId) {
      const { PK, SKPrefix } = keys.sessionsOf(userId);
      const sessions: StoredSession[] = [];
      const open = await cipher();
      const query = { TableName: tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true };
      for await (const page of queryPages(db, query)) {
        for (const item of page.Items ?? []) {
          const sessionId = String(item.sessionId);
          if (sessionId === exceptSessionId || typeof item.refreshToken !== 'string') continue;
          try {
            sessions.push({ sessionId, refreshToken: open.decrypt(item.refreshToken, secretContext.session(userId, sessionId)) });
          } catch {
            // A token that no longer decrypts (a retired key) cannot be revoked: its item only goes.
            sessions.push({ sessionId, refreshToken: '' });
          }
        }
      }
      return sessions;
    },
    async deleteSession(userId, sessionId) {
      await db.send(new DeleteCommand({ TableName: tableName, Key: keys.session(userId, sessionId) }));
    },
  };
}
