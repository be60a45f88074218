import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import {
  handleStripeEvent,
  type BillingUserStore,
  type ProcessedEventStore,
  type SubscriptionChange,
} from '../../functions/billing/handle-stripe-event';
import { effectivePlan, subscriptionStatus } from '../../functions/usage/plan-usage';

const SECRET = 'whsec_unit_test_secret';
const NOW = new Date('2026-05-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

type StoredUser = SubscriptionChange & { subscriptionEventAt?: number };

function memoryBilling() {
  const users = new Map<string, StoredUser>([['user-1', {}]]);
  const customers = new Map<string, string>();
  const processed = new Set<string>();
  const store: BillingUserStore = {
    applySubscription: async (userId, change, created) => {
      const user = users.get(userId);
      if (!user) return 'missing';
      if (user.subscriptionEventAt !== undefined && user.subscriptionEventAt > created) return 'stale';
      const defined = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
      users.set(userId, { ...user, ...defined, subscriptionEventAt: created });
      return 'applied';
    },
    linkCustomer: async (customerId, userId) => void customers.set(customerId, userId),
    userOfCustomer: async (customerId) => customers.get(customerId),
  };
  const events: ProcessedEventStore = {
    markProcessed: async (id) => !processed.has(id) && Boolean(processed.add(id)),
    unmark: async (id) => void processed.delete(id),
  };
  const handle = handleStripeEvent({ users: store, events, clock: () => NOW, webhookSecret: SECRET });
  return { users, customers, processed, handle };
}

let sequence = 0;
const stripeEvent = (type: string, object: Record<string, unknown>, created = nowSeconds) => ({
  id: `evt_${++sequence}`,
  object: 'event',
  type,
  created,
  data: { object },
});
const signed = (event: unknown, options: { secret?: string; timestamp?: number } = {}) => {
  const rawBody = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: rawBody, secret: options.secret ?? SECRET, timestamp: options.timestamp ?? nowSeconds });
  return { rawBody, signature };
};
const checkout = (created = nowSeconds) =>
  stripeEvent('checkout.session.completed', { object: 'checkout.session', client_reference_id: 'user-1', customer: 'cus_1', subscription: 'sub_1' }, created);

describe('handleStripeEvent: signature', () => {
  it('applies a correctly signed checkout.session.completed: pro, active, customer and subscription stored', async () => {
    const { users, customers, handle } = memoryBilling();
    expect(await handle(signed(checkout()))).toBe('applied');
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'active', stripeCustomerId: 'cus_1', stripeSubscriptionId: 'sub_1', subscriptionEventAt: nowSeconds });
    expect(customers.get('cus_1')).toBe('user-1');
  });

  it.each([
    ['a tampered body', () => {
      const request = signed(checkout());
      return { ...request, rawBody: request.rawBody.replace('user-1', 'user-2') };
    }],
    ['a wrong secret', () => signed(checkout(), { secret: 'whsec_someone_else' })],
    ['a stale timestamp (over 300 s)', () => signed(checkout(), { timestamp: nowSeconds - 301 })],
    ['no signature', () => ({ rawBody: JSON.stringify(checkout()), signature: undefined })],
    ['no body', () => ({ rawBody: undefined, signature: signed(checkout()).signature })],
    ['a garbage signature header', () => ({ rawBody: JSON.stringify(checkout()), signature: 't=1,v1=abc' })],
  ])('refuses %s with 400 Invalid signature and changes nothing', async (_name, request) => {
    const { users, customers, processed, handle } = memoryBilling();
    await expect(handle(request())).rejects.toMatchObject({ statusCode: 400, message: 'Invalid signature' });
    expect(users.get('user-1')).toEqual({});
    expect(customers.size).toBe(0);
    expect(processed.size).toBe(0);
  });

  it('accepts a signature within the tolerance', async () => {
    const { handle } = memoryBilling();
    expect(await handle(signed(checkout(), { timestamp: nowSeconds - 299 }))).toBe('applied');
  });
});

