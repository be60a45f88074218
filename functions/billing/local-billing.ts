import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { BillingProvider } from './billing-port';

/**
 * The local adapter, the default of `npm start`: no Stripe account, no network. Checkout and
 * portal URLs point at the local test checkout (bin/local/local-checkout.ts), which signs
 * Stripe-shaped events with the local webhook secret and posts them to the real webhook.
 *
 * Like Stripe's idempotency keys, the same key gives the same customer and the same session.
 * The session travels in the URL as a token signed with a key derived from the webhook secret,
 * so nobody can forge a checkout for another user.
 */
export const LOCAL_BILLING_PATH = '/local-billing';

export type LocalBillingToken =
  | { kind: 'checkout'; sessionId: string; userId: string; customerId: string; email: string; successUrl: string; cancelUrl: string; exp: number }
  | { kind: 'portal'; customerId: string; returnUrl: string; exp: number }
  | { kind: 'delete-customer'; customerId: string; exp: number };

const CHECKOUT_TTL_SECONDS = 24 * 60 * 60;
const PORTAL_TTL_SECONDS = 60 * 60;
const DELETE_TTL_SECONDS = 60;

const signingKey = (webhookSecret: string) => createHash('sha256').update(`local-billing:${webhookSecret}`).digest();
const idFrom = (prefix: string, key: string) => `${prefix}_local_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;

export function signLocalToken(token: LocalBillingToken, webhookSecret: string): string {
  const payload = Buffer.from(JSON.stringify(token)).toString('base64url');
  const mac = createHmac('sha256', signingKey(webhookSecret)).update(payload).digest('base64url');
  return `${payload}.${mac}`;
}

/** The token's content when its signature holds and it has not expired; otherwise undefined. */
export function verifyLocalToken(value: string, webhookSecret: string, now = new Date()): LocalBillingToken | undefined {
  const parts = value.split('.');
  if (parts.length !== 2) return undefined;
  const [payload, mac] = parts as [string, string];
  if (!payload || !mac) return undefined;
  const expected = createHmac('sha256', signingKey(webhookSecret)).update(payload).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const token = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LocalBillingToken;
    return typeof token.exp === 'number' && token.exp * 1000 > now.getTime() ? token : undefined;
  } catch {
    return undefined;
  }
}

export function localBillingProvider(config: { appUrl: string; webhookSecret: string; clock?: () => Date }): BillingProvider {
  const base = `${config.appUrl.replace(/\/$/, '')}${LOCAL_BILLING_PATH}`;
  const nowSeconds = () => Math.floor((config.clock?.() ?? new Date()).getTime() / 1000);
  return {
    kind: 'local',
    async createCustomer(_input, idempotencyKey) {
      return idFrom('cus', idempotencyKey);
    },
    async createCheckout({ userId, customerId, email, successUrl, cancelUrl }, idempotencyKey) {
      const token = signLocalToken(
        { kind: 'checkout', sessionId: idFrom('cs', idempotencyKey), userId, customerId, email, successUrl, cancelUrl, exp: nowSeconds() + CHECKOUT_TTL_SECONDS },
        config.webhookSecret,
      );
      return `${base}/checkout/${token}`;
    },
    async createPortal({ customerId, returnUrl }) {
      return `${base}/portal/${signLocalToken({ kind: 'portal', customerId, returnUrl, exp: nowSeconds() + PORTAL_TTL_SECONDS }, config.webhookSecret)}`;
    },
    // The local checkout holds the subscriptions (as Stripe does): asked like Stripe's API, server to server.
    async deleteCustomer(customerId) {
      const token = signLocalToken({ kind: 'delete-customer', customerId, exp: nowSeconds() + DELETE_TTL_SECONDS }, config.webhookSecret);
      const response = await fetch(`${base}/delete-customer/${token}`, { method: 'POST' });
      if (!response.ok) throw new Error(`The local checkout answered ${response.status} to deleting ${customerId}: ${await response.text()}`);
    },
  };
}
