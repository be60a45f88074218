import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aesGcmCipher } from '../../functions/core/encryption';
import { ServiceUnavailableError, WriteInterruptedError } from '../../functions/core/errors';
import type { BulkJobStarter } from '../../functions/bulk/bulk-jobs';
import type { BulkStore } from '../../functions/bulk/bulk-store';
import { LOCK_TTL_MS, SYNC_LOCK_TTL_MS, createBulkAccounts } from '../../functions/bulk/create-bulk-accounts';
import { bulkCreateBodySchema, SYNC_ROW_LIMIT } from '../../shared/schemas/bulk';

/** How long a creation holds its user's lock, and what a failure after writing began says (review of issue 9). */
const NOW = new Date('2026-11-22T12:00:00.000Z');

function harness(options: { writeFails?: boolean; now?: () => Date } = {}) {
  const locks: { until: number; now: number }[] = [];
  const released: unknown[] = [];
  const claimed: unknown[] = [];
  const store = {
    usage: async () => ({ plan: 'pro', projectCount: 0, accountCount: 0, stored: { projectCount: 0, accountCount: 0 } }),
    reserve: async (_userId: string, _usage: unknown, _accounts: number, lock: { until: number; now: number }) => {
      locks.push(lock);
      return { accountsBefore: 0 };
    },
    release: async (...args: unknown[]) => void released.push(args),
    finish: async () => undefined,
    takenUsernames: async () => new Set<string>(),
    adoptStoredUsernames: async () => undefined,
    claimUsernames: async (...args: unknown[]) => void claimed.push(args),
    writeAll: async () => {
      if (options.writeFails) throw new Error('ProvisionedThroughputExceededException');
    },
  } as unknown as BulkStore;
  const jobs: BulkJobStarter = {
    start: async ({ project, rows, now }) => {
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
  return { create, locks, released, claimed };
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

  it('a failure once writing began is a WriteInterruptedError naming the project; the lock goes back, the counters stay', async () => {
    const { create, released } = harness({ writeFails: true });
    const failure = await create('user-1', input(3)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WriteInterruptedError);
    expect((failure as WriteInterruptedError).projectName).toBe('Hires');
    expect(released).toEqual([['user-1', { projects: 0, accounts: 0 }, expect.any(String)]]);
  });
});
