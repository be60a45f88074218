import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ActivityItem, DashboardStats } from '../../shared/schemas/project';
import { keys } from '../core/keys';
import type { ProjectStore } from '../projects/project-store';
import { growthRate, readCounters } from '../analytics/analytics';
import { projectHasExpired } from '../projects/project-expiry';

export const RECENT_ACTIVITY_LIMIT = 10;

/**
 * GET /api/dashboard/stats, from the user's counters and projects:
 * totalAccounts (stored accounts), activeProjects (active and not expired: no expiredAt, and its
 * expiration date not arrived in the owner's timezone, as the expiry sweep decides: projects/project-expiry.ts),
 * successRate (rows created of rows submitted), avgProcessingTime (measured seconds per account:
 * a creation's wall time from the request to its last row, summed, over the accounts it created);
 * the change labels from the analytics counters (functions/analytics).
 */
export const dashboardStats =
  (deps: { db: DynamoDBDocumentClient; tableName: string; projects: ProjectStore; now: () => Date }) =>
  async (userId: string): Promise<DashboardStats> => {
    const [{ Item: user }, projects, counters] = await Promise.all([
      deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ProjectionExpression: 'accountCount, processingMs, processedAccounts' })),
      deps.projects.list(userId),
      // The change labels: this month against last, from the same counters as GET /api/analytics.
      readCounters(deps, userId),
    ]);
    const thisMonth = counters.months.at(-1)!;
    const now = deps.now();
    let created = 0;
    let failed = 0;
    let activeProjects = 0;
    for (const project of projects) {
      created += Number(project.accountCount ?? 0);
      failed += Number(project.failedCount ?? 0);
      // Expired as the sweep and the badge decide it: expiredAt, or its date arrived in the owner's timezone.
      if (project.status !== 'completed' && !projectHasExpired(project, now, counters.timeZone)) activeProjects++;
    }
    const processedAccounts = Number(user?.processedAccounts ?? 0);
    return {
      totalAccounts: Number(user?.accountCount ?? 0),
      activeProjects,
      successRate: created + failed === 0 ? 0 : Math.round((created / (created + failed)) * 1000) / 10,
      avgProcessingTime: processedAccounts === 0 ? 0 : Math.round((Number(user?.processingMs ?? 0) / processedAccounts / 1000) * 1000) / 1000,
      accountsGrowthRate: growthRate(counters),
      accountsThisMonth: thisMonth.accounts,
      newProjectsThisMonth: thisMonth.projects,
    };
  };

/** GET /api/dashboard/recent-activity: the latest events, newest first. */
export const recentActivity =
  (deps: { db: DynamoDBDocumentClient; tableName: string }) =>
  async (userId: string): Promise<ActivityItem[]> => {
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
    return Items.map((item) => ({ title: String(item.title), timestamp: String(item.timestamp) }));
  };
