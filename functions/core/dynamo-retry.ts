import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/**
 * Retries of what DynamoDB answers under load on AWS (never on DynamoDB Local): throttling
 * (ProvisionedThroughputExceeded, ThrottlingException, RequestLimitExceeded, and
 * BatchWriteItem's UnprocessedItems) and TransactionConflict (two transactions on one item at
 * once, e.g. three workers recording chunks of the same job).
 *
 * Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): wait a random time
 * between 0 and min(cap, base * 2^attempt), so writers that were throttled together do not
 * come back together. Retries stop when the time budget is spent, not after a fixed count: a
 * worker with minutes left should keep trying, a request with seconds left should not.
 */
export interface RetryPolicy {
  /** Longest time from the first attempt after which no new attempt starts. */
  budgetMs: number;
  baseMs: number;
  capMs: number;
  /** A random integer in [0, max]: injected so tests can pin it. */
  random?: (max: number) => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export const workerRetry: RetryPolicy = { budgetMs: 60_000, baseMs: 50, capMs: 5_000 };

/**
 * The end of the Lambda invocation a retry runs in (epoch ms), set by the worker and HTTP
 * middleware from the context's remaining time. A budget longer than what the function has left
 * (the 60 s worker budget in the mail-events worker's 10 s, the bulk worker's 50 s) would be cut
 * by the timeout, mid-write and with nothing logged: no attempt starts after the deadline less
 * DEADLINE_MARGIN_MS, so the failure is thrown, logged and handed back to the queue in time.
 */
const invocationDeadline = new AsyncLocalStorage<number>();
/** Kept after the last attempt for what follows it: recording the failure, answering, handing a record back. */
export const DEADLINE_MARGIN_MS = 2_000;

/** Runs `run` with retries bounded by the invocation's remaining time (a context without it: the policies' budgets alone). */
export function withinInvocation<T>(context: { getRemainingTimeInMillis?: () => number } | undefined, run: () => Promise<T>, now: () => number = Date.now): Promise<T> {
  const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  if (typeof remaining !== 'number' || !Number.isFinite(remaining) || remaining <= 0) return run();
  return invocationDeadline.run(now() + remaining, run);
}
export const requestRetry: RetryPolicy = { budgetMs: 8_000, baseMs: 25, capMs: 1_000 };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const defaultRandom = (max: number) => (max <= 0 ? 0 : randomInt(0, max + 1));

/** Error names AWS uses for throttling (the SDK's own few retries may run out first). */
const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'LimitExceededException']);

export const isThrottling = (error: unknown): boolean => error instanceof Error && THROTTLING.has(error.name);

/** A transaction cancelled only because another transaction held one of its items: safe to run again. */
export const isTransactionConflict = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict') &&
  (error.CancellationReasons ?? []).every((r) => !r.Code || r.Code === 'None' || r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError');

/** A batch call's unprocessed part (a throttled partition), thrown to retry it with withRetry. */
export class UnprocessedItemsError extends Error {
  constructor(count: number) {
    super(`${count} items left unprocessed (throttled)`);
    this.name = 'UnprocessedItemsError';
  }
}

/** What a batch call retries: throttling, or the part of it DynamoDB left unprocessed. */
export const isBatchRetryable = (error: unknown): boolean => isThrottling(error) || error instanceof UnprocessedItemsError;

export class RetryBudgetSpentError extends Error {
  constructor(what: string, attempts: number, cause: unknown) {
    super(`${what}: still refused after ${attempts} attempts within the retry budget`, { cause });
    this.name = 'RetryBudgetSpentError';
  }
}

/** Waits before attempt `attempt` (1 = first retry): full jitter. */
export const jitterDelay = (policy: RetryPolicy, attempt: number): number =>
  (policy.random ?? defaultRandom)(Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 20)));

/**
 * Runs `attempt` until it returns, retrying while `retryable(error)` and the budget lasts. The
 * last error is kept as the cause when the budget is spent.
 */
export async function withRetry<T>(what: string, policy: RetryPolicy, retryable: (error: unknown) => boolean, attempt: () => Promise<T>): Promise<T> {
  const now = policy.now ?? Date.now;
  const sleep = policy.sleep ?? defaultSleep;
  const started = now();
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error)) throw error;
      const wait = jitterDelay(policy, tries);
      if (now() + wait - started > policy.budgetMs) throw new RetryBudgetSpentError(what, tries, error);
      const deadline = invocationDeadline.getStore();
      if (deadline !== undefined && now() + wait > deadline - DEADLINE_MARGIN_MS) throw new RetryBudgetSpentError(what, tries, error);
      await sleep(wait);
    }
  }
}
