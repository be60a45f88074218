import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoBillingUserStore } from '../../functions/billing/billing-store';
import { handleStripeEvent } from '../../functions/billing/handle-stripe-event';
import { keys } from '../../functions/core/keys';
import { testDb } from '../support/api';

/**
 * The webhook's ordering guards (older events, same-second ties, foreign subscriptions and
 * customers, replays) are conditions of one DynamoDB transaction: run them on DynamoDB Local
 * with the real store, not only against test/unit/stripe-webhook.test.ts's in-memory fake.
 */
const TABLE = 'bulkonboard';
const SECRET = 'whsec_store_test_secret';
const NOW = new Date();
const nowSeconds = Math.floor(NOW.getTime() / 1000);
const unique = () => randomUUID().replaceAll('-', '');

/** A user item as the app stores it, with fresh Stripe ids of its own. */
async function billingUser(stored: Record<string, unknown> = {}) {
  const userId = `store-test-${unique()}`;
  const ids = { userId, customer: `cus_${unique()}`, subscription: `sub_${unique()}` };
  await testDb().send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...keys.user(userId), entityType: 'User', id: userId, email: `${userId}@example.com`, subscriptionPlan: 'free', subscriptionStatus: 'active', ...stored },
    }),
  );
  const store = dynamoBillingUserStore(testDb(), TABLE);
  const handle = handleStripeEvent({ users: store, clock: () => NOW, webhookSecret: SECRET });
  const deliver = (type: string, object: Record<string, unknown>, created = nowSeconds, id = `evt_${unique()}`) => {
    const rawBody = JSON.stringify({ id, object: 'event', type, created, data: { object } });
    return handle({ rawBody, signature: Stripe.webhooks.generateTestHeaderString({ payload: rawBody, secret: SECRET, timestamp: nowSeconds }) });
  };
  const read = async () => (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.user(userId), ConsistentRead: true }))).Item ?? {};
  const eventRecorded = async (eventId: string) => (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.stripeEvent(eventId), ConsistentRead: true }))).Item !== undefined;
  const linkedUser = async (customerId: string) => (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.stripeCustomer(customerId), ConsistentRead: true }))).Item?.userId;
  const sub = (fields: Record<string, unknown>) => ({ object: 'subscription', id: ids.subscription, customer: ids.customer, metadata: { userId }, ...fields });
  const checkout = (fields: Record<string, unknown> = {}) => ({ object: 'checkout.session', client_reference_id: userId, customer: ids.customer, subscription: ids.subscription, payment_status: 'paid', ...fields });
  return { ...ids, deliver, read, eventRecorded, linkedUser, sub, checkout };
}

