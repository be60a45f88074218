import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Analytics } from '../../shared/schemas/analytics';
import { integrationPlatforms, platformLabels, type IntegrationPlatform } from '../../shared/schemas/integrations';
import { keys } from '../core/keys';
import { queryAllUnder } from '../core/prefix-query';
import { counterUpdates, dayOf, monthOf, monthsUpTo, SYNCED_PREFIX, userTimeZone } from './counters';

export interface AnalyticsDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
}

/** What the counters say, read with a bounded number of items whatever the user's size. */
export interface Counters {
  timeZone: string;
  accounts: number;
  rowsSettled: number;
  rowsFailed: number;
  projects: number;
  /** Active projects whose expiration date has arrived (its start, in the user's timezone). */
  expiredProjects: number;
  /** Projects completed (functions/projects/project-changes.ts): no longer active, whatever their date. */
  completedProjects: number;
  synced: Partial<Record<IntegrationPlatform, number>>;
  /** The last 12 months, oldest first. */
  months: { month: string; accounts: number; projects: number }[];
}

const MONTHS = 12;
/** Activity entries shown, as on the dashboard. */
const RECENT_ACTIVITY_LIMIT = 10;
/** A transaction holds at most 100 actions: the total, 12 months, and this many expiration dates. */
const FILL_EXPIRY_ITEMS = 100 - 1 - MONTHS;

/**
 * Reads the user's counters: the total item (consistent), the 12 month items (one Query, at most
 * 12 items) and the expiration dates already past (one Query). Users whose projects are older than
 * the counters get them filled once, from the project items (never from accounts).
 */
export async function readCounters(deps: AnalyticsDeps, userId: string): Promise<Counters> {
  const timeZone = await userTimeZone(deps.db, deps.tableName, userId);
  const now = deps.now();
  let total = await readTotal(deps, userId);
  if (total?.filledAt === undefined) {
    await fillFromProjects(deps, userId, timeZone, now);
    total = await readTotal(deps, userId);
  }
  const months = monthsUpTo(monthOf(now, timeZone), MONTHS);
  const today = dayOf(now, timeZone);
  const [monthItems, expired] = await Promise.all([
    query(deps, { PK: keys.statsTotal(userId).PK, from: keys.statsMonth(userId, months[0]!).SK, to: keys.statsMonth(userId, months[MONTHS - 1]!).SK }),
    // Expiration dates up to today: a project expires at the start of its date in the owner's
    // timezone, as the expiry sweep and the dashboard decide (projects/project-expiry.ts).
    query(deps, { PK: keys.statsTotal(userId).PK, from: keys.statsExpiry(userId, '0000-00-00').SK, to: keys.statsExpiry(userId, today).SK }),
  ]);
  const byMonth = new Map(monthItems.map((item) => [String(item.month), item]));
  const synced: Counters['synced'] = {};
  for (const platform of integrationPlatforms) {
    const count = Number(total?.[`${SYNCED_PREFIX}${platform}`] ?? 0);
    if (count > 0) synced[platform] = count;
  }
  return {
    timeZone,
    accounts: Number(total?.accounts ?? 0),
    rowsSettled: Number(total?.rowsSettled ?? 0),
    rowsFailed: Number(total?.rowsFailed ?? 0),
    projects: Number(total?.projects ?? 0),
    expiredProjects: expired.reduce((sum, item) => sum + Number(item.projects ?? 0), 0),
    completedProjects: Number(total?.completedProjects ?? 0),
    synced,
    months: months.map((month) => ({ month, accounts: Number(byMonth.get(month)?.accounts ?? 0), projects: Number(byMonth.get(month)?.projects ?? 0) })),
  };
}

const oneDecimal = (n: number) => Math.round(n * 10) / 10;

/** Percent change from last month to this month; null when last month had nothing to compare with. */
export const growthRate = (counters: Pick<Counters, 'months'>): number | null => {
  const last = counters.months[MONTHS - 2]!.accounts;
  const current = counters.months[MONTHS - 1]!.accounts;
  return last === 0 ? null : oneDecimal(((current - last) / last) * 100);
};

/** GET /api/analytics. */
export const analytics =
  (deps: AnalyticsDeps) =>
  async (userId: string): Promise<Analytics> => {
    const [counters, activity] = await Promise.all([readCounters(deps, userId), recentActivity(deps, userId)]);
    const current = counters.months[MONTHS - 1]!;
    const syncedTotal = Object.values(counters.synced).reduce((sum, n) => sum + n, 0);
    return {
      totalAccounts: counters.accounts,
      accountsGrowthRate: growthRate(counters),
      activeProjects: Math.max(0, counters.projects - counters.expiredProjects - counters.completedProjects),
      projectsThisMonth: current.projects,
      accountsThisMonth: current.accounts,
      completionRate: counters.rowsSettled === 0 ? null : oneDecimal(((counters.rowsSettled - counters.rowsFailed) / counters.rowsSettled) * 100),
      averageProjectSize: counters.projects === 0 ? 0 : oneDecimal(counters.accounts / counters.projects),
      topPlatforms: (Object.entries(counters.synced) as [IntegrationPlatform, number][])
        .sort(([, a], [, b]) => b - a)
        .map(([platform, count]) => ({ name: platformLabels[platform], count, percentage: oneDecimal((count / syncedTotal) * 100) })),
      recentActivity: activity,
      monthlyTrends: counters.months,
    };
  };

