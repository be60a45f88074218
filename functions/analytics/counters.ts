import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { readSettings } from '../users/settings-reader';

/**
 * The analytics counters (docs/analytics.md). They are added to by the very writes that record
 * the work (a creation's finish, a project's put, a bulk chunk's marker, a provisioning chunk's
 * marker), inside the same transaction, so a redelivered chunk whose marker exists adds nothing.
 *
 * Months are the user's: the month a piece of work was recorded in, in the user's timezone
 * preference at that moment. A later change of timezone does not move what was counted before
 * (counters are sums, the single events behind them are not kept): only new work follows the
 * new timezone.
 */
export interface CounterChange {
  /** Accounts stored. */
  accounts?: number;
  /** Rows settled (created or refused): the completion rate's denominator. */
  rowsSettled?: number;
  /** Rows that were not created (refused up front or failed in a job). */
  rowsFailed?: number;
  /** Projects created. */
  projects?: number;
  /** The new project's expiration date (YYYY-MM-DD), so active projects need no project reads. */
  expiresOn?: string;
  /** Accounts now on a platform (Synced; negative for an undo), by platform. */
  synced?: { platform: string; count: number };
}

/** The total item's attribute of a platform's synced accounts. */
export const SYNCED_PREFIX = 'synced_';

/** 'YYYY-MM' of an instant in a timezone (an IANA name; unknown names fall back to UTC). */
export function monthOf(at: Date, timeZone: string): string {
  return dayOf(at, timeZone).slice(0, 7);
}

/** 'YYYY-MM-DD' of an instant in a timezone. */
export function dayOf(at: Date, timeZone: string): string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  } catch {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' });
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The month before 'YYYY-MM', and the `count` months up to and including one, oldest first. */
export function previousMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return m === 1 ? `${year - 1}-12` : `${year}-${String(m - 1).padStart(2, '0')}`;
}
export function monthsUpTo(month: string, count: number): string[] {
  const months = [month];
  while (months.length < count) months.unshift(previousMonth(months[0]!));
  return months;
}

/** The user's timezone preference (UTC when none was saved). */
export async function userTimeZone(db: DynamoDBDocumentClient, tableName: string, userId: string): Promise<string> {
  return (await readSettings(db, tableName, userId)).preferences.timezone;
}

type TransactUpdate = {
  Update: { TableName: string; Key: { PK: string; SK: string }; UpdateExpression: string; ExpressionAttributeValues: Record<string, unknown>; ExpressionAttributeNames?: Record<string, string> };
};

/**
 * The Updates (ADD only, for a TransactWriteItems of the caller's) that count a change: the
 * total item, the month's item and, for a project with an expiration date, that date's item.
 * Zero changes are left out; no change at all gives no item.
 */
export function counterUpdates(tableName: string, userId: string, month: string, change: CounterChange): TransactUpdate[] {
  const adds: [string, number][] = (
    [
      ['accounts', change.accounts ?? 0],
      ['rowsSettled', change.rowsSettled ?? 0],
      ['rowsFailed', change.rowsFailed ?? 0],
      ['projects', change.projects ?? 0],
    ] as [string, number][]
  ).filter(([, n]) => n !== 0);
  const updates: TransactUpdate[] = [];
  const addOf = (pairs: [string, number][], entity: Record<string, string>) => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const parts = pairs.map(([name, n], i) => {
      names[`#c${i}`] = name;
      values[`:c${i}`] = n;
      return `#c${i} :c${i}`;
    });
    Object.entries(entity).forEach(([name, value], i) => {
      names[`#e${i}`] = name;
      values[`:e${i}`] = value;
    });
    const sets = Object.keys(entity).map((_, i) => `#e${i} = :e${i}`);
    return { UpdateExpression: `ADD ${parts.join(', ')}${sets.length ? ` SET ${sets.join(', ')}` : ''}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
  };
  const totals = [...adds];
  if (change.synced && change.synced.count !== 0) totals.push([`${SYNCED_PREFIX}${change.synced.platform}`, change.synced.count]);
  if (totals.length) updates.push({ Update: { TableName: tableName, Key: keys.statsTotal(userId), ...addOf(totals, { entityType: 'UserStats' }) } });
  if (adds.length) updates.push({ Update: { TableName: tableName, Key: keys.statsMonth(userId, month), ...addOf(adds, { entityType: 'UserStats', month }) } });
  if (change.expiresOn && change.projects) {
    updates.push({ Update: { TableName: tableName, Key: keys.statsExpiry(userId, change.expiresOn), ...addOf([['projects', change.projects]], { entityType: 'UserStats' }) } });
  }
  return updates;
}
