import { describe, expect, it } from 'vitest';
import { chunkPlan, MAIL_CHUNK_ACCOUNTS } from '../../functions/mail/credential-sends';
import { CLAIM_GROUP, claimGroupStarts, MAIL_CHUNK_BUDGET_MS, mailChunkAccounts, MAX_MAIL_CHUNK_ACCOUNTS, sendSpacingMs } from '../../functions/mail/send-credentials';
import { customerShare, nextUtcMidnight, rateWindow } from '../../functions/mail/send-share';
import { blockStart, STATE_BLOCK_ROWS } from '../../functions/accounts/account-states';

/**
 * The installation's SES rate shared between customers (functions/mail/send-share.ts): the
 * window's size and limit, and each customer's share of it. How deliveries take their shares
 * through the table: test/integration/mail-fair-share.test.ts.
 */
describe('the shared SES rate', () => {
  it('leaves the reserved share free (Cognito\'s codes) and makes windows of at least 4 e-mails', () => {
    expect(rateWindow({ rate: 14, reservedShare: 0.1 })).toEqual({ windowMs: 1000, limit: 12 });
    expect(rateWindow({ rate: 200, reservedShare: 0.1 })).toEqual({ windowMs: 1000, limit: 180 });
    // The SES sandbox's 1 a second: 5-second windows of 4 (0.8 a second, 0.2 left for Cognito).
    expect(rateWindow({ rate: 1, reservedShare: 0.1 })).toEqual({ windowMs: 5000, limit: 4 });
    // A reserve is at most half the rate; unpaced: no window.
    expect(rateWindow({ rate: 10, reservedShare: 0.9 })).toEqual({ windowMs: 1000, limit: 5 });
    expect(rateWindow({ rate: 0, reservedShare: 0.1 }).limit).toBe(0);
  });

  it('gives each customer half an even split plus a part by how soon it would finish: a small send gets most of the rate, a large one keeps at least half its even share', () => {
    const limit = 12;
    const needs = new Map([['large', 50_000], ['small', 100]]);
    const small = customerShare(limit, needs, 'small');
    const large = customerShare(limit, needs, 'large');
    expect(small + large).toBeLessThanOrEqual(limit);
    expect(small).toBeGreaterThanOrEqual(8);
    expect(large).toBeGreaterThanOrEqual(3);
    // Two large sends: even.
    const even = new Map([['a', 50_000], ['b', 40_000]]);
    expect(Math.abs(customerShare(limit, even, 'a') - customerShare(limit, even, 'b'))).toBeLessThanOrEqual(1);
    // Alone: the whole window.
    expect(customerShare(limit, new Map([['a', 50_000]]), 'a')).toBe(limit);
    // 100 customers at once: every one at least 1 a window, the total near the limit.
    const many = new Map(Array.from({ length: 100 }, (_, i) => [`c${i}`, 1000 + i]));
    expect(customerShare(180, many, 'c0')).toBeGreaterThanOrEqual(1);
    // A customer that has sent everything (it left the window: need 0) takes no share.
    expect(customerShare(limit, new Map([['a', 50_000], ['done', 0]]), 'a')).toBe(limit);
    expect(customerShare(limit, new Map([['large', 50_000], ['small', 100], ['done', 0]]), 'small')).toBe(small);
  });

  it('a customer capped for the day resumes at the next 00:00 UTC', () => {
    expect(nextUtcMidnight(Date.parse('2026-11-28T14:05:00Z'))).toBe('2026-11-29T00:00:00.000Z');
  });
});

describe('the size of a send\'s chunks', () => {
  it('is as large as three quarters of a delivery\'s budget at the paced rate allows, whole state blocks, within the bounds', () => {
    // 14/s over 2 workers: a send every 144 ms per worker; 200 accounts take 28.8 s of the 40 s budget.
    expect(mailChunkAccounts(10_000, 14, 2)).toBe(200);
    expect(200 * sendSpacingMs(14, 2)).toBeLessThanOrEqual(0.75 * MAIL_CHUNK_BUDGET_MS);
    // Unpaced: the largest chunk; a slow rate: never below the default.
    expect(mailChunkAccounts(10_000, 0, 2)).toBe(MAX_MAIL_CHUNK_ACCOUNTS);
    expect(mailChunkAccounts(10_000, 2, 2)).toBe(MAIL_CHUNK_ACCOUNTS);
    for (const [total, rate] of [[10_000, 14], [10_000, 0], [1_000_000, 50], [3_000, 0], [1, 0], [7_777, 31]] as const) {
      const size = mailChunkAccounts(total, rate, 2);
      expect(size % STATE_BLOCK_ROWS).toBe(0);
      expect(size).toBeGreaterThanOrEqual(MAIL_CHUNK_ACCOUNTS);
      expect(size).toBeLessThanOrEqual(MAX_MAIL_CHUNK_ACCOUNTS);
    }
  });

  it('leaves every worker several chunks of a send: a small send keeps the default', () => {
    expect(mailChunkAccounts(300, 0, 2)).toBe(MAIL_CHUNK_ACCOUNTS);
    expect(mailChunkAccounts(2_400, 0, 2)).toBe(300);
    expect(chunkPlan('u', 's', 1, 2_400, undefined, mailChunkAccounts(2_400, 0, 2))).toHaveLength(8);
  });

  it('plans every row of every shard once, in ranges of one shard', () => {
    for (const [shards, maxRow, size] of [[1, 10_000, 500], [10, 10_000, 500], [3, 1_234, 200], [16, 50_001, 300]] as const) {
      const chunks = chunkPlan('u', 's', shards, maxRow, undefined, size);
      const seen = new Map<number, number>();
      for (const chunk of chunks) {
        expect(chunk.fromRow).toBeLessThanOrEqual(chunk.toRow);
        for (let row = chunk.fromRow; row <= chunk.toRow; row++) if (row % shards === chunk.shard) seen.set(row, (seen.get(row) ?? 0) + 1);
      }
      expect(seen.size).toBe(maxRow);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(chunks.map((c) => c.chunk)).toEqual(chunks.map((_, i) => i));
    }
  });
});

describe('claimGroupStarts', () => {
  it('claims at most half a state block at a time, never across two blocks', () => {
    // One shard: rows 1..120 (blocks 1-50, 51-100, 101-150), rows 7 and 60..64 left out (suppressed or not in scope).
    const rows = Array.from({ length: 120 }, (_, i) => i + 1).filter((row) => row !== 7 && (row < 60 || row > 64));
    const starts = claimGroupStarts(rows, 1);
    expect(starts.map((i) => rows[i])).toEqual([1, 27, 51, 81, 101]);
    // Three shards: a shard's block holds every third row over 150 rows.
    const shardRows = Array.from({ length: 80 }, (_, i) => 2 + 3 * i);
    expect(claimGroupStarts(shardRows, 3).map((i) => shardRows[i])).toEqual([2, 77, 152, 227]);
    for (const [list, shards] of [[rows, 1], [shardRows, 3]] as const) {
      const all = claimGroupStarts(list, shards);
      all.forEach((start, g) => {
        const group = list.slice(start, all[g + 1] ?? list.length);
        expect(group.length).toBeGreaterThan(0);
        expect(group.length).toBeLessThanOrEqual(CLAIM_GROUP);
        expect(new Set(group.map((row) => blockStart(row, shards))).size).toBe(1);
      });
    }
    expect(claimGroupStarts([], 1)).toEqual([]);
  });
});
