import { describe, expect, it } from 'vitest';
import { localBillingProvider, signLocalToken, verifyLocalToken } from '../../functions/billing/local-billing';

const SECRET = 'whsec_local_unit';
const NOW = new Date('2026-06-01T10:00:00Z');

describe('local billing adapter', () => {
  const provider = localBillingProvider({ appUrl: 'http://127.0.0.1:3000/', webhookSecret: SECRET, clock: () => NOW });

  it('gives the same customer and session for the same idempotency key, like Stripe', async () => {
    expect(await provider.createCustomer({ userId: 'u1', email: 'a@example.com' }, 'customer-u1')).toBe(await provider.createCustomer({ userId: 'u1', email: 'a@example.com' }, 'customer-u1'));
    expect(await provider.createCustomer({ userId: 'u2', email: 'b@example.com' }, 'customer-u2')).not.toBe(await provider.createCustomer({ userId: 'u1', email: 'a@example.com' }, 'customer-u1'));
    const input = { userId: 'u1', customerId: 'cus_local_1', email: 'a@example.com', successUrl: 'http://127.0.0.1:3000/ok', cancelUrl: 'http://127.0.0.1:3000/no' };
    const first = await provider.createCheckout(input, 'checkout-u1-a');
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:3000\/local-billing\/checkout\/[\w-]+\.[\w-]+$/);
    const token = verifyLocalToken(first!.split('/').pop()!, SECRET, NOW);
    expect(token).toMatchObject({ kind: 'checkout', userId: 'u1', customerId: 'cus_local_1', successUrl: input.successUrl });
    const again = verifyLocalToken((await provider.createCheckout(input, 'checkout-u1-a'))!.split('/').pop()!, SECRET, NOW);
    const other = verifyLocalToken((await provider.createCheckout(input, 'checkout-u1-b'))!.split('/').pop()!, SECRET, NOW);
    expect(again?.kind === 'checkout' && again.sessionId).toBe(token?.kind === 'checkout' && token.sessionId);
    expect(other?.kind === 'checkout' && other.sessionId).not.toBe(token?.kind === 'checkout' && token.sessionId);
  });

  it('refuses tampered, foreign and expired tokens', async () => {
    const url = await provider.createPortal({ customerId: 'cus_local_1', returnUrl: 'http://127.0.0.1:3000/settings' });
    const text = url.split('/').pop()!;
    expect(verifyLocalToken(text, SECRET, NOW)).toMatchObject({ kind: 'portal', customerId: 'cus_local_1' });

    const [payload, mac] = text.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ kind: 'portal', customerId: 'cus_someone_else', returnUrl: 'x', exp: 9_999_999_999 })).toString('base64url');
    expect(verifyLocalToken(`${forgedPayload}.${mac}`, SECRET, NOW)).toBeUndefined();
    expect(verifyLocalToken(`${payload}.${mac}x`, SECRET, NOW)).toBeUndefined();
    expect(verifyLocalToken(text, 'whsec_other', NOW)).toBeUndefined();
    expect(verifyLocalToken('garbage', SECRET, NOW)).toBeUndefined();
    expect(verifyLocalToken(text, SECRET, new Date(NOW.getTime() + 2 * 60 * 60 * 1000))).toBeUndefined();
    expect(verifyLocalToken(signLocalToken({ kind: 'portal', customerId: 'c', returnUrl: 'r', exp: Math.floor(NOW.getTime() / 1000) - 1 }, SECRET), SECRET, NOW)).toBeUndefined();
  });
});
