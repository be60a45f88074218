import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { billingLine, effectivePlanOf, freeUsageMeters, isPaymentFailed, usageMeter } from '../../frontend/src/lib/plan-status';
import { planLimits, UNLIMITED } from '../../shared/plans';

const day = (iso: string) => `day ${iso.slice(0, 10)}`;

describe('effectivePlanOf and isPaymentFailed', () => {
  it.each([
    [{ plan: 'free', subscriptionActive: false }, 'free', false],
    [{ plan: 'pro', subscriptionActive: true }, 'pro', false],
    // Past due: Pro is stored, the free limits apply, the payment failed.
    [{ plan: 'pro', subscriptionActive: false }, 'free', true],
  ] as const)('%j -> %s, payment failed %s', (status, plan, failed) => {
    expect(effectivePlanOf(status)).toBe(plan);
    expect(isPaymentFailed(status)).toBe(failed);
  });
});

describe('usageMeter', () => {
  it('computes the used count from the remaining count (spec 9)', () => {
    expect(usageMeter(3, 1, 2)).toEqual({ used: 2, limit: 3, percent: 67 });
    expect(usageMeter(300, 300, 0)).toEqual({ used: 0, limit: 300, percent: 0 });
    expect(usageMeter(300, 0, 300)).toEqual({ used: 300, limit: 300, percent: 100 });
  });

  it('shows a count above the limit as reported, the bar full', () => {
    expect(usageMeter(3, 0, 7)).toEqual({ used: 7, limit: 3, percent: 100 });
  });

  it('has no meter for an unlimited plan', () => {
    expect(usageMeter(UNLIMITED, UNLIMITED, 12)).toBeUndefined();
  });

  it('keeps used within 0..max(limit, reported) and the percent within 0..100', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 2000 }), (limit, remaining, reported) => {
        const meter = usageMeter(limit, Math.min(remaining, limit), reported)!;
        expect(meter.used).toBeGreaterThanOrEqual(0);
        expect(meter.used).toBeLessThanOrEqual(Math.max(limit, reported));
        expect(meter.percent).toBeGreaterThanOrEqual(0);
        expect(meter.percent).toBeLessThanOrEqual(100);
        if (reported <= limit && remaining === limit - reported) expect(meter.used).toBe(reported);
      }),
    );
  });

  it('measures against the free limits', () => {
    const meters = freeUsageMeters({
      canCreateProject: true,
      canCreateAccount: true,
      canUseApiIntegrations: false,
      remainingProjects: 2,
      remainingAccounts: 250,
      projectsUsed: 1,
      accountsUsed: 50,
    });
    expect(meters.projects).toMatchObject({ used: 1, limit: planLimits.free.projects });
    expect(meters.accounts).toMatchObject({ used: 50, limit: planLimits.free.accountsTotal });
  });
});

describe('billingLine', () => {
  const periodEnd = '2027-01-15T00:00:00.000Z';

  it('gives the next billing date for an active Pro plan', () => {
    expect(billingLine({ plan: 'pro', subscriptionActive: true, currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false }, day)).toBe(
      'Next billing date: day 2027-01-15',
    );
  });

  it('gives the end date once cancelled at period end', () => {
    expect(billingLine({ plan: 'pro', subscriptionActive: true, currentPeriodEnd: periodEnd, cancelAtPeriodEnd: true }, day)).toBe(
      'Your Pro plan ends on day 2027-01-15',
    );
  });

  it('says nothing for free, without a period end, or while a payment has failed', () => {
    expect(billingLine({ plan: 'free', subscriptionActive: false, currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false }, day)).toBeUndefined();
    expect(billingLine({ plan: 'pro', subscriptionActive: true, cancelAtPeriodEnd: false }, day)).toBeUndefined();
    expect(billingLine({ plan: 'pro', subscriptionActive: false, currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false }, day)).toBeUndefined();
  });
});
