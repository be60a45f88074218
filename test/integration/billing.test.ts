import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import Stripe from 'stripe';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SubscriptionStatus } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';

const webhookSecret = () => fs.readFileSync(path.join(inject('stack').dataDir, 'stripe-webhook-secret'), 'utf8').trim();

/** Posts an event to the webhook as Stripe does: JSON body, Stripe-Signature over the raw body. */
async function deliver(event: Record<string, unknown>, sign = true): Promise<Response> {
  const payload = JSON.stringify(event);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (sign) headers['stripe-signature'] = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret() });
  return fetch(`${inject('stack').urls.app}/api/stripe/webhook`, { method: 'POST', headers, body: payload });
}

const unique = () => randomUUID().replaceAll('-', '');

describe('Stripe webhook through the local gateway', () => {
  it('upgrades a user on checkout.session.completed, lifts the free limits, and brings back free on deletion', async () => {
    const user = await apiUser();
    const customer = `cus_${unique()}`;
    const subscription = `sub_${unique()}`;
    const created = Math.floor(Date.now() / 1000);
    const completed = {
      id: `evt_${unique()}`,
      object: 'event',
      type: 'checkout.session.completed',
      created,
      data: { object: { object: 'checkout.session', client_reference_id: user.sub, customer, subscription, mode: 'subscription', payment_status: 'paid' } },
    };
    const first = await deliver(completed);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ received: true, outcome: 'applied' });
    expect((await (await deliver(completed)).json()) as object).toMatchObject({ outcome: 'duplicate' });

    const pro = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(pro).toMatchObject({ plan: 'pro', subscriptionActive: true, usage: { remainingProjects: -1, remainingAccounts: -1, canUseApiIntegrations: true } });
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Pro sized', csvData: people(150, 'Billing') } })).status).toBe(200);

    const deleted = await deliver({
      id: `evt_${unique()}`,
      object: 'event',
      type: 'customer.subscription.deleted',
      created: created + 1,
      data: { object: { object: 'subscription', id: subscription, customer, status: 'canceled' } },
    });
    expect(deleted.status).toBe(200);
    const free = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(free).toMatchObject({ plan: 'free', subscriptionActive: false, usage: { canUseApiIntegrations: false, accountsUsed: 150 } });
    // Data is kept; the free limits apply again.
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Too big', csvData: people(101, 'Again') } })).status).toBe(403);
  });

  it('answers 400 to an unsigned or tampered post and changes nothing', async () => {
    const user = await apiUser();
    const before = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, ConsistentRead: true }));
    const forged = {
      id: `evt_${unique()}`,
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: { object: { client_reference_id: user.sub, customer: `cus_${unique()}`, subscription: `sub_${unique()}` } },
    };
    const unsigned = await deliver(forged, false);
    expect(unsigned.status).toBe(400);
    expect(await unsigned.json()).toEqual({ message: 'Invalid signature' });

    const payload = JSON.stringify(forged);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: JSON.stringify({ ...forged, id: 'evt_other' }), secret: webhookSecret() });
    const tampered = await fetch(`${inject('stack').urls.app}/api/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
    expect(tampered.status).toBe(400);

    const after = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, ConsistentRead: true }));
    expect(after.Item).toEqual(before.Item);
    const { Item: marker } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `STRIPE_EVENT#${forged.id}`, SK: 'EVENT' } }));
    expect(marker).toBeUndefined();
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'free' });
  });
});

const userItem = async (user: ApiUser) =>
  (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, ConsistentRead: true }))).Item ?? {};

/** Presses a button of the local billing portal (a form post), as the browser does. */
async function portalAction(portalUrl: string, action: string): Promise<void> {
  const response = await fetch(`${portalUrl}/${action}`, { method: 'POST', redirect: 'manual' });
  expect(response.status).toBe(303);
}

/** The session a local checkout link names (its signed token's payload). */
function checkoutSession(url: string): string {
  const token = url.split('/local-billing/checkout/')[1] ?? '';
  const payload = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { sessionId: string; userId: string };
  return `${payload.userId}/${payload.sessionId}`;
}

