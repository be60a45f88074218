import { planLimits, proFeatures, UNLIMITED, upgradeMessage, type PlanId } from '../../shared/plans';
import type { SubscriptionStatus } from '../../shared/schemas/project';
import { PlanLimitError } from '../core/errors';

/** Usage counters kept on the user item; the limits are checked against them atomically. */
export interface Usage {
  /** The plan whose limits apply (see effectivePlan). */
  plan: PlanId;
  projectCount: number;
  accountCount: number;
  /** The plan and status as stored, so a conditional write can require that they did not change. */
  stored?: { plan?: string; status?: string };
}

/**
 * The plan whose limits apply: Pro only while its subscription is active or trialing (a missing
 * status is the default, active). Past-due and canceled subscriptions keep their data and fall
 * back to the free limits.
 */
export function effectivePlan(plan: unknown, status: unknown): PlanId {
  return plan === 'pro' && (status === undefined || status === null || status === 'active' || status === 'trialing') ? 'pro' : 'free';
}

export const PROJECT_LIMIT_MESSAGE = 'You have reached your project limit.';
export const ACCOUNT_LIMIT_MESSAGE = 'You have reached your account limit.';

const remaining = (limit: number, used: number) => (limit === UNLIMITED ? UNLIMITED : Math.max(0, limit - used));

/**
 * Whether a new project with `accounts` accounts fits the plan, before anything is written.
 * The conditional update that reserves the counters repeats the check atomically.
 */
export function assertFitsPlan(usage: Usage, accounts: number): void {
  const limits = planLimits[usage.plan];
  if (limits.projects !== UNLIMITED && usage.projectCount >= limits.projects) {
    throw new PlanLimitError(PROJECT_LIMIT_MESSAGE, { limit: 'projects', max: limits.projects, used: usage.projectCount });
  }
  if (limits.accountsPerProject !== UNLIMITED && accounts > limits.accountsPerProject) {
    throw new PlanLimitError(
      `The ${usage.plan === 'free' ? 'free' : usage.plan} plan allows at most ${limits.accountsPerProject} accounts per project; this request has ${accounts}.`,
      { limit: 'accountsPerProject', max: limits.accountsPerProject, requested: accounts },
    );
  }
  if (limits.accountsTotal !== UNLIMITED && usage.accountCount + accounts > limits.accountsTotal) {
    throw new PlanLimitError(ACCOUNT_LIMIT_MESSAGE, {
      limit: 'accountsTotal',
      max: limits.accountsTotal,
      used: usage.accountCount,
      remaining: remaining(limits.accountsTotal, usage.accountCount),
      requested: accounts,
    });
  }
}

/** People added to a project would take it past the plan's accounts per project. */
export const projectFullMessage = (max: number, held: number, requested: number): string =>
  `This plan allows at most ${max} accounts per project: this project has ${held}, so ${Math.max(0, max - held)} more can be added, not ${requested}.`;

/** Refuses a request that uses API integrations (external accounts) unless the plan has them. */
export function assertApiIntegrations(plan: PlanId): void {
  if (!planLimits[plan].apiIntegrations) throw new PlanLimitError(upgradeMessage(proFeatures.apiIntegrations), { feature: 'apiIntegrations' });
}

/** Refuses creating or changing e-mail templates (e-mail notifications) unless the plan has them. */
export function assertEmailTemplates(plan: PlanId): void {
  if (!planLimits[plan].emailNotifications) throw new PlanLimitError(upgradeMessage(proFeatures.emailTemplates), { feature: 'emailTemplates' });
}

/** Refuses e-mailing credentials to account holders (e-mail notifications) unless the plan has it. */
export function assertCredentialEmails(plan: PlanId): void {
  if (!planLimits[plan].emailNotifications) throw new PlanLimitError(upgradeMessage(proFeatures.credentialEmails), { feature: 'credentialEmails' });
}

/**
 * GET /api/subscription/status: computed from the same counters that enforce the limits.
 * `usage.plan` is the stored plan; the limits are those of the effective plan.
 */
export function subscriptionStatus(
  usage: Usage,
  subscription: { status: string; currentPeriodEnd?: string; cancelAtPeriodEnd: boolean },
): SubscriptionStatus {
  const limits = planLimits[effectivePlan(usage.plan, subscription.status)];
  const remainingProjects = remaining(limits.projects, usage.projectCount);
  const remainingAccounts = remaining(limits.accountsTotal, usage.accountCount);
  return {
    plan: usage.plan,
    subscriptionActive: usage.plan === 'pro' && effectivePlan(usage.plan, subscription.status) === 'pro',
    ...(subscription.currentPeriodEnd ? { currentPeriodEnd: subscription.currentPeriodEnd } : {}),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    usage: {
      canCreateProject: remainingProjects !== 0,
      canCreateAccount: remainingAccounts !== 0,
      canUseApiIntegrations: limits.apiIntegrations,
      remainingProjects,
      remainingAccounts,
      projectsUsed: usage.projectCount,
      accountsUsed: usage.accountCount,
    },
  };
}
