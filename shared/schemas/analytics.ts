import * as z from 'zod';

/**
 * GET /api/analytics (spec 3, Analytics), from the user's counters (docs/analytics.md). Months are
 * 'YYYY-MM' in the user's timezone preference.
 */
export const analyticsSchema = z.object({
  /** Accounts created, all time. */
  totalAccounts: z.number().int().nonnegative(),
  /** Percent change of accounts created this month against last month, one decimal; null when last month had none to compare with. */
  accountsGrowthRate: z.number().nullable(),
  /** Projects that are not past their expiration date. */
  activeProjects: z.number().int().nonnegative(),
  /** Projects created this month. */
  projectsThisMonth: z.number().int().nonnegative(),
  accountsThisMonth: z.number().int().nonnegative(),
  /** Percent of settled rows (created or refused) that were created, one decimal; null before any row. */
  completionRate: z.number().min(0).max(100).nullable(),
  /** Accounts per project, one decimal (0 without projects). */
  averageProjectSize: z.number().nonnegative(),
  /** Accounts on each platform (Synced by provisioning), most first; percentage of all synced accounts. */
  topPlatforms: z.array(z.object({ name: z.string(), count: z.number().int().nonnegative(), percentage: z.number().min(0).max(100) })),
  /** The latest events, newest first. */
  recentActivity: z.array(z.object({ action: z.string(), date: z.string(), count: z.number().int().nonnegative() })),
  /** The last 12 months, oldest first, the current month last. */
  monthlyTrends: z.array(z.object({ month: z.string().regex(/^\d{4}-\d{2}$/), accounts: z.number().int(), projects: z.number().int() })).length(12),
});
export type Analytics = z.infer<typeof analyticsSchema>;
