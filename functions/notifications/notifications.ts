import { isId } from '../core/ids';
import { NotFoundError, ValidationError } from '../core/errors';
import type { MarkReadInput, NotificationList } from '../../shared/schemas/notifications';
import { indexedUnreadCount, markRead, notificationsPage, unreadCount, unreadKeys, type NotificationDeps } from './notification-store';

export const NOTIFICATIONS_PAGE_DEFAULT = 20;
export const NOTIFICATIONS_PAGE_MAX = 100;

type Deps = NotificationDeps & { now: () => Date };

const pageLimit = (value: string | undefined): number => {
  if (value === undefined || value === '') return NOTIFICATIONS_PAGE_DEFAULT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > NOTIFICATIONS_PAGE_MAX) throw new ValidationError(`limit must be a whole number from 1 to ${NOTIFICATIONS_PAGE_MAX}`);
  return n;
};

/** GET /api/notifications?limit=&cursor=: newest first, with how many are unread (up to UNREAD_COUNT_CAP, then `unreadCountCapped`). */
export const listNotifications =
  (deps: Deps) =>
  async (userId: string, query: { limit?: string; cursor?: string }): Promise<NotificationList> => {
    const limit = pageLimit(query.limit);
    if (query.cursor !== undefined && !isId(query.cursor)) throw new ValidationError('Invalid cursor');
    const now = deps.now();
    const [page, unread] = await Promise.all([notificationsPage(deps, userId, limit, now, query.cursor), indexedUnreadCount(deps, userId, now)]);
    return { notifications: page.notifications, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}), unreadCount: unread.count, ...(unread.more ? { unreadCountCapped: true } : {}) };
  };

/**
 * POST /api/notifications/read: { ids } or { all: true }. Ids the user has no notification for
 * (another user's, or gone after 90 days) answer 404 once the user's own ones are marked.
 */
export const markNotificationsRead =
  (deps: Deps) =>
  async (userId: string, input: MarkReadInput): Promise<{ marked: number; unreadCount: number }> => {
    const now = deps.now();
    // Gives a user's older notifications their unread items first (once), so the ids below are all of them.
    await indexedUnreadCount(deps, userId, now);
    const ids = input.all ? (await unreadKeys(deps, userId, now)).map((n) => n.id) : [...new Set(input.ids ?? [])];
    // An id that is not one of ours cannot name an item: no write is tried for it.
    const results: boolean[] = [];
    // 25 writes at a time: 'Mark all read' of a long-absent user stays within the function's time and the table's pace.
    for (let i = 0; i < ids.length; i += 25) {
      results.push(...(await Promise.all(ids.slice(i, i + 25).map((id) => (isId(id) ? markRead(deps, userId, id, now) : Promise.resolve(false))))));
    }
    if (!input.all && results.some((found) => !found)) throw new NotFoundError('Notification not found');
    const unread = await unreadCount(deps, userId, now);
    return { marked: results.filter(Boolean).length, unreadCount: unread.count, ...(unread.more ? { unreadCountCapped: true } : {}) };
  };
