import * as z from 'zod/mini';
import './zod-messages';

/**
 * In-app notifications. In zod/mini: every function that writes a notification reaches this file,
 * and with zod's classic API here it carried that API into functions that parse nothing else with it.
 */

/** What an in-app notification is about (issue 12 item 6). */
export const notificationKinds = ['bulk-job-completed', 'bulk-job-failed', 'export-ready', 'export-failed', 'provisioning-finished', 'payment-failed', 'security-alert', 'project-deleted', 'project-expired', 'mail-paused'] as const;
export type NotificationKind = (typeof notificationKinds)[number];

/** Notifications are kept this long (the item's TTL). */
export const NOTIFICATION_DAYS = 90;

export const notificationSchema = z.object({
  id: z.string(),
  kind: z.enum(notificationKinds),
  title: z.string(),
  body: z.string(),
  /** The app path of what it is about (a project, the Export Center, Settings > Subscription ...). */
  link: z.string(),
  read: z.boolean(),
  createdAt: z.string(),
});
export type Notification = z.infer<typeof notificationSchema>;

export const notificationListSchema = z.object({
  notifications: z.array(notificationSchema),
  /** Pass as ?cursor= for the next (older) page; absent on the last page. */
  nextCursor: z.optional(z.string()),
  /** Unread notifications counted, at most 100 (one bounded read); `unreadCountCapped`: there are more (the bell shows '99+'). */
  unreadCount: z.number(),
  unreadCountCapped: z.optional(z.boolean()),
});
export type NotificationList = z.infer<typeof notificationListSchema>;

export const MARK_READ_MAX_IDS = 100;

/** POST /api/notifications/read: some notifications by id, or all of them. */
export const markReadSchema = z
  .object({
    all: z.optional(z.literal(true, 'all must be true')),
    ids: z.optional(
      z
        .array(z.string('Notification ids must be text'), 'ids must be a list of notification ids')
        .check(z.minLength(1, 'Name at least one notification'), z.maxLength(MARK_READ_MAX_IDS, `At most ${MARK_READ_MAX_IDS} notifications at a time`)),
    ),
  })
  .check(z.refine((body) => (body.all === true) !== (body.ids !== undefined), 'Send { ids: [...] } or { all: true }'));
export type MarkReadInput = z.infer<typeof markReadSchema>;
