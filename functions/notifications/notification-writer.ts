import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NOTIFICATION_DAYS, type NotificationKind } from '../../shared/schemas/notifications';
import { timeOrderedIdFrom } from '../core/ids';
import { keys } from '../core/keys';
import { logger } from '../core/logger';

/*
 * Writing a notification, apart from reading them (notification-store.ts): the functions that
 * write one (billing, workers) hold only this PutItem in their bundle.
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
 * Writes a notification with one conditional PutItem. Never throws: a notification is a courtesy,
 * and the job it reports on (a bulk job's end, an export, a webhook) must not fail or be retried
 * because of it. A duplicate (redelivery) is skipped by the condition; other failures are logged.
 * Returns the id when this call wrote it.
 */
export async function recordNotification(deps: NotificationDeps, input: NewNotification): Promise<string | undefined> {
  const id = timeOrderedIdFrom(input.at, `${input.userId}:${input.source}`);
  try {
    await deps.db.send(
      new PutCommand({
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
          // The table's TTL attribute: DynamoDB deletes it after 90 days.
          expiresAt: Math.floor((input.at.getTime() + NOTIFICATION_DAYS * DAY_MS) / 1000),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return id;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    logger.warn('Notification not written', { kind: input.kind, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

