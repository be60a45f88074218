import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { handleStripeEvent, type BillingUserStore, type SubscriptionChange } from '../../functions/billing/handle-stripe-event';
import { effectivePlan, subscriptionStatus } from '../../functions/usage/plan-usage';

const SECRET = 'whsec_unit_test_secret';
const NOW = new Date('2026-05-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

type StoredUser = SubscriptionChange & { subscriptionEventAt?: number };

/** The store's contract, as a map (the DynamoDB transaction is covered by integration tests). */
function memoryBilling(initial: StoredUser = {}) {
  const users = new Map<string, StoredUser>([['user-1', { ...initial }]]);
  const customers = new Map<string, string>();
  const processed = new Set<string>();
  const store: BillingUserStore = {
    applyEvent: async ({ eventId, userId, change, eventCreated, guards }) => {
      if (processed.has(eventId)) return 'duplicate';
      const user = users.get(userId);
      if (!user) return 'missing';
      const at = user.subscriptionEventAt;
      if (at !== undefined && (guards.weak ? at >= eventCreated : at > eventCreated)) return 'stale';
      if (guards.subscriptionId && user.stripeSubscriptionId && user.stripeSubscriptionId !== guards.subscriptionId && !['canceled', 'incomplete_expired'].includes(user.status ?? '')) return 'stale';
      if (guards.customerId && user.stripeCustomerId && user.stripeCustomerId !== guards.customerId) return 'stale';
      processed.add(eventId);
      const defined = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
      users.set(userId, { ...user, ...defined, subscriptionEventAt: eventCreated });
      return 'applied';
    },
    linkCustomer: async (customerId, userId) => void customers.set(customerId, userId),
    userOfCustomer: async (customerId) => customers.get(customerId),
  };
  const handle = handleStripeEvent({ users: store, clock: () => NOW, webhookSecret: SECRET });
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

describe('handleStripeEvent: current Stripe shapes and guards', () => {
  const sub = (fields: Record<string, unknown>) => ({ object: 'subscription', id: 'sub_1', customer: 'cus_1', metadata: { userId: 'user-1' }, ...fields });

  it('reads a flexible-billing cancellation (cancel_at set, cancel_at_period_end false) as ending on cancel_at', async () => {
    const { users, handle } = memoryBilling();
    await handle(signed(checkout(nowSeconds - 10)));
    const cancelAt = nowSeconds + 20 * 86400;
    await handle(signed(stripeEvent('customer.subscription.updated', sub({ status: 'active', cancel_at_period_end: false, cancel_at: cancelAt, items: { data: [{ current_period_end: cancelAt }] } }))));
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'active', cancelAtPeriodEnd: true, currentPeriodEnd: new Date(cancelAt * 1000).toISOString() });
    // Renewed: cancel_at cleared.
    await handle(signed(stripeEvent('customer.subscription.updated', sub({ status: 'active', cancel_at_period_end: false, cancel_at: null, items: { data: [{ current_period_end: cancelAt }] } }), nowSeconds + 1)));
    expect(users.get('user-1')).toMatchObject({ cancelAtPeriodEnd: false });
  });

  it('lets the same second\'s activation win over an incomplete subscription, whatever the delivery order', async () => {
    const { users, handle } = memoryBilling();
    await handle(signed(stripeEvent('customer.subscription.updated', sub({ status: 'active' }))));
    expect(await handle(signed(stripeEvent('customer.subscription.created', sub({ status: 'incomplete' }))))).toBe('stale');
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'active' });
  });

  it('grants Pro on checkout completion only once paid; an unpaid one stores the ids only', async () => {
    const { users, handle } = memoryBilling();
    const unpaid = stripeEvent('checkout.session.completed', { object: 'checkout.session', client_reference_id: 'user-1', customer: 'cus_1', subscription: 'sub_1', payment_status: 'unpaid' });
    expect(await handle(signed(unpaid))).toBe('applied');
    expect(users.get('user-1')).toMatchObject({ stripeCustomerId: 'cus_1', stripeSubscriptionId: 'sub_1' });
    expect(users.get('user-1')?.plan).toBeUndefined();
    await handle(signed(stripeEvent('customer.subscription.updated', sub({ status: 'active' }), nowSeconds + 5)));
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'active' });
  });

  it("ignores events of a subscription that is not the user's current one", async () => {
    const { users, handle } = memoryBilling();
    await handle(signed(checkout(nowSeconds - 10)));
    expect(await handle(signed(stripeEvent('customer.subscription.deleted', sub({ id: 'sub_other', status: 'canceled' }))))).toBe('stale');
    expect(await handle(signed(stripeEvent('invoice.payment_failed', { customer: 'cus_1', parent: { subscription_details: { subscription: 'sub_other', metadata: { userId: 'user-1' } } } })))).toBe('stale');
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'active', stripeSubscriptionId: 'sub_1' });
    // Once the current one has ended, a new subscription's events apply (resubscribing).
    await handle(signed(stripeEvent('customer.subscription.deleted', sub({ status: 'canceled' }), nowSeconds + 1)));
    expect(await handle(signed(stripeEvent('customer.subscription.created', sub({ id: 'sub_2', status: 'active' }), nowSeconds + 2)))).toBe('applied');
    expect(users.get('user-1')).toMatchObject({ plan: 'pro', status: 'active', stripeSubscriptionId: 'sub_2' });
  });

  it("refuses a checkout completion that names another customer than the user's", async () => {
    const { users, customers, handle } = memoryBilling({ stripeCustomerId: 'cus_mine' });
    const foreign = stripeEvent('checkout.session.completed', { object: 'checkout.session', client_reference_id: 'user-1', customer: 'cus_foreign', subscription: 'sub_9', payment_status: 'paid' });
    expect(await handle(signed(foreign))).toBe('stale');
    expect(users.get('user-1')).toEqual({ stripeCustomerId: 'cus_mine' });
    expect(customers.has('cus_foreign')).toBe(false);
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
