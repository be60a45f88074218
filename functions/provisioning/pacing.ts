/**
 * Pacing of calls to one platform: a token bucket for the request rate, a bound on calls in
 * flight, and the platform's own word on when to come back (Retry-After, X-Rate-Limit-Reset).
 *
 * One chunk delivery at a time calls an integration's platform (its turn:
 * functions/account-jobs/integration-turn.ts), with the integration's whole limit, and the bucket
 * is handed from one holder to the next: however many workers run, an integration's calls keep
 * to its own limit (docs/provisioning.md, Pacing).
 */

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long the platform asks us to wait, from its answer's headers: Retry-After in seconds or as
 * an HTTP date (RFC 9110), or Okta's X-Rate-Limit-Reset (epoch seconds when the window resets).
 * Undefined when it says nothing usable.
 */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now: number = Date.now()): number | undefined {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const retryAfter = header('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = header('x-rate-limit-reset')?.trim();
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now);
  return undefined;
}

/** Where a token bucket stood: its tokens at `at` (ms) and the end of a 429's wait; carried from one holder of an integration's turn to the next. */
export interface BucketState {
  tokens: number;
  at: number;
  heldUntil: number;
}

/**
 * A token bucket: `perMinute` requests a minute, at most `burst` at once after a quiet spell.
 * `take()` resolves when a request may go. A 429's wait pauses the whole bucket (`holdFor`): the
 * platform's window is shared by every call, not just the one that was refused. `from`: where
 * the previous holder left it (its tokens refilled since, its wait kept), else full.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private heldUntil = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly perMinute: number | undefined,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = realSleep,
    from?: BucketState,
  ) {
    this.tokens = burst;
    this.last = now();
    if (from && Number.isFinite(from.tokens) && Number.isFinite(from.at) && from.at <= this.last) {
      if (perMinute) this.tokens = Math.min(burst, Math.max(0, from.tokens) + (this.last - from.at) * (perMinute / 60_000));
      this.heldUntil = Number.isFinite(from.heldUntil) ? from.heldUntil : 0;
    }
  }

  /** Where it stands now, for the next holder. */
  state(): BucketState {
    const now = this.now();
    const tokens = this.perMinute ? Math.min(this.burst, this.tokens + (now - this.last) * (this.perMinute / 60_000)) : this.burst;
    return { tokens, at: now, heldUntil: this.heldUntil };
  }

  holdFor(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.now() + ms);
  }

  /** Waits its turn (calls are served in order). */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.next());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async next(): Promise<void> {
    for (;;) {
      const now = this.now();
      if (now < this.heldUntil) {
        await this.sleep(this.heldUntil - now);
        continue;
      }
      if (!this.perMinute) return;
      const perMs = this.perMinute / 60_000;
      this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * perMs);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.sleep(Math.ceil((1 - this.tokens) / perMs));
    }
  }
}

/**
 * Calls evenly spaced, at least `intervalMs` apart, the first one too (counted from its creation):
 * unlike the token bucket it never catches up after a late call, so n calls always span at least
 * (n - 1) x intervalMs. A sender that must never pass a rate in any one-second window (SES's
 * sending quota) uses it: its previous invocation's last call may have been just before this one
 * was created. `holdFor` pauses every call (a throttled answer).
 */
export class EvenPacer {
  private next: number;
  private heldUntil = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = realSleep,
  ) {
    this.next = now() + intervalMs;
  }

  holdFor(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.now() + ms);
  }

  /** Waits its turn (calls are served in order). */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.wait());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async wait(): Promise<void> {
    for (;;) {
      const now = this.now();
      const at = Math.max(this.next, this.heldUntil);
      if (now >= at) {
        this.next = now + this.intervalMs;
        return;
      }
      await this.sleep(at - now);
    }
  }
}

/** Runs `work` over `items` with at most `concurrency` at once; results in order. */
export async function mapBounded<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!, i);
    }),
  );
  return results;
}

/** Full-jitter backoff for the n-th retry (1-based) of a 5xx or timeout: up to base * 2^(n-1), capped. */
export const backoffMs = (attempt: number, random: (max: number) => number, baseMs = 500, capMs = 8000): number =>
  random(Math.min(capMs, baseMs * 2 ** (attempt - 1)));
