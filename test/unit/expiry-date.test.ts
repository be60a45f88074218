import { describe, expect, it } from 'vitest';
import { dateArrived } from '../../functions/schedules/sweep-expired-projects';

/** When a project's expiration date arrives: the start of that date in its owner's timezone (any IANA zone; unknown: UTC). */
describe('dateArrived', () => {
  it('is due in Auckland while Los Angeles is still the day before', () => {
    // 2030-03-09 11:30 UTC: 00:30 on 2030-03-10 in Auckland (NZDT, UTC+13), 03:30 on 2030-03-09 in Los Angeles (PST).
    const at = new Date('2030-03-09T11:30:00Z');
    expect(dateArrived('2030-03-10', at, 'Pacific/Auckland')).toBe(true);
    expect(dateArrived('2030-03-10', at, 'America/Los_Angeles')).toBe(false);
    expect(dateArrived('2030-03-10', at, 'UTC')).toBe(false);
    // An hour earlier it is 23:30 the day before in Auckland.
    expect(dateArrived('2030-03-10', new Date('2030-03-09T10:30:00Z'), 'Pacific/Auckland')).toBe(false);
  });

  it('stays due after the date, and an unknown zone counts as UTC', () => {
    expect(dateArrived('2030-03-10', new Date('2031-01-01T00:00:00Z'), 'America/Los_Angeles')).toBe(true);
    expect(dateArrived('2030-03-10', new Date('2030-03-10T00:00:00Z'), 'Nowhere/Else')).toBe(true);
    expect(dateArrived('2030-03-10', new Date('2030-03-09T23:59:59Z'), 'Nowhere/Else')).toBe(false);
  });
});
