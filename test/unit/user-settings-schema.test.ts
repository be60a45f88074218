import { describe, expect, it } from 'vitest';
import { preferencesSchema, updateUserSettingsSchema, withDefaults } from '../../shared/schemas/user-settings';
import { nextRun } from '../../bin/local/schedules';
import { timeOrderedIdFloor, timeOrderedIdFrom } from '../../functions/core/ids';
import { markReadSchema } from '../../shared/schemas/notifications';

const preferences = (values: Record<string, unknown>) => preferencesSchema.safeParse({ timezone: 'UTC', dateFormat: 'MM/DD/YYYY', defaultProjectExpiry: 90, defaultPasswordLength: 12, ...values });
const messageOf = (result: ReturnType<typeof preferences>) => (result.success ? undefined : result.error.issues[0]?.message);

describe('user settings schema (spec 5 ranges, 9 defaults)', () => {
  it.each([30, 31, 90, 364, 365, '45', ' 200 '])('default project expiry %j is accepted', (value) => {
    const result = preferences({ defaultProjectExpiry: value });
    expect(result.success).toBe(true);
    expect(result.data?.defaultProjectExpiry).toBe(Number(value));
  });

  it.each([29, 366, 0, -5, '1000'])('default project expiry %j is out of range', (value) => {
    expect(messageOf(preferences({ defaultProjectExpiry: value }))).toBe('Default project expiry must be between 30 and 365 days');
  });

  it.each(['abc', '', '  ', null, undefined, Number.NaN, {}, [], true])('non-numeric project expiry %j falls back to 90', (value) => {
    expect(preferences({ defaultProjectExpiry: value }).data?.defaultProjectExpiry).toBe(90);
  });

  it.each([8, 12, 128])('password length %j is accepted', (value) => {
    expect(preferences({ defaultPasswordLength: value }).data?.defaultPasswordLength).toBe(value);
  });

  it.each([7, 129, 5000])('password length %j is out of range', (value) => {
    expect(messageOf(preferences({ defaultPasswordLength: value }))).toBe('Default password length must be between 8 and 128 characters');
  });

  it.each(['x', '', null])('non-numeric password length %j falls back to 12', (value) => {
    expect(preferences({ defaultPasswordLength: value }).data?.defaultPasswordLength).toBe(12);
  });

  it('a fraction is refused with its own message', () => {
    expect(messageOf(preferences({ defaultPasswordLength: 12.5 }))).toBe('Default password length must be a whole number');
  });

  it("timezones and date formats are the spec's five and three", () => {
    for (const timezone of ['UTC', 'America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles']) expect(preferences({ timezone }).success).toBe(true);
    for (const dateFormat of ['MM/DD/YYYY', 'DD/MM/YYYY', 'YYYY-MM-DD']) expect(preferences({ dateFormat }).success).toBe(true);
    expect(preferences({ timezone: 'Europe/Paris' }).success).toBe(false);
    expect(preferences({ timezone: 'utc' }).success).toBe(false);
    expect(preferences({ dateFormat: 'DD.MM.YYYY' }).success).toBe(false);
  });

  it('an update leaves out what it does not change (a missing number is not replaced by its fallback)', () => {
    expect(updateUserSettingsSchema.parse({ preferences: { timezone: 'UTC' } })).toEqual({ preferences: { timezone: 'UTC' } });
    expect(updateUserSettingsSchema.parse({})).toEqual({});
  });

  it('defaults complete what was never stored, and stored values that no longer fit are replaced by the defaults', () => {
    expect(withDefaults({})).toEqual({
      notifications: { emailNotifications: true, projectCompletionEmail: true, securityAlerts: true, weeklyDigest: false },
      preferences: { defaultProjectExpiry: 90, defaultPasswordLength: 12, timezone: 'UTC', dateFormat: 'MM/DD/YYYY' },
    });
    expect(withDefaults({ notifications: { weeklyDigest: true }, preferences: { timezone: 'America/Chicago' } })).toMatchObject({
      notifications: { weeklyDigest: true, emailNotifications: true },
      preferences: { timezone: 'America/Chicago', defaultProjectExpiry: 90 },
    });
    // One field that no longer fits does not take the others with it.
    expect(withDefaults({ preferences: { timezone: 'Mars/Olympus', defaultPasswordLength: 20, stray: 1 } }).preferences).toEqual({
      defaultProjectExpiry: 90,
      defaultPasswordLength: 20,
      timezone: 'UTC',
      dateFormat: 'MM/DD/YYYY',
    });
  });

  it('POST /api/notifications/read takes ids or all, not both nor neither', () => {
    expect(markReadSchema.safeParse({ all: true }).success).toBe(true);
    expect(markReadSchema.safeParse({ ids: ['a'] }).success).toBe(true);
    expect(markReadSchema.safeParse({}).success).toBe(false);
    expect(markReadSchema.safeParse({ all: true, ids: ['a'] }).success).toBe(false);
    expect(markReadSchema.safeParse({ ids: [] }).success).toBe(false);
  });
});

describe('notification ids and the weekly timer', () => {
  it('the same event at the same moment gets the same time-ordered id; ids sort by time', () => {
    const at = new Date('2026-11-23T08:00:00.000Z');
    expect(timeOrderedIdFrom(at, 'bulk-job:1:completed')).toBe(timeOrderedIdFrom(at, 'bulk-job:1:completed'));
    expect(timeOrderedIdFrom(at, 'bulk-job:1:completed')).not.toBe(timeOrderedIdFrom(at, 'bulk-job:2:completed'));
    const later = timeOrderedIdFrom(new Date(at.getTime() + 1), 'a');
    expect(later > timeOrderedIdFrom(at, 'zzz')).toBe(true);
    expect(timeOrderedIdFloor(at) <= timeOrderedIdFrom(at, 'x')).toBe(true);
    expect(timeOrderedIdFloor(at) > timeOrderedIdFrom(new Date(at.getTime() - 1), 'x')).toBe(true);
  });

  it('the local timer runs the digest at the next Monday 08:00 UTC', () => {
    const rule = { weekday: 1, hourUtc: 8 };
    expect(nextRun(rule, new Date('2026-11-23T07:59:00Z')).toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect(nextRun(rule, new Date('2026-11-23T08:00:00Z')).toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(nextRun(rule, new Date('2026-11-25T12:00:00Z')).toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(nextRun(rule, new Date('2026-12-29T09:00:00Z')).toISOString()).toBe('2027-01-04T08:00:00.000Z');
  });

  it('the local timer runs an hourly rule (the expiry sweep) at the next full hour', () => {
    expect(nextRun({}, new Date('2026-11-23T07:59:00Z')).toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect(nextRun({}, new Date('2026-11-23T08:00:00Z')).toISOString()).toBe('2026-11-23T09:00:00.000Z');
    expect(nextRun({}, new Date('2026-12-31T23:30:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