describe('handleStripeEvent: once and in order', () => {
  it('handles a replayed event id once: no second effect', async () => {
    const { users, handle } = memoryBilling();
    const failed = signed(stripeEvent('invoice.payment_failed', { customer: 'cus_1' }, nowSeconds + 10));
    await handle(signed(checkout()));
    expect(await handle(failed)).toBe('applied');
    // A newer event restores active; replaying the old failure must not bring past_due back.
    await handle(signed(stripeEvent('customer.subscription.updated', { id: 'sub_1', customer: 'cus_1', status: 'active', metadata: { userId: 'user-1' } }, nowSeconds + 20)));
    expect(await handle(failed)).toBe('duplicate');
    expect(users.get('user-1')?.status).toBe('active');
  });

  it('ignores an older subscription event after a newer one', async () => {
    const { users, handle } = memoryBilling();
    await handle(signed(checkout(nowSeconds - 100)));
    await handle(signed(stripeEvent('customer.subscription.deleted', { id: 'sub_1', customer: 'cus_1', metadata: { userId: 'user-1' } }, nowSeconds)));
    const older = stripeEvent('customer.subscription.updated', { id: 'sub_1', customer: 'cus_1', status: 'active', cancel_at_period_end: true, metadata: { userId: 'user-1' } }, nowSeconds - 50);
    expect(await handle(signed(older))).toBe('stale');
    expect(users.get('user-1')).toMatchObject({ plan: 'free', status: 'canceled', cancelAtPeriodEnd: false, subscriptionEventAt: nowSeconds });
  });

  it('leaves an event for Stripe to retry when its customer is not linked yet (409, not recorded)', async () => {
    const { processed, handle } = memoryBilling();
    const early = signed(stripeEvent('invoice.payment_failed', { customer: 'cus_unknown' }));
    await expect(handle(early)).rejects.toMatchObject({ statusCode: 409 });
    expect(processed.size).toBe(0);
  });

  it('ignores event types it does not handle, without recording them', async () => {
    const { users, processed, handle } = memoryBilling();
    expect(await handle(signed(stripeEvent('customer.created', { id: 'cus_1' })))).toBe('ignored');
    expect(users.get('user-1')).toEqual({});
    expect(processed.size).toBe(0);
  });
});

describe('handleStripeEvent: each event type', () => {
  it('customer.subscription.updated sets status, period end and cancel-at-period-end (metadata.userId)', async () => {
    const { users, handle } = memoryBilling();
    const periodEnd = nowSeconds + 30 * 86400;
    await handle(signed(stripeEvent('customer.subscription.updated', { id: 'sub_1', customer: 'cus_9', status: 'active', current_period_end: periodEnd, cancel_at_period_end: true, metadata: { userId: 'user-1' } })));
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'active', cancelAtPeriodEnd: true, currentPeriodEnd: new Date(periodEnd * 1000).toISOString() });
  });

  it('customer.subscription.updated finds the user by the customer link and reads the period end from the items (newer API)', async () => {
    const { users, handle } = memoryBilling();
    await handle(signed(checkout(nowSeconds - 10)));
    const periodEnd = nowSeconds + 86400;
    await handle(signed(stripeEvent('customer.subscription.updated', { id: 'sub_1', customer: 'cus_1', status: 'past_due', cancel_at_period_end: false, items: { data: [{ current_period_end: periodEnd }] } })));
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'past_due', currentPeriodEnd: new Date(periodEnd * 1000).toISOString() });
  });

  it('customer.subscription.deleted brings back free and canceled', async () => {
    const { users, handle } = memoryBilling();
    await handle(signed(checkout(nowSeconds - 10)));
    await handle(signed(stripeEvent('customer.subscription.deleted', { id: 'sub_1', customer: 'cus_1', status: 'canceled' })));
    expect(users.get('user-1')).toMatchObject({ plan: 'free', status: 'canceled', cancelAtPeriodEnd: false, stripeCustomerId: 'cus_1' });
  });

  it('invoice.payment_failed sets past_due and keeps the plan', async () => {
    const { users, handle } = memoryBilling();
    await handle(signed(checkout(nowSeconds - 10)));
    await handle(signed(stripeEvent('invoice.payment_failed', { customer: 'cus_1', parent: { subscription_details: { subscription: 'sub_1', metadata: { userId: 'user-1' } } } })));
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'past_due' });
  });
});

describe('effective plan', () => {
  it('is pro only while the subscription is active or trialing', () => {
    expect(effectivePlan('pro', 'active')).toBe('pro');
    expect(effectivePlan('pro', 'trialing')).toBe('pro');
    expect(effectivePlan('pro', undefined)).toBe('pro');
    expect(effectivePlan('pro', 'past_due')).toBe('free');
    expect(effectivePlan('pro', 'canceled')).toBe('free');
    expect(effectivePlan('free', 'active')).toBe('free');
  });

  it('a past-due pro user keeps plan pro but gets the free limits and no active subscription', () => {
    const status = subscriptionStatus({ plan: 'pro', projectCount: 5, accountCount: 500 }, { status: 'past_due', cancelAtPeriodEnd: false });
    expect(status).toMatchObject({ plan: 'pro', subscriptionActive: false, usage: { canCreateProject: false, remainingProjects: 0, remainingAccounts: 0, canUseApiIntegrations: false } });
  });
});
