import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { timeOrderedIdFloor } from '../core/ids';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
import { logger } from '../core/logger';
import { unreadKeys } from '../notifications/notification-store';
import { effectivePlan } from '../usage/plan-usage';
import type { StoredSettings } from '../users/settings-reader';
import type { UserRepository } from '../users/user-repository';
import type { NotificationMailMessage } from './mail-message';
import type { Mailer } from './ses-mailer';
import { projectCompletionEmail, projectExpiredEmail } from './project-completion-email';
import { securityAlertEmail } from './security-alert-email';
import { weeklyDigestEmail, type DigestContent } from './weekly-digest-email';

export interface NotificationMailDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  users: Pick<UserRepository, 'get'>;
  settings: { get(userId: string): Promise<StoredSettings> };
  mailer: Mailer;
  appUrl: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The user's own notification e-mails. Each is decided when it is sent, not when it was queued:
 * e-mail notifications are a Pro feature (spec 6), and each kind has its switch in Settings >
 * Notifications (project completion and expiry: e-mail notifications and project completion e-mails;
 * security alerts; the weekly digest). A user who is not Pro or switched it off gets nothing.
 */
export const sendNotificationMail =
  (deps: NotificationMailDeps) =>
  async (message: NotificationMailMessage): Promise<'sent' | 'skipped'> => {
    const [user, settings] = await Promise.all([deps.users.get(message.userId), deps.settings.get(message.userId)]);
    if (!user?.email || effectivePlan(user.subscriptionPlan, user.subscriptionStatus) !== 'pro') return 'skipped';
    const on = settings.notifications;
    switch (message.type) {
      case 'project-completion':
        if (!(on.emailNotifications && on.projectCompletionEmail)) return 'skipped';
        await deps.mailer.send(projectCompletionEmail(user, message, deps.appUrl));
        return 'sent';
      case 'project-expired':
        // A project's own news, like its completion: the same two switches.
        if (!(on.emailNotifications && on.projectCompletionEmail)) return 'skipped';
        await deps.mailer.send(projectExpiredEmail(user, message, deps.appUrl));
        return 'sent';
      case 'security-alert':
        if (!on.securityAlerts) return 'skipped';
        await deps.mailer.send(securityAlertEmail(user, message, deps.appUrl));
        return 'sent';
      case 'weekly-digest': {
        if (!on.weeklyDigest) return 'skipped';
        const content = await digestContent(deps, message.userId, message.week);
        // Marked before it is sent, so a redelivered message sends nothing twice; a send that
        // fails gives the mark back for the retry.
        if (!(await markDigestSent(deps, message.userId, message.week))) return 'skipped';
        try {
          await deps.mailer.send(weeklyDigestEmail(user, content, deps.appUrl));
        } catch (error) {
          await unmarkDigest(deps, message.userId, message.week).catch((e: unknown) => logger.warn('Digest mark not given back', { error: String(e) }));
          throw error;
        }
        return 'sent';
      }
    }
  };

/** The seven days before `week` (00:00 UTC): projects created (ids are time-ordered) and notifications. */
async function digestContent(deps: NotificationMailDeps, userId: string, week: string): Promise<DigestContent> {
  const end = new Date(`${week}T00:00:00.000Z`);
  const start = new Date(end.getTime() - 7 * DAY_MS);
  const between = async (pk: string, prefix: string) => {
    return queryItems(deps.db, {
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': `${prefix}${timeOrderedIdFloor(start)}`, ':to': `${prefix}${timeOrderedIdFloor(end)}` },
      ScanIndexForward: false,
    });
  };
  const [projects, notifications, unread] = await Promise.all([
    between(keys.projectsOf(userId).PK, keys.projectsOf(userId).SKPrefix),
    between(keys.notificationsOf(userId).PK, keys.notificationsOf(userId).SKPrefix),
    unreadKeys(deps, userId, end),
  ]);
  return {
    week,
    // Only project items: a project's own sub-items (none today) would share the prefix.
    projects: projects.filter((p) => p.entityType === 'Project').map((p) => ({ id: String(p.id), name: String(p.name ?? ''), accountCount: Number(p.accountCount ?? 0) })),
    notifications: notifications.map((n) => ({ title: String(n.title ?? ''), createdAt: String(n.createdAt ?? '') })),
    unreadCount: unread.length,
  };
}

/** Records the week on the user's digest subscription; false when it was sent already or the user unsubscribed. */
async function markDigestSent(deps: NotificationMailDeps, userId: string, week: string): Promise<boolean> {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.digestSubscriber(userId),
        UpdateExpression: 'SET lastDigestWeek = :week',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastDigestWeek) OR lastDigestWeek <> :week)',
        ExpressionAttributeValues: { ':week': week },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

async function unmarkDigest(deps: NotificationMailDeps, userId: string, week: string): Promise<void> {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.digestSubscriber(userId),
        UpdateExpression: 'REMOVE lastDigestWeek',
        ConditionExpression: 'lastDigestWeek = :week',
        ExpressionAttributeValues: { ':week': week },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
