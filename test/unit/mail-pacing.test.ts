import { describe, expect, it } from 'vitest';
import { chunkPlan, MAIL_CHUNK_ACCOUNTS } from '../../functions/mail/credential-sends';
import { CLAIM_GROUP, claimGroupStarts, MAIL_CHUNK_BUDGET_MS, mailChunkAccounts, MAX_MAIL_CHUNK_ACCOUNTS, pacerFor, sendSpacingMs } from '../../functions/mail/send-credentials';
import { blockStart, STATE_BLOCK_ROWS } from '../../functions/accounts/account-states';

/**
 * The mail workers' pacing at SES's default 14 e-mails a second over the mail queue's two
 * concurrent invocations: each invocation is a new pacer (a chunk's delivery), one after another
 * in each of two chains, and no one-second window (closed) may hold more than 14 sends.
 */
async function runChain(startMs: number, invocations: number, sendsEach: number, rate: number, workers: number): Promise<number[]> {
  let now = startMs;
  const clock = () => now;
  const sleep = async (ms: number) => void (now += ms);
  const times: number[] = [];
  for (let i = 0; i < invocations; i++) {
    // A new delivery starts the moment the last one ended (its last send just before).
    const pacer = pacerFor(rate, workers, clock, sleep);
    for (let k = 0; k < sendsEach; k++) {
      await pacer.take();
      times.push(now);
      // Some work between sends (SES's answer, a write) of varying length.
      now += (k * 7) % 23;
    }
  }
  return times;
}

const busiestSecond = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - 1000) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
};

describe('mail pacing across workers', () => {
  it('never passes 14 sends in any one-second window, new deliveries included, and keeps close to the rate', async () => {
    const a = await runChain(0, 8, 40, 14, 2);
    const b = await runChain(37, 8, 40, 14, 2);
    const all = [...a, ...b];
    expect(busiestSecond(a)).toBeLessThanOrEqual(7);
    expect(busiestSecond(all)).toBeLessThanOrEqual(14);
    // 640 sends at 14/s take at least 45.7 s; the pacing costs a few per cent more, not double.
    const span = Math.max(...all) - Math.min(...all);
    expect(span / 1000).toBeLessThan((640 / 14) * 1.1);
  });

  it('a throttled answer holds every send of the worker', async () => {
    let now = 0;
    const pacer = pacerFor(0, 2, () => now, async (ms) => void (now += ms));
    await pacer.take();
    pacer.holdFor(1500);
    await pacer.take();
    expect(now).toBe(1500);
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
