import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { queryPages } from '../core/query-pages';
import { logger } from '../core/logger';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { mapBounded } from '../provisioning/pacing';
import { effectivePlan } from '../usage/plan-usage';

export interface WeeklyDigestDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  mail: QueueMail;
  now: () => Date;
}

/** Subscribers read (GetItem) and queued at once. */
export const DIGEST_CONCURRENCY = 16;

/** The UTC day of a moment, YYYY-MM-DD. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * The weekly digest run (EventBridge Scheduler, Mondays 08:00 UTC; locally a timer and
 * `npm run digest`): every user subscribed to the digest (keys.digestSubscribers, written with
 * their settings) who is Pro now gets one message on the mail queue. The mail worker reads the
 * week's content and sends it once per week (a second run of the same week sends nothing).
 * `week`: the day the digest's seven days end (exclusive); today by default.
 */
export const queueWeeklyDigest =
  (deps: WeeklyDigestDeps) =>
  async (options: { week?: string } = {}): Promise<{ week: string; queued: string[]; skipped: number }> => {
    const week = options.week ?? dayOf(deps.now());
    const subscribers = keys.digestSubscribers();
    const queued: string[] = [];
    let skipped = 0;
    const query = { TableName: deps.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': subscribers.PK, ':prefix': subscribers.SKPrefix } };
    for await (const page of queryPages(deps.db, query)) {
      // A page (up to 1 MB of small items: thousands of users) at a time, its users read
      // DIGEST_CONCURRENCY at once (all at once would open thousands of requests and be throttled).
      await mapBounded(page.Items ?? [], DIGEST_CONCURRENCY, async (item) => {
          const userId = String(item.userId);
          try {
            const { Item: user } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId) }));
            if (!user || effectivePlan(user.subscriptionPlan, user.subscriptionStatus) !== 'pro') {
              skipped++;
              return;
            }
            await deps.mail({ type: 'weekly-digest', userId, week });
            queued.push(userId);
          } catch (error) {
            // One user's failure does not stop the others' digests.
            skipped++;
            logger.warn('Weekly digest not queued', { userId, error: error instanceof Error ? error.message : String(error) });
          }
      });
    }
    return { week, queued, skipped };
  };
