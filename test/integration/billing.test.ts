import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import Stripe from 'stripe';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SubscriptionStatus } from '../../shared/schemas/project';
import { apiUser, people, testDb } from '../support/api';

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
    const created = Math.floor(Date.now() / 1000);
    const completed = {
      id: `evt_${unique()}`,
      object: 'event',
      type: 'checkout.session.completed',
      created,
      data: { object: { object: 'checkout.session', client_reference_id: user.sub, customer, subscription: `sub_${unique()}`, mode: 'subscription' } },
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
      data: { object: { object: 'subscription', id: 'sub_x', customer, status: 'canceled' } },
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
