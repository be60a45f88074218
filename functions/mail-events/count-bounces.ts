import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { SesEvent } from './ses-event';

/** The customer's UTC day item the bounces are added to: the one its daily allowance is counted on (functions/mail/send-share.ts, bounce-rate.ts). */
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Counts the bounces the SES events worker applied (moved accounts only: a redelivered event moves
 * nothing, so it is not counted twice), one UpdateItem per customer of the batch. A count that
 * fails is logged, not retried: the cut-off is a safeguard, and the events are applied already.
 */
export async function countBounces(deps: { db: DynamoDBDocumentClient; tableName: string }, bounces: ReadonlyMap<string, number>, now: number): Promise<void> {
  await Promise.all(
    [...bounces].map(([userId, n]) =>
      deps.db
        .send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: keys.mailDay(userId, dayOf(now)),
            UpdateExpression: 'SET entityType = if_not_exists(entityType, :type), expiresAt = if_not_exists(expiresAt, :ttl) ADD bounced :n',
            ExpressionAttributeValues: { ':type': 'MailDay', ':ttl': Math.floor(now / 1000) + 3 * 86_400, ':n': n },
          }),
        )
        .catch((error: unknown) => logger.warn('Bounces not counted', { userId, bounces: n, error: error instanceof Error ? error.message : String(error) })),
    ),
  );
}

/** The bounces of a batch of SES events that moved an account to bounced, per customer (the e-mail's `userId` tag). */
export function bouncesByCustomer(events: readonly SesEvent[], results: readonly unknown[]): Map<string, number> {
  const found = new Map<string, number>();
  events.forEach((event, i) => {
    const userId = event.mail.tags?.userId?.[0];
    if (results[i] !== 'moved' || (event.eventType ?? event.notificationType) !== 'Bounce' || !userId) return;
    found.set(userId, (found.get(userId) ?? 0) + 1);
  });
  return found;
}
