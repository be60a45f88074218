import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withDefaults, type UserSettings } from '../../shared/schemas/user-settings';
import { keys } from '../core/keys';

/** The stored groups (notifications, preferences) of keys.userSettings, completed with the defaults. */
export type StoredSettings = Pick<UserSettings, 'notifications' | 'preferences'>;

/** Reads a user's settings (apart from the writes, so the mail worker's bundle holds only this read). */
export async function readSettings(db: DynamoDBDocumentClient, tableName: string, userId: string): Promise<StoredSettings & { version: number }> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.userSettings(userId), ConsistentRead: true }));
  return { ...withDefaults(Item ?? {}), version: Number(Item?.version ?? 0) };
}
