import { dayOf } from '../analytics/counters';

/**
 * Whether a project has expired: its expiry started (`expiredAt`, set by the sweep) or its
 * expiration date has arrived in the owner's timezone (the start of that date there), which the
 * hourly sweep turns into `expiredAt` within the hour. The rule of the sweep
 * (sweep-expired-projects.ts), of adding people (refused) and of the Active Projects counts.
 */
export function projectHasExpired(project: Record<string, unknown>, now: Date, timeZone: string): boolean {
  if (typeof project.expiredAt === 'string') return true;
  return typeof project.expirationDate === 'string' && dateArrived(project.expirationDate, now, timeZone);
}

/** Whether a date (YYYY-MM-DD) has arrived at `now` in a timezone: the start of that date there has passed. */
export const dateArrived = (date: string, now: Date, timeZone: string): boolean => dayOf(now, timeZone) >= date;
