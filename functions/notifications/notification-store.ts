import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
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

/** The bell's count reads at most this many unread items; above, it says '99+'. */
export const UNREAD_COUNT_CAP = 100;

/**
 * The user's unread notifications by a full read of the notifications (filtered): what the
 * count was before each unread notification had its item, kept for users whose older
 * notifications have not been given theirs yet (indexUnread) and for readers that may not write.
 */
async function unreadByFilter(deps: NotificationDeps, userId: string, now: Date): Promise<{ id: string; expiresAt?: number }[]> {
  const key = keys.notificationsOf(userId);
  const found: { id: string; expiresAt?: number }[] = [];
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
    for (const item of page.Items ?? []) if (unexpired(item, now)) found.push({ id: String(item.id), ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}) });
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

const isIndexed = async (deps: NotificationDeps, userId: string): Promise<boolean> =>
  (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.unreadNotificationsIndexed(userId), ConsistentRead: true }))).Item !== undefined;

/**
 * Once per user: notifications written before unread items existed get theirs, then a marker
 * says so. Runs at the user's first read of the bell after the release (one read of their 90 days
 * of notifications, what every poll cost before); repeated safely if it dies half-way.
 */
export async function indexUnread(deps: NotificationDeps, userId: string, now: Date): Promise<void> {
  if (await isIndexed(deps, userId)) return;
  const unread = await unreadByFilter(deps, userId, now);
  for (let i = 0; i < unread.length; i += 25) {
    await Promise.all(
      unread.slice(i, i + 25).map(({ id, expiresAt }) =>
        deps.db.send(new PutCommand({ TableName: deps.tableName, Item: { ...keys.unreadNotification(userId, id), entityType: 'UnreadNotification', id, ...(expiresAt !== undefined ? { expiresAt } : {}) } })),
      ),
    );
  }
  await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: { ...keys.unreadNotificationsIndexed(userId), entityType: 'Migration', at: now.toISOString() } }));
}

/** A page of the user's unread items (newest first), unexpired ones only. */
async function unreadPage(deps: NotificationDeps, userId: string, now: Date, limit: number, start?: Record<string, unknown>) {
  const key = keys.unreadNotificationsOf(userId);
  const page = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ProjectionExpression: 'id, expiresAt',
      ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: start,
    }),
  );
  return { ids: (page.Items ?? []).filter((item) => unexpired(item, now)).map((item) => String(item.id)), next: page.LastEvaluatedKey };
}

/**
 * How many notifications the user has not read: one Query of at most UNREAD_COUNT_CAP small
 * items, whatever the number of notifications (`more`: there may be more than counted).
 */
export async function unreadCount(deps: NotificationDeps, userId: string, now: Date): Promise<{ count: number; more: boolean }> {
  const { ids, next } = await unreadPage(deps, userId, now, UNREAD_COUNT_CAP);
  return { count: ids.length, more: next !== undefined };
}

/** Every unread notification's id (mark all read; the weekly digest's count). A user not indexed yet is read the old way (this reader may not write). */
export async function unreadKeys(deps: NotificationDeps, userId: string, now: Date): Promise<{ id: string }[]> {
  if (!(await isIndexed(deps, userId))) return (await unreadByFilter(deps, userId, now)).map(({ id }) => ({ id }));
  const found: { id: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await unreadPage(deps, userId, now, 1000, start);
    found.push(...page.ids.map((id) => ({ id })));
    start = page.next;
  } while (start);
  return found;
}

/** Marks one notification read and drops its unread item, together; false when the user has none with this id. */
export async function markRead(deps: NotificationDeps, userId: string, id: string, at: Date): Promise<boolean> {
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: deps.tableName,
              Key: keys.notification(userId, id),
              UpdateExpression: 'SET #read = :true, readAt = if_not_exists(readAt, :at)',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: { '#read': 'read' },
              ExpressionAttributeValues: { ':true': true, ':at': at.toISOString() },
            },
          },
          { Delete: { TableName: deps.tableName, Key: keys.unreadNotification(userId, id) } },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