/**
 * The latest activity entries as action, date and count. The entries about rows are titled by
 * this code '<n> accounts created in ...' / '<n> rows not created in ...' (functions/bulk), so
 * their leading number is their count; any other entry (a project created, a job that failed) is
 * one event.
 */
async function recentActivity(deps: AnalyticsDeps, userId: string): Promise<Analytics['recentActivity']> {
  const { PK, SKPrefix } = keys.activitiesOf(userId);
  const { Items = [] } = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
      ScanIndexForward: false,
      Limit: RECENT_ACTIVITY_LIMIT,
    }),
  );
  return Items.map((item) => {
    const title = String(item.title);
    return { action: title, date: String(item.timestamp), count: activityCount(title) };
  });
}

/** An activity title's count: its leading number as written (shared/text/plural: '1,000 accounts ...'), else 1. */
export function activityCount(title: string): number {
  const leading = /^(\d{1,3}(?:,\d{3})*|\d+) (accounts?|rows?) /.exec(title);
  return leading ? Number(leading[1]!.replaceAll(',', '')) : 1;
}

async function readTotal(deps: AnalyticsDeps, userId: string) {
  return (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.statsTotal(userId), ConsistentRead: true }))).Item;
}

async function query(deps: AnalyticsDeps, range: { PK: string; from: string; to: string }) {
  const { Items = [] } = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': range.PK, ':from': range.from, ':to': range.to },
    }),
  );
  return Items;
}

/**
 * Once per user: the counters of projects created before they existed (project items without
 * `statsCounted`), from the counts those items carry. Marked by `filledAt` on the total item in
 * the same transaction (condition: not filled yet), so two first reads at once fill it once.
 * Months older than the 12 shown count in the total only.
 */
async function fillFromProjects(deps: AnalyticsDeps, userId: string, timeZone: string, now: Date): Promise<void> {
  const projects = (await queryAllUnder(deps.db, deps.tableName, keys.projectsOf(userId), { consistent: true })).filter((p) => !p.statsCounted);
  const shown = new Set(monthsUpTo(monthOf(now, timeZone), MONTHS));
  const totals = { accounts: 0, rowsSettled: 0, rowsFailed: 0, projects: 0 };
  const months = new Map<string, { accounts: number; projects: number }>();
  const expiries = new Map<string, number>();
  const syncedByIntegration = new Map<string, number>();
  for (const project of projects) {
    const accounts = Number(project.accountCount ?? 0);
    const failed = Number(project.failedCount ?? 0);
    totals.accounts += accounts;
    totals.rowsSettled += accounts + failed;
    totals.rowsFailed += failed;
    totals.projects += 1;
    const month = monthOf(new Date(String(project.createdAt)), timeZone);
    if (shown.has(month)) {
      const m = months.get(month) ?? { accounts: 0, projects: 0 };
      months.set(month, { accounts: m.accounts + accounts, projects: m.projects + 1 });
    }
    if (typeof project.expirationDate === 'string') expiries.set(project.expirationDate, (expiries.get(project.expirationDate) ?? 0) + 1);
    const synced = Number(project.syncedCount ?? 0);
    if (synced > 0 && typeof project.integrationId === 'string') syncedByIntegration.set(project.integrationId, (syncedByIntegration.get(project.integrationId) ?? 0) + synced);
  }
  const syncedByPlatform = new Map<string, number>();
  if (syncedByIntegration.size) {
    for (const integration of await queryAllUnder(deps.db, deps.tableName, keys.integrationsOf(userId))) {
      const count = syncedByIntegration.get(String(integration.id));
      if (count) syncedByPlatform.set(String(integration.platform), (syncedByPlatform.get(String(integration.platform)) ?? 0) + count);
    }
  }
  const values: Record<string, unknown> = { ':now': now.toISOString(), ':type': 'UserStats' };
  const names: Record<string, string> = {};
  const adds = [...Object.entries(totals), ...[...syncedByPlatform].map(([platform, n]) => [`${SYNCED_PREFIX}${platform}`, n] as const)]
    .filter(([, n]) => n !== 0)
    .map(([name, n], i) => {
      names[`#c${i}`] = name;
      values[`:c${i}`] = n;
      return `#c${i} :c${i}`;
    });
  const expiryUpdates = [...expiries].map(([date, n]) => counterUpdates(deps.tableName, userId, '', { projects: n, expiresOn: date }).at(-1)!);
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: deps.tableName,
              Key: keys.statsTotal(userId),
              UpdateExpression: `SET filledAt = :now, entityType = :type${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
              ConditionExpression: 'attribute_not_exists(filledAt)',
              ...(adds.length ? { ExpressionAttributeNames: names } : {}),
              ExpressionAttributeValues: values,
            },
          },
          ...[...months].flatMap(([month, m]) => counterUpdates(deps.tableName, userId, month, { accounts: m.accounts, projects: m.projects }).filter((u) => u.Update.Key.SK !== keys.statsTotal(userId).SK)),
          ...expiryUpdates.slice(0, FILL_EXPIRY_ITEMS),
        ],
      }),
    );
  } catch (error) {
    // Another first read filled it a moment ago.
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return;
    throw error;
  }
  // More distinct expiration dates than one transaction holds: the rest right after (ADD, once: only the filler gets here).
  for (const update of expiryUpdates.slice(FILL_EXPIRY_ITEMS)) await deps.db.send(new UpdateCommand(update.Update));
}
