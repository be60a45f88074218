// Relative imports (not @shared/*): this module is pure and its unit tests run outside Vite.
import { planLimits, UNLIMITED, type PlanId } from '../../../shared/plans';
import type { SubscriptionStatus } from '../../../shared/schemas/project';

type PlanState = Pick<SubscriptionStatus, 'plan' | 'subscriptionActive'>;

/**
 * The plan whose limits and features apply: Pro only while its subscription is active (the
 * server's rule; `plan` is the stored plan, so a past-due Pro user works under the free limits).
 */
export const effectivePlanOf = (status: PlanState): PlanId =>
  status.plan === 'pro' && status.subscriptionActive ? 'pro' : 'free';

/** Stored Pro whose subscription is not active: the last payment failed (past due). */
export const isPaymentFailed = (status: PlanState): boolean => status.plan === 'pro' && !status.subscriptionActive;

export interface UsageMeter {
  used: number;
  limit: number;
  /** 0-100, for a progress bar. */
  percent: number;
}

/**
 * 'Projects: {used} of 3' (spec 9: used is computed from the remaining count). A count above the
 * limit (a lapsed Pro plan keeps its projects) is shown as reported rather than capped.
 */
export function usageMeter(limit: number, remaining: number, reportedUsed: number): UsageMeter | undefined {
  if (limit === UNLIMITED) return undefined;
  const used = Math.max(limit - Math.max(0, remaining), reportedUsed, 0);
  return { used, limit, percent: limit === 0 ? 100 : Math.min(100, Math.round((used / limit) * 100)) };
}

/** The free plan's project and account meters (the Subscription tab's usage card). */
export function freeUsageMeters(usage: SubscriptionStatus['usage']): { projects?: UsageMeter; accounts?: UsageMeter } {
  const limits = planLimits.free;
  return {
    projects: usageMeter(limits.projects, usage.remainingProjects, usage.projectsUsed),
    accounts: usageMeter(limits.accountsTotal, usage.remainingAccounts, usage.accountsUsed),
  };
}

/**
 * The Pro plan's billing line (spec 4): the end date once cancelled at period end, otherwise the
 * next billing date; nothing without a period end or while a payment has failed.
 */
export function billingLine(
  status: Pick<SubscriptionStatus, 'plan' | 'subscriptionActive' | 'currentPeriodEnd' | 'cancelAtPeriodEnd'>,
  formatDate: (iso: string) => string,
): string | undefined {
  if (status.plan !== 'pro' || !status.currentPeriodEnd) return undefined;
  if (status.cancelAtPeriodEnd) return `Your Pro plan ends on ${formatDate(status.currentPeriodEnd)}`;
  if (!status.subscriptionActive) return undefined;
  return `Next billing date: ${formatDate(status.currentPeriodEnd)}`;
}
