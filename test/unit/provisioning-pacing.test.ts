import { describe, expect, it } from 'vitest';
import { backoffMs, mapBounded, retryAfterMs, TokenBucket } from '../../functions/provisioning/pacing';
import { chunkPlan, PROVISIONING_CHUNK_ACCOUNTS } from '../../functions/provisioning/provisioning-jobs';
import { failureOf, platformMessage } from '../../functions/provisioning/platform-client';

/** A clock that only moves when something sleeps: the bucket's waits are measured, not waited. */
function fakeTime() {
  let now = 1_000_000;
  const slept: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
    slept,
  };
}

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it('reads Retry-After in seconds and as an HTTP date, and Okta X-Rate-Limit-Reset', () => {
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(retryAfterMs({ 'retry-after': 'Mon, 23 Nov 2026 10:00:07 GMT' }, now)).toBe(7000);
    expect(retryAfterMs({ 'x-rate-limit-reset': String(now / 1000 + 12) }, now)).toBe(12_000);
    // A reset in the past means now; nothing usable means undefined.
    expect(retryAfterMs({ 'x-rate-limit-reset': String(now / 1000 - 5) }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });
});

describe('TokenBucket', () => {
  it("is handed from one holder of an integration's turn to the next: no fresh burst, the tokens refilled for the time between, a 429's wait kept", async () => {
    const time = fakeTime();
    const first = new TokenBucket(600, 5, time.now, time.sleep);
    for (let i = 0; i < 25; i++) await first.take();
    const left = first.state();
    expect(left.tokens).toBeLessThan(1);
    // The next delivery takes the turn 300 ms later: 3 tokens refilled, not a full burst of 5.
    await time.sleep(300);
    const next = new TokenBucket(600, 5, time.now, time.sleep, left);
    const start = time.now();
    for (let i = 0; i < 13; i++) await next.take();
    // 3 at once, then 10 more at 10 a second: 1 s (a fresh bucket: 5 at once, 0.8 s).
    expect(time.now() - start).toBeGreaterThanOrEqual(999);
    // Over both holders, 38 calls in 2.3 s plus the second: never more than the burst plus the rate.
    expect(time.now() - 1_000_000).toBeGreaterThanOrEqual(((38 - 5) / 10) * 1000 - 1);

    // A 429's wait (holdFor) outlives its holder.
    const held = new TokenBucket(600, 5, time.now, time.sleep);
    held.holdFor(4000);
    const after = new TokenBucket(600, 5, time.now, time.sleep, held.state());
    const at = time.now();
    await after.take();
    expect(time.now() - at).toBe(4000);
    // A state from another clock (later than now) is not trusted: a full bucket.
    const odd = new TokenBucket(600, 5, time.now, time.sleep, { tokens: 0, at: time.now() + 60_000, heldUntil: 0 });
    const oddAt = time.now();
    for (let i = 0; i < 5; i++) await odd.take();
    expect(time.now() - oddAt).toBe(0);
  });

  it('lets a burst through, then paces to the rate', async () => {
    const time = fakeTime();
    const bucket = new TokenBucket(600, 5, time.now, time.sleep);
    const start = time.now();
    for (let i = 0; i < 25; i++) await bucket.take();
    // 5 at once, then 20 more at 10 a second: 2 s.
    expect(time.now() - start).toBe(2000);
  });

  it('holds every caller for a 429 wait, exactly as long as asked', async () => {
    const time = fakeTime();
    const bucket = new TokenBucket(undefined, 1, time.now, time.sleep);
    await bucket.take();
    bucket.holdFor(1500);
    const before = time.now();
    await Promise.all([bucket.take(), bucket.take()]);
    expect(time.now() - before).toBe(1500);
  });

  it('without a rate, never waits', async () => {
    const time = fakeTime();
    const bucket = new TokenBucket(undefined, 1, time.now, time.sleep);
    for (let i = 0; i < 100; i++) await bucket.take();
    expect(time.slept).toEqual([]);
  });
});

