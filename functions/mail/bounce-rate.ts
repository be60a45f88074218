import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { recordNotification } from '../notifications/notification-writer';

/**
 * A customer's recent bounce rate (docs/email.md, "Bounce-rate cut-off"): the credential e-mails
 * it sent (its daily-cap items' `sent`, send-share.ts) and the ones that bounced (`bounced`, added
 * by the SES events worker when an account moves to bounced: mail-events/count-bounces.ts) on the UTC day and the day before.
 * Over MAIL_BOUNCE_CUTOFF, with at least BOUNCE_MIN_SENT e-mails sent, its sends pause until
 * the rate over those two days falls under it (a new day leaves the older one out).
 */
export const BOUNCE_MIN_SENT = 200;
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface BounceRate {
  sent: number;
  bounced: number;
  /** bounced / sent, or 0 below BOUNCE_MIN_SENT (too few to judge). */
  rate: number;
}

/** The customer's bounce rate over today and yesterday (UTC): two reads of its day items. */
export async function recentBounceRate(deps: { db: DynamoDBDocumentClient; tableName: string }, userId: string, now: number): Promise<BounceRate> {
  const days = await Promise.all(
    [now, now - DAY_MS].map(async (at) => (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.mailDay(userId, dayOf(at)), ProjectionExpression: 'sent, bounced' }))).Item),
  );
  const sent = days.reduce((sum, day) => sum + Math.max(0, Number(day?.sent ?? 0)), 0);
  const bounced = days.reduce((sum, day) => sum + Math.max(0, Number(day?.bounced ?? 0)), 0);
  return { sent, bounced, rate: sent >= BOUNCE_MIN_SENT ? bounced / sent : 0 };
}

/** Whether the rate is over the cut-off (0: no cut-off). */
export const overCutoff = (rate: BounceRate, cutoff: number): boolean => cutoff > 0 && rate.sent >= BOUNCE_MIN_SENT && rate.rate > cutoff;

/** The words of a send paused for its bounce rate. */
export const bounceWords = (rate: BounceRate, cutoff: number): string =>
  `${(rate.rate * 100).toFixed(1)}% of your ${rate.sent} e-mails of the last two days bounced (the limit is ${(cutoff * 100).toFixed(1)}%).`;

/**
 * Tells the customer once a UTC day that its credential e-mails are paused for bounces (the
 * notification's id follows from the day: a second chunk or delivery writes nothing new).
 */
export async function notifyBouncesPaused(
  deps: { db: DynamoDBDocumentClient; tableName: string },
  target: { userId: string; projectId: string; projectName: string },
  words: string,
  now: number,
): Promise<void> {
  const day = new Date(Math.floor(now / DAY_MS) * DAY_MS);
  await recordNotification(deps, {
    userId: target.userId,
    kind: 'mail-paused',
    title: 'Credential e-mails paused: too many bounces',
    body: `${words} Sending of "${target.projectName}" waits until the rate falls. Check the addresses in your lists (the bounced ones are on your suppression list in Email Templates). No account fails because of it.`,
    link: `/projects/${target.projectId}`,
    source: `mail-bounces:${day.toISOString().slice(0, 10)}`,
    at: day,
  });
}
