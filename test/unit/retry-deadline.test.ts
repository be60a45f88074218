import type { Context, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { DEADLINE_MARGIN_MS, RetryBudgetSpentError, withinInvocation, withRetry, workerRetry, type RetryPolicy } from '../../functions/core/dynamo-retry';
import { logger } from '../../functions/core/logger';
import { queueWorker } from '../../functions/core/queue-worker';

const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });

/** A clock the retries' sleeps move, and a policy on it (worker budget: 60 s). */
function fakeClock() {
  let t = 1_000_000;
  const now = () => t;
  const policy: RetryPolicy = { ...workerRetry, random: (max) => max, sleep: async (ms) => void (t += ms), now };
  const attempt = async () => {
    t += 100;
    return Promise.reject(throttled);
  };
  return { now, policy, attempt, elapsed: (from: number) => t - from };
}

describe("retries end before the function's timeout (issue 29, item 4)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("inside an invocation with 10 s left (the mail-events worker's timeout), the 60 s worker budget stops at the deadline less the margin", async () => {
    const clock = fakeClock();
    const start = clock.now();
    const run = withinInvocation({ getRemainingTimeInMillis: () => 10_000 }, () => withRetry('Recording', clock.policy, () => true, clock.attempt), clock.now);
    await expect(run).rejects.toBeInstanceOf(RetryBudgetSpentError);
    expect(clock.elapsed(start)).toBeLessThanOrEqual(10_000 - DEADLINE_MARGIN_MS);
    expect(clock.elapsed(start)).toBeGreaterThan(10_000 - DEADLINE_MARGIN_MS - workerRetry.capMs - 100);
  });

  it('outside an invocation (or with no remaining time known) the policy alone bounds it', async () => {
    for (const context of [undefined, {}]) {
      const clock = fakeClock();
      const start = clock.now();
      await expect(withinInvocation(context, () => withRetry('Recording', clock.policy, () => true, clock.attempt), clock.now)).rejects.toBeInstanceOf(RetryBudgetSpentError);
      expect(clock.elapsed(start)).toBeGreaterThan(workerRetry.budgetMs - workerRetry.capMs - 100);
    }
  });

  it('a queue worker bounds its records by the invocation: a record that keeps being throttled is handed back before the timeout, its failure logged', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    // 2.3 s left: no retry may start after 0.3 s (with the 60 s budget alone this test would time out).
    const context = { awsRequestId: 'r', functionName: 'w', getRemainingTimeInMillis: () => DEADLINE_MARGIN_MS + 300 } as unknown as Context;
    const handler = queueWorker(z.object({ n: z.number() }), () => withRetry('Recording', workerRetry, () => true, async () => Promise.reject(throttled)));
    const event = { Records: [{ messageId: 'a', body: '{"n":1}', receiptHandle: 'a', attributes: {} }] } as unknown as SQSEvent;
    const result = await handler(event, context);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'a' }]);
    expect(errors).toHaveBeenCalledWith('Record failed', expect.objectContaining({ error: expect.stringContaining('within the retry budget') as unknown }));
  });
});