describe('Stripe webhook ordering on DynamoDB Local', () => {
  it('applies a paid checkout once: a replayed event id is a duplicate with no second effect', async () => {
    const u = await billingUser();
    const failedId = `evt_${unique()}`;
    expect(await u.deliver('checkout.session.completed', u.checkout(), nowSeconds - 30)).toBe('applied');
    expect(await u.linkedUser(u.customer)).toBe(u.userId);
    expect(await u.deliver('invoice.payment_failed', { customer: u.customer }, nowSeconds - 20, failedId)).toBe('applied');
    expect(await u.deliver('customer.subscription.updated', u.sub({ status: 'active' }), nowSeconds - 10)).toBe('applied');
    expect(await u.deliver('invoice.payment_failed', { customer: u.customer }, nowSeconds - 20, failedId)).toBe('duplicate');
    expect(await u.read()).toMatchObject({ subscriptionPlan: 'pro', subscriptionStatus: 'active', stripeCustomerId: u.customer, stripeSubscriptionId: u.subscription, subscriptionEventAt: nowSeconds - 10 });
  });

  it('ignores an older event after a newer one, and records nothing for it', async () => {
    const u = await billingUser();
    await u.deliver('checkout.session.completed', u.checkout(), nowSeconds - 100);
    expect(await u.deliver('customer.subscription.deleted', u.sub({ status: 'canceled' }), nowSeconds)).toBe('applied');
    const olderId = `evt_${unique()}`;
    expect(await u.deliver('customer.subscription.updated', u.sub({ status: 'active', cancel_at_period_end: true }), nowSeconds - 50, olderId)).toBe('stale');
    expect(await u.eventRecorded(olderId)).toBe(false);
    expect(await u.read()).toMatchObject({ subscriptionPlan: 'free', subscriptionStatus: 'canceled', subscriptionCancelAtPeriodEnd: false, subscriptionEventAt: nowSeconds });
  });

  it("lets the same second's activation win over an incomplete subscription, in either delivery order", async () => {
    const activeFirst = await billingUser();
    expect(await activeFirst.deliver('customer.subscription.updated', activeFirst.sub({ status: 'active' }))).toBe('applied');
    expect(await activeFirst.deliver('customer.subscription.created', activeFirst.sub({ status: 'incomplete' }))).toBe('stale');
    expect(await activeFirst.read()).toMatchObject({ subscriptionPlan: 'pro', subscriptionStatus: 'active' });

    const incompleteFirst = await billingUser();
    expect(await incompleteFirst.deliver('customer.subscription.created', incompleteFirst.sub({ status: 'incomplete' }))).toBe('applied');
    expect(await incompleteFirst.read()).toMatchObject({ subscriptionStatus: 'incomplete' });
    expect(await incompleteFirst.deliver('customer.subscription.updated', incompleteFirst.sub({ status: 'active' }))).toBe('applied');
    expect(await incompleteFirst.read()).toMatchObject({ subscriptionPlan: 'pro', subscriptionStatus: 'active' });
  });

  it("ignores events of a subscription that is not the user's current one, until that one has ended", async () => {
    const u = await billingUser();
    await u.deliver('checkout.session.completed', u.checkout(), nowSeconds - 10);
    const other = `sub_${unique()}`;
    expect(await u.deliver('customer.subscription.deleted', u.sub({ id: other, status: 'canceled' }))).toBe('stale');
    expect(await u.deliver('invoice.payment_failed', { customer: u.customer, parent: { subscription_details: { subscription: other, metadata: { userId: u.userId } } } })).toBe('stale');
    expect(await u.read()).toMatchObject({ subscriptionPlan: 'pro', subscriptionStatus: 'active', stripeSubscriptionId: u.subscription });
    // Once the current one has ended, a new subscription's events apply (resubscribing).
    expect(await u.deliver('customer.subscription.deleted', u.sub({ status: 'canceled' }), nowSeconds + 1)).toBe('applied');
    expect(await u.deliver('customer.subscription.created', u.sub({ id: other, status: 'active' }), nowSeconds + 2)).toBe('applied');
    expect(await u.read()).toMatchObject({ subscriptionPlan: 'pro', subscriptionStatus: 'active', stripeSubscriptionId: other });
  });

  it("refuses a checkout completion that names another customer than the user's, and links nothing", async () => {
    const mine = `cus_${unique()}`;
    const u = await billingUser({ stripeCustomerId: mine });
    const before = await u.read();
    const foreign = `cus_${unique()}`;
    expect(await u.deliver('checkout.session.completed', u.checkout({ customer: foreign }))).toBe('stale');
    expect(await u.read()).toEqual(before);
    expect(await u.linkedUser(foreign)).toBeUndefined();
  });

  it('leaves an event of a customer not linked yet for Stripe to retry (409, not recorded), and never creates a user', async () => {
    const u = await billingUser();
    const earlyId = `evt_${unique()}`;
    await expect(u.deliver('invoice.payment_failed', { customer: `cus_${unique()}` }, nowSeconds, earlyId)).rejects.toMatchObject({ statusCode: 409 });
    expect(await u.eventRecorded(earlyId)).toBe(false);

    const ghost = `ghost-${unique()}`;
    const ghostEvent = `evt_${unique()}`;
    await expect(u.deliver('customer.subscription.updated', u.sub({ status: 'active', metadata: { userId: ghost } }), nowSeconds, ghostEvent)).rejects.toMatchObject({ statusCode: 409 });
    expect(await u.eventRecorded(ghostEvent)).toBe(false);
    expect((await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.user(ghost), ConsistentRead: true }))).Item).toBeUndefined();
  });
});