describe('Upgrading through the local test checkout', () => {
  it('takes a free user to Pro and back through checkout and portal, each step a signed webhook event', async () => {
    const user = await apiUser({ firstName: 'Grace', lastName: 'Hopper' });
    // The gate before: a Pro-only export format is refused on the server.
    const project = await user.json<{ project: { id: string } }>('/api/bulk-create', { body: { projectName: 'Gate', csvData: people(2, 'Gate') } });
    const xlsx = await user.call('/api/exports', { body: { projectId: project.project.id, format: 'xlsx' } });
    expect(xlsx.status).toBe(403);

    const attempt = { headers: { 'idempotency-key': `attempt-${unique()}` } };
    const first = await user.call('/api/subscription/create-checkout', { method: 'POST', ...attempt });
    expect(first.status).toBe(200);
    const { checkoutUrl } = (await first.json()) as { checkoutUrl: string };
    expect(checkoutUrl).toMatch(new RegExp(`^${inject('stack').urls.app}/local-billing/checkout/`));
    // The same attempt (a double click) is the same session (the link's expiry may differ by a
    // second, so compare the session it names); the customer is created once.
    const again = (await (await user.call('/api/subscription/create-checkout', { method: 'POST', ...attempt })).json()) as { checkoutUrl: string };
    expect(checkoutSession(again.checkoutUrl)).toBe(checkoutSession(checkoutUrl));
    const customerId = (await userItem(user)).stripeCustomerId as string;
    expect(customerId).toMatch(/^cus_local_/);

    const page = await fetch(checkoutUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Local test checkout');
    expect(html).toContain('$19.95');
    expect(html).toContain(user.email);

    const paid = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${inject('stack').urls.app}/settings?tab=subscription&checkout=success`);
    // Paying twice (a reload of the form) starts no second subscription.
    expect((await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);

    const pro = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(pro).toMatchObject({ plan: 'pro', subscriptionActive: true, cancelAtPeriodEnd: false, usage: { remainingProjects: -1, canUseApiIntegrations: true } });
    const periodEnd = new Date(pro.currentPeriodEnd!);
    expect(periodEnd.getTime() - Date.now()).toBeGreaterThan(27 * 24 * 3600 * 1000);
    expect((await userItem(user)).stripeSubscriptionId).toMatch(/^sub_local_/);
    expect((await user.call('/api/exports', { body: { projectId: project.project.id, format: 'xlsx' } })).status).toBe(202);
    // A Pro user cannot start a second subscription.
    expect((await user.call('/api/subscription/create-checkout', { method: 'POST' })).status).toBe(409);

    const { portalUrl } = await user.json<{ portalUrl: string }>('/api/subscription/create-portal', { method: 'POST' });
    expect(portalUrl).toMatch(/\/local-billing\/portal\//);
    const portal = await (await fetch(portalUrl)).text();
    expect(portal).toContain('Local test checkout');
    expect(portal).toContain('Cancel subscription');

    await portalAction(portalUrl, 'cancel-at-period-end');
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'pro', subscriptionActive: true, cancelAtPeriodEnd: true, currentPeriodEnd: pro.currentPeriodEnd });
    await portalAction(portalUrl, 'resume');
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'pro', cancelAtPeriodEnd: false });

    // A failed payment: past due, the free limits apply, nothing is deleted.
    await portalAction(portalUrl, 'fail-payment');
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'pro', subscriptionActive: false, usage: { canUseApiIntegrations: false, remainingProjects: 2 } });
    expect((await userItem(user)).subscriptionStatus).toBe('past_due');
    expect((await user.call('/api/exports', { body: { projectId: project.project.id, format: 'json' } })).status).toBe(403);
    // Past due is still a subscription: paying it, not a second checkout, is the way back.
    expect((await user.call('/api/subscription/create-checkout', { method: 'POST' })).status).toBe(409);
    await portalAction(portalUrl, 'pay-overdue');
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'pro', subscriptionActive: true });

    await portalAction(portalUrl, 'cancel-now');
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'free', subscriptionActive: false, usage: { accountsUsed: 2 } });
    expect(await user.json<unknown[]>('/api/projects')).toHaveLength(1);

    // Back on free, a new checkout reuses the same customer.
    await upgradeToPro(user);
    expect((await userItem(user)).stripeCustomerId).toBe(customerId);
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'pro', subscriptionActive: true });
  });

  it("refuses a free user's direct calls to Pro-only features", async () => {
    const user = await apiUser();
    const project = await user.json<{ project: { id: string } }>('/api/bulk-create', { body: { projectName: 'Free', csvData: people(1, 'Free') } });
    for (const format of ['xlsx', 'json']) {
      const refused = await user.call('/api/exports', { body: { projectId: project.project.id, format } });
      expect(refused.status).toBe(403);
    }
    const external = await user.call('/api/bulk-create', { body: { projectName: 'External', csvData: people(1, 'Ext'), createExternalAccounts: true } });
    expect(external.status).toBe(403);
    expect(await external.json()).toMatchObject({ message: expect.stringContaining('Upgrade to Pro to access API Integrations') });
    const viaIntegration = await user.call('/api/bulk-create', { body: { projectName: 'External', csvData: people(1, 'Ext'), apiIntegrationId: 'int_1' } });
    expect(viaIntegration.status).toBe(403);
    // Nothing was created by the refused calls.
    expect(await user.json<unknown[]>('/api/projects')).toHaveLength(1);
  });

  it('answers stale to an older event and 409 (unrecorded, so Stripe retries) for an unknown user', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const item = await userItem(user);
    const older = await deliver({
      id: `evt_${unique()}`,
      object: 'event',
      type: 'customer.subscription.deleted',
      created: Number(item.subscriptionEventAt) - 60,
      data: { object: { object: 'subscription', id: item.stripeSubscriptionId, customer: item.stripeCustomerId, status: 'canceled', metadata: { userId: user.sub } } },
    });
    expect(older.status).toBe(200);
    expect(await older.json()).toMatchObject({ outcome: 'stale' });
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'pro', subscriptionActive: true });

    const unknown = {
      id: `evt_${unique()}`,
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: { object: { object: 'checkout.session', client_reference_id: randomUUID(), customer: `cus_${unique()}`, subscription: `sub_${unique()}`, payment_status: 'paid' } },
    };
    expect((await deliver(unknown)).status).toBe(409);
    const { Item: marker } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `STRIPE_EVENT#${unknown.id}`, SK: 'EVENT' } }));
    expect(marker).toBeUndefined();
  });

  it('never starts a second subscription from a second open checkout (two tabs)', async () => {
    const user = await apiUser();
    const first = await user.json<{ checkoutUrl: string }>('/api/subscription/create-checkout', { method: 'POST' });
    const second = await user.json<{ checkoutUrl: string }>('/api/subscription/create-checkout', { method: 'POST' });
    expect(second.checkoutUrl).not.toBe(first.checkoutUrl);
    expect((await fetch(`${first.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const refused = await fetch(`${second.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('You already have a BulkOnboard Pro subscription');
    const subscription = (await userItem(user)).stripeSubscriptionId;
    expect(await user.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'pro', subscriptionActive: true });
    expect((await userItem(user)).stripeSubscriptionId).toBe(subscription);
  });

  it('creates one customer when several first checkouts race', async () => {
    const user = await apiUser();
    const answers = await Promise.all(Array.from({ length: 5 }, () => user.call('/api/subscription/create-checkout', { method: 'POST' })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const customers = await Promise.all(
      answers.map(async (a) => {
        const { checkoutUrl } = (await a.json()) as { checkoutUrl: string };
        const token = checkoutUrl.slice(checkoutUrl.lastIndexOf('/') + 1).split('.')[0]!;
        return (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { customerId: string }).customerId;
      }),
    );
    expect(new Set(customers).size).toBe(1);
    expect((await userItem(user)).stripeCustomerId).toBe(customers[0]);
  });

  it('keeps checkout and portal links to their own user', async () => {
    const owner = await apiUser();
    const other = await apiUser();
    const { checkoutUrl } = await owner.json<{ checkoutUrl: string }>('/api/subscription/create-checkout', { method: 'POST' });
    // No customer yet: nothing to manage.
    expect((await other.call('/api/subscription/create-portal', { method: 'POST' })).status).toBe(409);
    // A tampered link is refused and changes nothing.
    const [base, token] = [checkoutUrl.slice(0, checkoutUrl.lastIndexOf('/')), checkoutUrl.slice(checkoutUrl.lastIndexOf('/') + 1)];
    const [payload, mac] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${base}/${Buffer.from(JSON.stringify({ ...claims, userId: other.sub })).toString('base64url')}.${mac}`;
    expect((await fetch(forged)).status).toBe(404);
    expect((await fetch(`${forged}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(404);
    expect(await other.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'free' });
    expect(await owner.json<SubscriptionStatus>('/api/subscription/status')).toMatchObject({ plan: 'free' });
    // Unauthenticated calls never reach billing.
    expect((await fetch(`${inject('stack').urls.app}/api/subscription/create-checkout`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${inject('stack').urls.app}/api/subscription/create-portal`, { method: 'POST' })).status).toBe(401);
  });
});
