import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stripeBillingProvider } from '../../functions/billing/stripe-billing';
import { openPortal, PROVIDER_FAILED_MESSAGE, startCheckout } from '../../functions/billing/billing-sessions';
import type { BillingAccountStore, BillingUser } from '../../functions/billing/billing-port';

/**
 * A local HTTP server that plays the three Stripe endpoints the adapter calls, records every
 * request (path, form body, headers) and answers the way Stripe does.
 */
interface Recorded {
  method: string;
  path: string;
  form: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

const recorded: Recorded[] = [];
let failNext: { status: number; body: unknown } | undefined;
let omitCheckoutUrl = false;
const customersByKey = new Map<string, string>();
let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://stripe.test').pathname;
      recorded.push({ method: req.method ?? '', path, form: new URLSearchParams(body), headers: req.headers });
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${recorded.length}` });
        res.end(JSON.stringify(payload));
      };
      if (failNext) {
        const { status, body: failure } = failNext;
        failNext = undefined;
        return reply(status, failure);
      }
      const key = String(req.headers['idempotency-key'] ?? '');
      if (path === '/v1/customers') {
        const id = customersByKey.get(key) ?? `cus_test_${customersByKey.size + 1}`;
        customersByKey.set(key, id);
        return reply(200, { id, object: 'customer' });
      }
      const form = new URLSearchParams(body);
      if ((path === '/v1/checkout/sessions' || path === '/v1/billing_portal/sessions') && form.get('customer') === 'cus_gone') {
        return reply(400, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'customer', message: "No such customer: 'cus_gone'" } });
      }
      // Account deletion: the customer's subscriptions (one live, one ended), their cancel, the customer's delete.
      if (req.method === 'GET' && path === '/v1/subscriptions') {
        const customer = new URL(req.url ?? '/', 'http://stripe.test').searchParams.get('customer');
        if (customer === 'cus_gone') return reply(404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'customer', message: "No such customer: 'cus_gone'" } });
        return reply(200, { object: 'list', url: '/v1/subscriptions', has_more: false, data: [{ id: 'sub_live', object: 'subscription', status: 'past_due' }, { id: 'sub_old', object: 'subscription', status: 'canceled' }] });
      }
      if (req.method === 'DELETE' && path.startsWith('/v1/subscriptions/')) return reply(200, { id: path.split('/').pop(), object: 'subscription', status: 'canceled' });
      if (req.method === 'DELETE' && path.startsWith('/v1/customers/')) return reply(200, { id: path.split('/').pop(), object: 'customer', deleted: true });
      if (path === '/v1/checkout/sessions') return reply(200, { id: 'cs_test_1', object: 'checkout.session', url: omitCheckoutUrl ? null : 'https://checkout.stripe.test/c/pay/cs_test_1' });
      if (path === '/v1/billing_portal/sessions') return reply(200, { id: 'bps_test_1', object: 'billing_portal.session', url: 'https://billing.stripe.test/p/session/bps_test_1' });
      return reply(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  recorded.length = 0;
  failNext = undefined;
  omitCheckoutUrl = false;
});

const provider = () => stripeBillingProvider({ secretKey: 'sk_test_unit', priceId: 'price_pro_monthly', api: { host: '127.0.0.1', port, protocol: 'http' } });

/** The user items the use cases read and write, as a map (the DynamoDB store is covered by integration tests). */
function memoryUsers(initial: Record<string, BillingUser>) {
  const users = new Map(Object.entries(initial));
  const links = new Map<string, string>();
  const store: BillingAccountStore = {
    billingUser: async (id) => users.get(id),
    storeCustomer: async (id, customerId) => {
      const user = users.get(id)!;
      if (user.stripeCustomerId) return user.stripeCustomerId;
      users.set(id, { ...user, stripeCustomerId: customerId });
      return customerId;
    },
    replaceCustomer: async (id, missingId, customerId) => {
      const user = users.get(id)!;
      if (user.stripeCustomerId !== missingId) return user.stripeCustomerId!;
      users.set(id, { ...user, stripeCustomerId: customerId });
      return customerId;
    },
    linkCustomer: async (customerId, id) => void links.set(customerId, id),
  };
  return { users, links, store };
}

const freeUser: BillingUser = { email: 'ada@example.com', name: 'Ada Lovelace', plan: 'free', status: 'active' };
const APP = 'https://app.example.com';

describe('Stripe billing adapter against a local server playing Stripe', () => {
  it('creates the customer once, then a subscription Checkout Session for the Pro price', async () => {
    const { users, links, store } = memoryUsers({ 'user-1': freeUser });
    const checkout = startCheckout({ users: store, provider: async () => provider(), appUrl: APP });

    const first = await checkout('user-1', 'attempt-0001');
    expect(first).toEqual({ checkoutUrl: 'https://checkout.stripe.test/c/pay/cs_test_1' });

    const [customer, session] = recorded;
    expect(customer).toMatchObject({ method: 'POST', path: '/v1/customers' });
    expect(customer!.headers.authorization).toBe('Bearer sk_test_unit');
    expect(customer!.headers['idempotency-key']).toBe('customer-user-1');
    expect(Object.fromEntries(customer!.form)).toEqual({ email: 'ada@example.com', name: 'Ada Lovelace', 'metadata[userId]': 'user-1' });

    expect(session).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    expect(session!.headers['idempotency-key']).toBe('checkout-user-1-cus_test_1-attempt-0001');
    expect(Object.fromEntries(session!.form)).toEqual({
      mode: 'subscription',
      customer: 'cus_test_1',
      client_reference_id: 'user-1',
      'line_items[0][price]': 'price_pro_monthly',
      'line_items[0][quantity]': '1',
      'subscription_data[metadata][userId]': 'user-1',
      'metadata[userId]': 'user-1',
      success_url: `${APP}/settings?tab=subscription&checkout=success`,
      cancel_url: `${APP}/settings?tab=subscription&checkout=cancelled`,
    });
    expect(users.get('user-1')?.stripeCustomerId).toBe('cus_test_1');
    expect(links.get('cus_test_1')).toBe('user-1');

    // A second attempt reuses the stored customer and carries its own idempotency key.
    recorded.length = 0;
    await checkout('user-1', 'attempt-0002');
    expect(recorded.map((r) => r.path)).toEqual(['/v1/checkout/sessions']);
    expect(recorded[0]!.form.get('customer')).toBe('cus_test_1');
    expect(recorded[0]!.headers['idempotency-key']).toBe('checkout-user-1-cus_test_1-attempt-0002');
  });

  it('refuses a second checkout while a Pro subscription still bills, and allows one after it ended', async () => {
    const { store } = memoryUsers({
      active: { ...freeUser, plan: 'pro', status: 'active', stripeCustomerId: 'cus_a' },
      pastDue: { ...freeUser, plan: 'pro', status: 'past_due', stripeCustomerId: 'cus_b' },
      ended: { ...freeUser, plan: 'free', status: 'canceled', stripeCustomerId: 'cus_c' },
    });
    const checkout = startCheckout({ users: store, provider: async () => provider(), appUrl: APP });
    await expect(checkout('active', 'attempt-0001')).rejects.toMatchObject({ statusCode: 409 });
    await expect(checkout('pastDue', 'attempt-0001')).rejects.toMatchObject({ statusCode: 409 });
    expect(recorded).toHaveLength(0);
    await expect(checkout('ended', 'attempt-0001')).resolves.toMatchObject({ checkoutUrl: expect.stringContaining('checkout.stripe.test') });
    expect(recorded.map((r) => r.form.get('customer'))).toEqual(['cus_c']);
    await expect(checkout('nobody', 'attempt-0001')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('returns no URL when Stripe answers without one (the web app says "No checkout URL received")', async () => {
    omitCheckoutUrl = true;
    const { store } = memoryUsers({ 'user-1': { ...freeUser, stripeCustomerId: 'cus_x' } });
    await expect(startCheckout({ users: store, provider: async () => provider(), appUrl: APP })('user-1', 'attempt-0001')).resolves.toEqual({ checkoutUrl: undefined });
  });

  it("opens the Billing Portal for the user's own customer with the settings page as return URL", async () => {
    const { store } = memoryUsers({ pro: { ...freeUser, plan: 'pro', stripeCustomerId: 'cus_pro' }, free: freeUser });
    const portal = openPortal({ users: store, provider: async () => provider(), appUrl: APP });
    await expect(portal('pro')).resolves.toEqual({ portalUrl: 'https://billing.stripe.test/p/session/bps_test_1' });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.path).toBe('/v1/billing_portal/sessions');
    expect(Object.fromEntries(recorded[0]!.form)).toEqual({ customer: 'cus_pro', return_url: `${APP}/settings?tab=subscription` });
    // No customer yet: nothing to manage, and Stripe is not called.
    await expect(portal('free')).rejects.toMatchObject({ statusCode: 409 });
    expect(recorded).toHaveLength(1);
  });

  it('replaces a customer Stripe no longer knows (test-mode data after going live) and checks out with the new one', async () => {
    const { users, links, store } = memoryUsers({ 'user-1': { ...freeUser, stripeCustomerId: 'cus_gone' } });
    const result = await startCheckout({ users: store, provider: async () => provider(), appUrl: APP })('user-1', 'attempt-0001');
    expect(result.checkoutUrl).toContain('checkout.stripe.test');
    expect(recorded.map((r) => [r.path, r.form.get('customer') ?? r.form.get('email')])).toEqual([
      ['/v1/checkout/sessions', 'cus_gone'],
      ['/v1/customers', 'ada@example.com'],
      ['/v1/checkout/sessions', users.get('user-1')!.stripeCustomerId],
    ]);
    expect(recorded[1]!.headers['idempotency-key']).toBe('customer-user-1-after-cus_gone');
    expect(users.get('user-1')!.stripeCustomerId).not.toBe('cus_gone');
    expect(links.get(users.get('user-1')!.stripeCustomerId!)).toBe('user-1');
    // The portal of an unknown customer has nothing to manage.
    const { store: goneStore } = memoryUsers({ gone: { ...freeUser, plan: 'pro', stripeCustomerId: 'cus_gone' } });
    await expect(openPortal({ users: goneStore, provider: async () => provider(), appUrl: APP })('gone')).rejects.toMatchObject({ statusCode: 409 });
  });

  it("maps Stripe's refusals to 502 with a clear message, never a 500", async () => {
    const { store } = memoryUsers({ 'user-1': { ...freeUser, stripeCustomerId: 'cus_x' } });
    failNext = { status: 400, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such price' } } };
    await expect(startCheckout({ users: store, provider: async () => provider(), appUrl: APP })('user-1', 'attempt-0001')).rejects.toMatchObject({
      statusCode: 502,
      message: PROVIDER_FAILED_MESSAGE,
    });
  });
});

describe('deleteCustomer (account deletion)', () => {
  it('cancels the live subscriptions now, then deletes the customer', async () => {
    await provider().deleteCustomer('cus_1');
    expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/subscriptions', 'DELETE /v1/subscriptions/sub_live', 'DELETE /v1/customers/cus_1']);
  });

  it('counts a customer Stripe no longer knows as deleted (a redelivered job)', async () => {
    await expect(provider().deleteCustomer('cus_gone')).resolves.toBeUndefined();
  });

  it('throws anything else, so the job is delivered again', async () => {
    failNext = { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } } };
    await expect(provider().deleteCustomer('cus_1')).rejects.toThrow('Invalid API Key provided');
  });
});
