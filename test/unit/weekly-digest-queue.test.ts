import { describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DIGEST_CONCURRENCY, queueWeeklyDigest } from '../../functions/schedules/queue-weekly-digest';

/**
 * The digest run reads each subscriber's user item: a page holds thousands of subscribers, and
 * reading them all at once would open thousands of requests. A table stand-in that counts the
 * reads in flight (the run's own concurrency is what is under test, not DynamoDB).
 */
function tableOf(subscribers: number) {
  let inFlight = 0;
  let most = 0;
  const db = {
    send: async (command: unknown) => {
      if (command instanceof QueryCommand) return { Items: Array.from({ length: subscribers }, (_, i) => ({ userId: `u${i}` })) };
      if (command instanceof GetCommand) {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
        return { Item: { subscriptionPlan: 'pro', subscriptionStatus: 'active' } };
      }
      throw new Error('unexpected command');
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, most: () => most };
}

describe('queueWeeklyDigest', () => {
  it(`reads at most ${DIGEST_CONCURRENCY} subscribers at once and queues every one`, async () => {
    const table = tableOf(500);
    const queued: string[] = [];
    const result = await queueWeeklyDigest({ db: table.db, tableName: 't', mail: async (m) => void queued.push((m as { userId: string }).userId), now: () => new Date('2026-11-23T08:00:00Z') })();
    expect(result.queued).toHaveLength(500);
    expect(new Set(queued).size).toBe(500);
    expect(table.most()).toBeGreaterThan(1);
    expect(table.most()).toBeLessThanOrEqual(DIGEST_CONCURRENCY);
  });
});
