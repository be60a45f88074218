import { keys } from '../core/keys';

/**
 * A project's expiry reminder ('Remind account holders N days before', docs/lifecycle.md "Expiry
 * reminders"): the day it is due is the expiration date minus N days; while it waits, its item
 * (keys.projectReminder) is in the ProjectsByExpiry index's REMIND partition under that day. An
 * edit of the date or of N writes it again (or deletes it: no date, or off) in the edit's
 * transaction, so a date moved beyond the window moves the reminder with it.
 */

/** YYYY-MM-DD minus `days` days (calendar days: no timezone). */
export function daysBefore(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
}

/** The reminder item of a project with this date and N (both set), waiting in the index. */
export function reminderItem(userId: string, projectId: string, expirationDate: string, days: number, at: string) {
  return {
    ...keys.projectReminder(userId, projectId),
    ...keys.projectReminderEntry(userId, projectId, daysBefore(expirationDate, days)),
    entityType: 'ProjectReminder',
    userId,
    projectId,
    expirationDate,
    days,
    updatedAt: at,
  };
}

/** The write that keeps a project's reminder in step with its date and N (a transaction item). */
export function reminderWrite(tableName: string, userId: string, projectId: string, expirationDate: string | undefined, days: number | undefined, at: string) {
  return expirationDate && days
    ? { Put: { TableName: tableName, Item: reminderItem(userId, projectId, expirationDate, days, at) } }
    : { Delete: { TableName: tableName, Key: keys.projectReminder(userId, projectId) } };
}
