import { defaultPreferences, type Preferences } from '@shared/schemas/user-settings';

/**
 * Every date the app shows goes through here, in the user's timezone and date format (Settings >
 * Preferences; UTC and MM/DD/YYYY until their settings load). A calendar date ('2026-12-31', an
 * expiration date) is a day, not an instant: shown as it is, never shifted by a timezone. An
 * unparseable value is shown as it came.
 */
type DatePreferences = Pick<Preferences, 'timezone' | 'dateFormat'>;
let preferences: DatePreferences = { timezone: defaultPreferences.timezone, dateFormat: defaultPreferences.dateFormat };

/** Called when the user's settings load or change (app/layout); the pages remount with them. */
export function setDatePreferences(next: DatePreferences): void {
  preferences = { timezone: next.timezone, dateFormat: next.dateFormat };
}
export const datePreferences = (): DatePreferences => preferences;

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function arrange(year: string, month: string, day: string): string {
  switch (preferences.dateFormat) {
    case 'DD/MM/YYYY':
      return `${day}/${month}/${year}`;
    case 'YYYY-MM-DD':
      return `${year}-${month}-${day}`;
    default:
      return `${month}/${day}/${year}`;
  }
}

const partsCache = new Map<string, Intl.DateTimeFormat>();
function parts(date: Date): Record<string, string> {
  let formatter = partsCache.get(preferences.timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: preferences.timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: 'numeric',
      minute: '2-digit',
      hour12: true,
      timeZoneName: 'short',
    });
    partsCache.set(preferences.timezone, formatter);
  }
  return Object.fromEntries(formatter.formatToParts(date).map((part) => [part.type, part.value]));
}

export function formatDate(value: string): string {
  const calendar = CALENDAR_DATE.exec(value);
  if (calendar) return arrange(calendar[1]!, calendar[2]!, calendar[3]!);
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const p = parts(date);
  return arrange(p.year!, p.month!, p.day!);
}

export function formatDateTime(value: string): string {
  if (CALENDAR_DATE.test(value)) return formatDate(value);
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const p = parts(date);
  return `${arrange(p.year!, p.month!, p.day!)} ${p.hour}:${p.minute} ${p.dayPeriod} ${p.timeZoneName}`;
}

/** Today in the user's timezone as YYYY-MM-DD, plus `days` (the bulk dialog's default expiry). */
export function calendarDatePlusDays(days: number, now = new Date()): string {
  const p = parts(now);
  const today = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day));
  return new Date(today + days * 86_400_000).toISOString().slice(0, 10);
}
