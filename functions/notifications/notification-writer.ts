import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NOTIFICATION_DAYS, type NotificationKind } from '../../shared/schemas/notifications';
import { timeOrderedIdFrom } from '../core/ids';
import { keys } from '../core/keys';
import { logger } from '../core/logger';

/*
 * Writing a notification, apart from reading them (notification-store.ts): the functions that
 * write one (billing, workers) hold only these PutItems in their bundle.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

/** One notification to write: `source` names the event, so the same event written twice is one notification. */
export interface NewNotification {
  userId: string;
  kind: NotificationKind;
  title: string;
  body: string;
  link: string;
  /** e.g. `bulk-job:<jobId>:completed`: with `at`, it fixes the notification's id. */
  source: string;
  at: Date;
}

export interface NotificationDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * Writes a notification and its unread item with one transaction of two PutItems. Never throws: a notification is a courtesy,
 * and the job it reports on (a bulk job's end, an export, a webhook) must not fail or be retried
 * because of it. A duplicate (redelivery) is skipped by the condition; other failures are logged.
 * Returns the id when this call wrote it.
 */
export async function recordNotification(deps: NotificationDeps, input: NewNotification): Promise<string | undefined> {
  const id = timeOrderedIdFrom(input.at, `${input.userId}:${input.source}`);
  // The table's TTL attribute: DynamoDB deletes both items after 90 days.
  const expiresAt = Math.floor((input.at.getTime() + NOTIFICATION_DAYS * DAY_MS) / 1000);
  try {
    // The notification and its unread item together (the bell counts the unread items): a
    // duplicate (redelivery) cancels both, so a notification read since is never counted again.
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: deps.tableName,
              Item: {
                ...keys.notification(input.userId, id),
                entityType: 'Notification',
                id,
                kind: input.kind,
                title: input.title,
                body: input.body,
                link: input.link,
                read: false,
                createdAt: input.at.toISOString(),
                expiresAt,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          { Put: { TableName: deps.tableName, Item: { ...keys.unreadNotification(input.userId, id), entityType: 'UnreadNotification', id, expiresAt } } },
        ],
      }),
    );
    return id;
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return undefined;
    logger.warn('Notification not written', { kind: input.kind, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