describe('mapBounded and backoff', () => {
  it('keeps at most `concurrency` calls in flight and the results in order', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3, 0], 2, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
  });

  it('full jitter grows with the attempt and is capped', () => {
    const max = (attempt: number) => backoffMs(attempt, (m) => m);
    expect([max(1), max(2), max(3), max(10)]).toEqual([500, 1000, 2000, 8000]);
    expect(backoffMs(3, () => 0)).toBe(0);
  });
});

describe('chunkPlan', () => {
  it('covers every row of every shard once, about PROVISIONING_CHUNK_ACCOUNTS accounts a chunk', () => {
    for (const [shards, maxRow] of [[1, 1], [1, 250], [16, 50_000], [3, 7]] as const) {
      const chunks = chunkPlan('u', 'j', shards, maxRow);
      expect(chunks.map((c) => c.chunk)).toEqual(chunks.map((_, i) => i));
      for (let shard = 0; shard < shards; shard++) {
        const rows = chunks.filter((c) => c.shard === shard).flatMap((c) => Array.from({ length: c.toRow - c.fromRow + 1 }, (_, i) => c.fromRow + i));
        expect(rows).toEqual(Array.from({ length: maxRow }, (_, i) => i + 1));
      }
      for (const c of chunks) expect(Math.ceil((c.toRow - c.fromRow + 1) / shards)).toBeLessThanOrEqual(PROVISIONING_CHUNK_ACCOUNTS);
    }
    // The same plan every time: a start that runs twice queues the same chunks.
    expect(chunkPlan('u', 'j', 16, 50_000)).toEqual(chunkPlan('u', 'j', 16, 50_000));
  });
});

describe('platform answers', () => {
  it('quotes the platform in its own words (SCIM, Okta, Graph, Salesforce), never more than 500 characters', () => {
    expect(platformMessage({ status: 409, json: { detail: 'userName is not unique', scimType: 'uniqueness' }, text: '' })).toBe('HTTP 409: userName is not unique');
    expect(platformMessage({ status: 400, json: { errorSummary: 'Api validation failed: password', errorCauses: [{ errorSummary: 'password: too short' }] }, text: '' })).toBe(
      'HTTP 400: Api validation failed: password: password: too short',
    );
    expect(platformMessage({ status: 400, json: { error: { code: 'Request_BadRequest', message: 'Another object with the same value for property userPrincipalName already exists.' } }, text: '' })).toContain('userPrincipalName');
    expect(platformMessage({ status: 400, json: [{ message: 'Duplicate Username', errorCode: 'DUPLICATE_USERNAME' }], text: '' })).toBe('HTTP 400: Duplicate Username');
    expect(platformMessage({ status: 502, json: undefined, text: '<html>' })).toBe('HTTP 502');
    expect(platformMessage({ status: 400, json: { detail: 'x'.repeat(2000) }, text: '' }).length).toBe(500);
  });

  it('tells retryable, rate-limited and refused answers apart', () => {
    const answer = (status: number, headers: Record<string, string> = {}) => ({ status, headers, text: '', json: undefined });
    expect(failureOf(answer(429, { 'retry-after': '2' }))).toMatchObject({ retryable: true, rateLimited: true, retryAfterMs: 2000 });
    expect(failureOf(answer(503)).rateLimited).toBeUndefined();
    expect(failureOf(answer(503))).toMatchObject({ retryable: true });
    expect(failureOf(answer(401))).toMatchObject({ retryable: false, authRefused: true });
    expect(failureOf(answer(403))).toMatchObject({ authRefused: true });
    expect(failureOf(answer(400))).toMatchObject({ retryable: false });
    expect(failureOf(answer(400)).authRefused).toBeUndefined();
    expect(failureOf(answer(302)).message).toContain('redirects are not followed');
  });
});
