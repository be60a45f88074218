import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notificationKinds, type Notification, type NotificationKind } from '../../shared/schemas/notifications';
import { keys } from '../core/keys';
import type { NotificationDeps } from './notification-writer';

export type { NotificationDeps } from './notification-writer';

export const notificationView = (item: Record<string, unknown>): Notification => ({
  id: String(item.id),
  kind: (notificationKinds as readonly string[]).includes(String(item.kind)) ? (item.kind as NotificationKind) : 'security-alert',
  title: String(item.title ?? ''),
  body: String(item.body ?? ''),
  link: String(item.link ?? '/'),
  read: item.read === true,
  createdAt: String(item.createdAt ?? ''),
});

/** TTL deletes within days of expiry, not at once: an expired item still in the table is not shown. */
const unexpired = (item: Record<string, unknown>, now: Date) => typeof item.expiresAt !== 'number' || item.expiresAt * 1000 > now.getTime();

/** A page of the user's notifications, newest first; `after` is the last id of the page before. */
export async function notificationsPage(deps: NotificationDeps, userId: string, limit: number, now: Date, after?: string) {
  const key = keys.notificationsOf(userId);
  const { Items = [], LastEvaluatedKey } = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
      ...(after ? { ExclusiveStartKey: keys.notification(userId, after) } : {}),
    }),
  );
  const last = Items.at(-1);
  return {
    notifications: Items.filter((item) => unexpired(item, now)).map(notificationView),
    nextCursor: LastEvaluatedKey && last ? String(last.id) : undefined,
  };
}

/**
 * The user's unread notifications (keys and expiry only). One partition of small items kept 90
 * days: a Query with a filter reads it in one or two pages for any real user.
 */
export async function unreadKeys(deps: NotificationDeps, userId: string, now: Date): Promise<{ id: string }[]> {
  const key = keys.notificationsOf(userId);
  const found: { id: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        FilterExpression: '#read = :false',
        ProjectionExpression: 'id, expiresAt',
        ExpressionAttributeNames: { '#read': 'read' },
        ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix, ':false': false },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) if (unexpired(item, now)) found.push({ id: String(item.id) });
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

/** Marks one notification read; false when the user has none with this id. */
export async function markRead(deps: NotificationDeps, userId: string, id: string, at: Date): Promise<boolean> {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.notification(userId, id),
        UpdateExpression: 'SET #read = :true, readAt = if_not_exists(readAt, :at)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#read': 'read' },
        ExpressionAttributeValues: { ':true': true, ':at': at.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
