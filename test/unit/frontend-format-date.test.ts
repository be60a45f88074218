import { afterEach, describe, expect, it } from 'vitest';
import { calendarDatePlusDays, formatDate, formatDateTime, setDatePreferences } from '../../frontend/src/lib/format-date';
import { uploadFormDefaultsWith } from '../../frontend/src/features/bulk-creator/lib/upload-form';

afterEach(() => setDatePreferences({ timezone: 'UTC', dateFormat: 'MM/DD/YYYY' }));

describe('dates in the user\'s timezone and format (Settings > Preferences)', () => {
  it('an instant is shown in the chosen timezone, in the chosen order', () => {
    const instant = '2026-01-01T03:30:00.000Z';
    expect(formatDate(instant)).toBe('01/01/2026');
    expect(formatDateTime(instant)).toBe('01/01/2026 3:30 AM UTC');
    setDatePreferences({ timezone: 'America/New_York', dateFormat: 'DD/MM/YYYY' });
    expect(formatDate(instant)).toBe('31/12/2025');
    expect(formatDateTime(instant)).toBe('31/12/2025 10:30 PM EST');
    setDatePreferences({ timezone: 'America/Los_Angeles', dateFormat: 'YYYY-MM-DD' });
    expect(formatDateTime('2026-07-04T18:05:00Z')).toBe('2026-07-04 11:05 AM PDT');
  });

  it('a calendar date (an expiration date) is a day: never shifted by the timezone', () => {
    setDatePreferences({ timezone: 'America/Los_Angeles', dateFormat: 'DD/MM/YYYY' });
    expect(formatDate('2026-12-31')).toBe('31/12/2026');
    expect(formatDateTime('2026-12-31')).toBe('31/12/2026');
  });

  it('an unreadable value is shown as it came', () => {
    expect(formatDate('soon')).toBe('soon');
    expect(formatDateTime('')).toBe('');
  });

  it("'today plus N days' counts from today in the user's timezone", () => {
    const lateEvening = new Date('2026-03-01T02:00:00Z'); // 28 February in Chicago
    setDatePreferences({ timezone: 'America/Chicago', dateFormat: 'MM/DD/YYYY' });
    expect(calendarDatePlusDays(90, lateEvening)).toBe('2026-05-29');
    setDatePreferences({ timezone: 'UTC', dateFormat: 'MM/DD/YYYY' });
    expect(calendarDatePlusDays(90, lateEvening)).toBe('2026-05-30');
  });

  it("the Bulk Creator starts from the user's defaults, the password length within its own 10 to 50", () => {
    expect(uploadFormDefaultsWith(undefined).expirationDate).toBe('');
    expect(uploadFormDefaultsWith({ defaultProjectExpiry: 30, defaultPasswordLength: 16 }).passwordSettings?.minLength).toBe(16);
    expect(uploadFormDefaultsWith({ defaultProjectExpiry: 30, defaultPasswordLength: 8 }).passwordSettings?.minLength).toBe(10);
    expect(uploadFormDefaultsWith({ defaultProjectExpiry: 30, defaultPasswordLength: 128 }).passwordSettings?.minLength).toBe(50);
    expect(uploadFormDefaultsWith({ defaultProjectExpiry: 30, defaultPasswordLength: 12 }).expirationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
