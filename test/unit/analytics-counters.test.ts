import { describe, expect, it } from 'vitest';
import { counterUpdates, dayOf, monthOf, monthsUpTo } from '../../functions/analytics/counters';

describe('analytics counters', () => {
  it("puts an instant in the user's month, not the server's", () => {
    const at = new Date('2026-03-01T04:30:00Z');
    expect(monthOf(at, 'UTC')).toBe('2026-03');
    expect(monthOf(at, 'America/Los_Angeles')).toBe('2026-02');
    expect(dayOf(new Date('2026-12-31T23:30:00Z'), 'Asia/Tokyo')).toBe('2027-01-01');
    // A name Intl does not know counts in UTC instead of failing the write.
    expect(monthOf(at, 'Not/AZone')).toBe('2026-03');
  });

  it('lists the last 12 months across a year, oldest first', () => {
    expect(monthsUpTo('2026-02', 12)).toEqual(['2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02']);
  });

  it('adds to the total, the month and the expiration date; nothing for no change', () => {
    const updates = counterUpdates('t', 'u1', '2026-02', { projects: 1, accounts: 5, rowsSettled: 6, rowsFailed: 1, expiresOn: '2026-06-30' });
    expect(updates.map((u) => u.Update.Key)).toEqual([
      { PK: 'USER#u1', SK: 'STATS#TOTAL' },
      { PK: 'USER#u1', SK: 'STATS#MONTH#2026-02' },
      { PK: 'USER#u1', SK: 'STATS#EXPIRES#2026-06-30' },
    ]);
    expect(updates[0]!.Update.UpdateExpression).toMatch(/^ADD /);
    expect(Object.values(updates[1]!.Update.ExpressionAttributeValues)).toEqual(expect.arrayContaining([5, 6, 1, 1, '2026-02']));
    expect(counterUpdates('t', 'u1', '2026-02', { accounts: 0, rowsFailed: 0 })).toEqual([]);
    // A platform's synced accounts go to the total only.
    expect(counterUpdates('t', 'u1', '', { synced: { platform: 'okta', count: 3 } }).map((u) => u.Update.Key.SK)).toEqual(['STATS#TOTAL']);
  });
});
