import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aesGcmCipher } from '../../functions/core/encryption';
import { ServiceUnavailableError, WriteInterruptedError } from '../../functions/core/errors';
import type { BulkJobStarter } from '../../functions/bulk/bulk-jobs';
import type { BulkStore } from '../../functions/bulk/bulk-store';
import { LOCK_TTL_MS, SYNC_LOCK_TTL_MS, createBulkAccounts } from '../../functions/bulk/create-bulk-accounts';
import { answersAtOnce, bulkCreateBodySchema, SYNC_BYTE_LIMIT, SYNC_ROW_LIMIT } from '../../shared/schemas/bulk';
import { rowBytes } from '../../functions/bulk/check-rows';

/** How long a creation holds its user's lock, and what a failure after writing began says (review of issue 9). */
const NOW = new Date('2026-11-22T12:00:00.000Z');

function harness(options: { writeFails?: boolean; writeFailsOnce?: boolean; activityFails?: boolean; jobFails?: boolean; finishFails?: boolean; now?: () => Date } = {}) {
  let finished = 0;
  const locks: { until: number; now: number }[] = [];
  const released: unknown[] = [];
  const claimed: unknown[] = [];
  const renewed: unknown[] = [];
  const written: unknown[][] = [];
  let writes = 0;
  const store = {
    usage: async () => ({ plan: 'pro', projectCount: 0, accountCount: 0, stored: { projectCount: 0, accountCount: 0 } }),
    reserve: async (_userId: string, _usage: unknown, _accounts: number, lock: { until: number; now: number }) => {
      locks.push(lock);
      return { accountsBefore: 0 };
    },
    release: async (...args: unknown[]) => void released.push(args),
    renewLock: async (...args: unknown[]) => {
      renewed.push(args);
      return { since: NOW.getTime() };
    },
    finish: async () => {
      if (options.finishFails) throw new Error('TransactionConflict');
      finished++;
    },
    takenUsernames: async () => new Set<string>(),
    adoptStoredUsernames: async () => undefined,
    claimUsernames: async (...args: unknown[]) => void claimed.push(args),
    countAttributes: async () => undefined,
    writeAll: async (items: { entityType?: unknown }[]) => {
      if (options.activityFails && items.some((item) => item.entityType === 'Activity')) throw new Error('ProvisionedThroughputExceededException');
      if (options.writeFails || (options.writeFailsOnce && writes++ === 0)) throw new Error('ProvisionedThroughputExceededException');
      written.push(items);
    },
  } as unknown as BulkStore;
  const jobs: BulkJobStarter = {
    start: async ({ project, rows, now }) => {
      if (options.jobFails) throw new Error('DynamoDB is unavailable');
      let total = 0;
      for await (const _row of rows) total++;
      return { id: project.id, projectId: project.id, status: 'queued', total, done: 0, failedCount: 0, createdAt: now.toISOString(), updatedAt: now.toISOString() };
    },
  };
  let id = 0;
  const create = createBulkAccounts({
    store,
    timeZone: async () => 'UTC',
    cipher: async () => aesGcmCipher(randomBytes(32)),
    randomBytes,
    now: options.now ?? (() => NOW),
    newId: () => `01JDXK8P4ZJ0Q3Q9Y5N6W7E8R${id++}`,
    jobs,
    integration: async () => undefined,
  });
  return { create, locks, released, claimed, renewed, written, finished: () => finished };
}

const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ firstName: 'Ann', lastName: 'Lee', email: `a${i}@example.com` }));
const input = (count: number) => bulkCreateBodySchema.parse({ projectName: 'Hires', csvData: rows(count) });

