import { describe, expect, it } from 'vitest';
import { rowRanges } from '../../functions/accounts/account-partitions';
import { filterChannels, filterCount, filterOf, isSelected, matchesFilter, rowOfAccount, rowsOf, selectedAccounts, selectedRanges, selectedRows, selectionFields, skippedOf } from '../../functions/account-jobs/selection';

describe('a job over a selected set of accounts', () => {
  it("takes the rows of the project's own account ids, each once, and refuses another project's", () => {
    expect(selectedRows('p1', ['p1.7', 'p1.3', 'p1.7'])).toEqual([3, 7]);
    expect(selectedRows('p1', ['p1.3', 'p2.4'])).toBeUndefined();
    expect(selectedRows('p1', ['p1.0'])).toBeUndefined();
    expect(selectedRows('p1', ['p1.x'])).toBeUndefined();
    expect(rowOfAccount('p1', 'p1.12')).toBe(12);
  });

  it("plans only the project's chunks that hold a selected row, numbered from 0, the same every time", () => {
    // One shard, chunks of 250: rows 3 and 1,200 are in the first and the fifth range of 1..1,200.
    expect(selectedRanges(1, [3, 1200], 250)).toEqual([
      { chunk: 0, shard: 0, fromRow: 1, toRow: 250 },
      { chunk: 1, shard: 0, fromRow: 1001, toRow: 1200 },
    ]);
    // Four shards: a row lives in shard row % 4, so rows 5 (shard 1) and 8 (shard 0) are two chunks.
    const ranges = selectedRanges(4, [5, 8], 250);
    expect(ranges.map((r) => [r.chunk, r.shard])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(selectedRanges(4, [5, 8], 250)).toEqual(ranges);
    expect(selectedRanges(2, [], 250)).toEqual([]);
    // Every row selected: the whole project's plan.
    const all = Array.from({ length: 600 }, (_, i) => i + 1);
    expect(selectedRanges(2, all, 250)).toEqual(rowRanges(2, 600, 250));
  });

  it('keeps the accounts of a chunk that the job names (all of them for a job that names none)', () => {
    const rows = rowsOf({ rows: [2, 9] });
    expect(isSelected(rows, { SK: 'ACCOUNT#000000002', row: 2 })).toBe(true);
    expect(isSelected(rows, { row: 3 })).toBe(false);
    expect(isSelected(rowsOf({}), { row: 3 })).toBe(true);
  });
});

describe('the filters of a job over a selection (one evaluation for every kind)', () => {
  it('counts a filter from the project\'s exact counters', () => {
    const project = { accountCount: 10, syncFailedCount: 3, emailSentCount: 4, emailFailedCount: 1 };
    expect(filterCount('all', project)).toBe(10);
    expect(filterCount('failed', project)).toBe(3);
    expect(filterCount('unsent', project)).toBe(5);
  });

  it('matches an account as its states say now', () => {
    expect(matchesFilter('failed', { externalStatus: 'failed' })).toBe(true);
    expect(matchesFilter('failed', { externalStatus: 'success' })).toBe(false);
    expect(matchesFilter('unsent', {})).toBe(true);
    expect(matchesFilter('unsent', { emailStatus: 'sent' })).toBe(false);
    expect(matchesFilter('unsent', { emailStatus: 'failed' })).toBe(false);
    expect(matchesFilter(undefined, { emailStatus: 'sent' })).toBe(true);
    expect(filterChannels('failed')).toEqual(['PROV']);
    expect(filterChannels('unsent')).toEqual(['MAIL']);
    // isActive is an account action's outcome, kept in the ACT state blocks.
    expect(filterChannels('active')).toEqual(['ACT']);
    expect(filterChannels('deactivated')).toEqual(['ACT']);
    expect(filterChannels(undefined)).toEqual([]);
  });

  it('stores rows or a filter on the job, and a completed job says what it skipped', () => {
    expect(selectionFields({ rows: [1, 2] })).toEqual({ rows: [1, 2] });
    expect(selectionFields({ filter: 'failed' })).toEqual({ filter: 'failed' });
    expect(selectionFields({ filter: 'all' })).toEqual({});
    expect(filterOf({ filter: 'unsent' })).toBe('unsent');
    expect(filterOf({ filter: 'bogus' })).toBeUndefined();
    expect(skippedOf({ status: 'completed', filter: 'failed', total: 5 }, 3)).toBe(2);
    expect(skippedOf({ status: 'running', filter: 'failed', total: 5 }, 3)).toBeUndefined();
    expect(skippedOf({ status: 'completed', total: 5 }, 5)).toBeUndefined();
  });
});

describe('selectedAccounts', () => {
  const accounts = [
    { row: 1, isActive: false },
    { row: 2, isActive: true },
    { row: 3 },
  ];

  it('keeps the rows listed and, for accounts read with their states already (overlaid), only those the filter matches (nothing read)', async () => {
    const deps = { db: { send: () => Promise.reject(new Error('no read expected')) } as never, tableName: 't' };
    expect(await selectedAccounts(deps, { filter: 'deactivated' }, accounts, { overlaid: true })).toEqual([{ row: 1, isActive: false }]);
    expect(await selectedAccounts(deps, { filter: 'active' }, accounts, { overlaid: true })).toEqual([{ row: 2, isActive: true }, { row: 3 }]);
    expect(await selectedAccounts(deps, { rows: [2, 3] }, accounts)).toEqual([{ row: 2, isActive: true }, { row: 3 }]);
    expect(await selectedAccounts(deps, {}, accounts)).toEqual(accounts);
  });

  it("'active' / 'deactivated' read isActive with the accounts' ACT entries overlaid (an action's outcome is there, not on the item)", async () => {
    const blocks = [{ channel: 'ACT', rows: { '2': { isActive: false, actionRun: 'j1', actionResult: 'done' }, '1': { isActive: true, actionRun: 'j2', actionResult: 'done' } } }];
    const deps = { db: { send: () => Promise.resolve({ Items: blocks }) } as never, tableName: 't' };
    const job = { userId: 'u', projectId: 'p', shards: 1 };
    expect((await selectedAccounts(deps, { ...job, filter: 'deactivated' }, accounts)).map((a) => a.row)).toEqual([2]);
    expect((await selectedAccounts(deps, { ...job, filter: 'active' }, accounts)).map((a) => a.row)).toEqual([1, 3]);
  });
});
