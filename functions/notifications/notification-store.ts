import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { notificationKinds, type Notification, type NotificationKind } from '../../shared/schemas/notifications';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
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
  const unread = await queryItems(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: '#read = :false',
    ProjectionExpression: 'id, expiresAt',
    ExpressionAttributeNames: { '#read': 'read' },
    ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix, ':false': false },
    ConsistentRead: true,
  });
  return unread.filter((item) => unexpired(item, now)).map((item) => ({ id: String(item.id), ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}) }));
}

/**
 * Once per user: notifications written before unread items existed get theirs, then a marker
 * says so. Run when a read of the unread items found no marker (the user's first read of the bell
 * after the release: one read of their 90 days of notifications, what every poll cost before);
 * repeated safely if it dies half-way.
 */
async function indexUnread(deps: NotificationDeps, userId: string, now: Date): Promise<void> {
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

/**
 * A page of the user's unread items (newest first), unexpired ones only. The first page (no
 * `start`) also brings the UNREAD_INDEXED marker, which sorts before every unread item in this
 * order: `indexed` says whether it is there, and it takes no place of the `limit`.
 */
async function unreadPage(deps: NotificationDeps, userId: string, now: Date, limit: number, start?: Record<string, unknown>) {
  const key = keys.unreadNotificationsAndMarkerOf(userId);
  const marker = keys.unreadNotificationsIndexed(userId).SK;
  const page = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ProjectionExpression: 'SK, id, expiresAt',
      ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: start ? limit : limit + 1,
      ExclusiveStartKey: start,
    }),
  );
  const items = page.Items ?? [];
  const unread = items.filter((item) => item.SK !== marker);
  // Without the marker the read may hold one item more than `limit`: its caller indexes and reads again.
  return { ids: unread.filter((item) => unexpired(item, now)).map((item) => String(item.id)), next: page.LastEvaluatedKey, indexed: unread.length < items.length };
}

/**
 * How many notifications the user has not read: one Query of at most UNREAD_COUNT_CAP small
 * items (and the marker), whatever the number of notifications (`more`: there may be more than
 * counted). `indexed: false`: the user's older notifications have no unread items yet (indexUnread).
 */
export async function unreadCount(deps: NotificationDeps, userId: string, now: Date): Promise<{ count: number; more: boolean; indexed: boolean }> {
  const { ids, next, indexed } = await unreadPage(deps, userId, now, UNREAD_COUNT_CAP);
  return { count: ids.length, more: next !== undefined, indexed };
}

/** The unread count, after giving the user's older notifications their items the first time (no marker found). */
export async function indexedUnreadCount(deps: NotificationDeps, userId: string, now: Date): Promise<{ count: number; more: boolean }> {
  const first = await unreadCount(deps, userId, now);
  if (first.indexed) return first;
  await indexUnread(deps, userId, now);
  return unreadCount(deps, userId, now);
}

/** Every unread notification's id (mark all read; the weekly digest's count). A user not indexed yet is read the old way (this reader may not write). */
export async function unreadKeys(deps: NotificationDeps, userId: string, now: Date): Promise<{ id: string }[]> {
  const found: { id: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await unreadPage(deps, userId, now, 1000, start);
    if (!start && !page.indexed) return (await unreadByFilter(deps, userId, now)).map(({ id }) => ({ id }));
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