describe('the username lock of a bulk creation', () => {
  it('is held a minute at most when the answer comes at once (a request that dies never locks its user out for long)', async () => {
    const { create, locks } = harness();
    await create('user-1', input(3));
    expect(locks).toEqual([{ owner: expect.any(String) as unknown, now: NOW.getTime(), until: NOW.getTime() + SYNC_LOCK_TTL_MS }]);
    expect(SYNC_LOCK_TTL_MS).toBeLessThanOrEqual(60_000);
  });

  it("is held a job's time when the rows become a job (its workers give it back)", async () => {
    const { create, locks } = harness();
    await create('user-1', input(SYNC_ROW_LIMIT + 1));
    expect(locks[0]!.until).toBe(NOW.getTime() + LOCK_TTL_MS);
  });

  it('claims no name once the lock may have lapsed (a job may have taken it and write its names without conditions): 503, nothing written, all given back', async () => {
    let calls = 0;
    // The lock is taken at NOW; the request is then held up for 45 s before it claims.
    const { create, claimed, released } = harness({ now: () => new Date(NOW.getTime() + (calls++ === 0 ? 0 : 45_000)) });
    const failure = await create('user-1', input(3)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect(claimed).toEqual([]);
    expect(released).toEqual([['user-1', { projects: 1, accounts: 3 }, expect.any(String)]]);
  });

  it('a write that fails part-way never answers 500: the same rows become a job (same project, the lock for a job\'s time, kept), and the answer is the job', async () => {
    const { create, released, renewed } = harness({ writeFailsOnce: true });
    const result = await create('user-1', input(3));
    expect(result.kind).toBe('queued');
    expect(result.project).toMatchObject({ name: 'Hires', accountCount: 0 });
    expect(result.kind === 'queued' && result.job).toMatchObject({ id: result.project.id, total: 3, status: 'queued' });
    expect(renewed).toEqual([['user-1', result.project.id, { now: NOW.getTime(), until: NOW.getTime() + LOCK_TTL_MS }]]);
    // The job holds the lock now; its workers give it back.
    expect(released).toEqual([]);
  });

  it('once every account is stored, a failure of the bookkeeping (activity, counters, the lock) still answers the accounts', async () => {
    for (const failing of [{ finishFails: true }, { activityFails: true }]) {
      const { create, finished } = harness(failing);
      const result = await create('user-1', input(3));
      expect(result.kind).toBe('created');
      expect(result.kind === 'created' && result.accounts).toHaveLength(3);
      // The activity failing does not keep the counters and the lock from being recorded.
      if (failing.activityFails) expect(finished()).toBe(1);
    }
  });

  it('only when even the job cannot be started is it a WriteInterruptedError naming the project; the lock goes back, the counters stay', async () => {
    const { create, released } = harness({ writeFails: true, jobFails: true });
    const failure = await create('user-1', input(3)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WriteInterruptedError);
    expect((failure as WriteInterruptedError).projectName).toBe('Hires');
    expect(released).toEqual([['user-1', { projects: 0, accounts: 0 }, expect.any(String)]]);
  });
});

describe('answering at once or as a job: decided from the rows and bytes before anything is written', () => {
  it('answers at once up to SYNC_ROW_LIMIT rows and SYNC_BYTE_LIMIT bytes, valid or not', () => {
    expect(answersAtOnce({ rows: 1, bytes: 30 })).toBe(true);
    expect(answersAtOnce({ rows: SYNC_ROW_LIMIT, bytes: SYNC_BYTE_LIMIT })).toBe(true);
    expect(answersAtOnce({ rows: SYNC_ROW_LIMIT + 1, bytes: 100 })).toBe(false);
    expect(answersAtOnce({ rows: 10, bytes: SYNC_BYTE_LIMIT + 1 })).toBe(false);
    // 1,000 rows with every field at its longest valid length still answer at once.
    expect(answersAtOnce({ rows: 1000, bytes: rowBytes({ csvData: Array.from({ length: 1000 }, () => ({ firstName: 'a'.repeat(100), lastName: 'b'.repeat(100), email: `${'c'.repeat(64)}@${'d'.repeat(185)}.com` })) }) })).toBe(true);
  });

  it('counts every row of the file: 31,000 rows of which 1,000 are valid are a job (issue 26: they answered 500 after 29 s)', async () => {
    const { create, locks } = harness();
    const rows = Array.from({ length: 31_000 }, (_, i) => (i % 31 === 0 ? { firstName: 'Ann', lastName: 'Lee', email: `a${i}@example.com` } : { firstName: 'Bad', lastName: 'Row', email: `not-an-email-${i}` }));
    const result = await create('user-1', bulkCreateBodySchema.parse({ projectName: 'Mostly invalid', csvData: rows }));
    expect(result.kind).toBe('queued');
    expect(result.summary).toMatchObject({ total: 31_000, failedCount: 30_000 });
    expect(result.kind === 'queued' && result.job.total).toBe(1000);
    expect(locks[0]!.until).toBe(NOW.getTime() + LOCK_TTL_MS);
  });

  it('counts the bytes: a few rows of long (rejected) values are a job; a CSV text is measured as sent', async () => {
    const { create } = harness();
    const long = Array.from({ length: 200 }, (_, i) => ({ firstName: 'x'.repeat(1000), lastName: 'y'.repeat(1000), email: `${'z'.repeat(900)}${i}@example.com` }));
    expect((await create('user-1', bulkCreateBodySchema.parse({ projectName: 'Long', csvData: [...long, ...rows(3)] }))).kind).toBe('queued');
    const csvText = `firstName,lastName,email\n${rows(3).map((r) => `${r.firstName},${r.lastName},${r.email}`).join('\n')}\n${'#'.repeat(SYNC_BYTE_LIMIT)}\n`;
    expect((await create('user-1', bulkCreateBodySchema.parse({ projectName: 'Text', csvText }))).kind).toBe('queued');
    expect((await create('user-1', input(SYNC_ROW_LIMIT))).kind).toBe('created');
  });
});
