import { stripeSdk } from './stripe-sdk';
import { CustomerMissingError, ENDED_SUBSCRIPTION_STATES, type BillingProvider } from './billing-port';

export interface StripeBillingConfig {
  secretKey: string;
  /** The Pro plan's recurring monthly price. */
  priceId: string;
  /** Where the API is (tests point it at a local server playing Stripe). */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
}

/**
 * The Stripe adapter: Stripe Checkout in subscription mode and the Stripe Billing Portal.
 * The user id travels as client_reference_id and as subscription metadata, so every later
 * subscription and invoice event names its user.
 */
/** Stripe's answer to an unknown customer id: 400 resource_missing on the customer parameter. */
const customerMissing = (error: unknown, customerId: string): never => {
  const { code, param } = (error ?? {}) as { code?: string; param?: string };
  if (code === 'resource_missing' && param === 'customer') throw new CustomerMissingError(customerId);
  throw error;
};

export function stripeBillingProvider(config: StripeBillingConfig): BillingProvider {
  const StripeClient = stripeSdk();
  const stripe = new StripeClient(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    telemetry: false,
    ...(config.api ? { host: config.api.host, port: config.api.port, protocol: config.api.protocol } : {}),
  });
  return {
    kind: 'stripe',

    async createCustomer({ userId, email, name }, idempotencyKey) {
      const customer = await stripe.customers.create({ email, ...(name ? { name } : {}), metadata: { userId } }, { idempotencyKey });
      return customer.id;
    },

    async createCheckout({ userId, customerId, successUrl, cancelUrl }, idempotencyKey) {
      const params = {
        mode: 'subscription' as const,
        customer: customerId,
        client_reference_id: userId,
        line_items: [{ price: config.priceId, quantity: 1 }],
        subscription_data: { metadata: { userId } },
        metadata: { userId },
        success_url: successUrl,
        cancel_url: cancelUrl,
      };
      const session = await stripe.checkout.sessions.create(params, { idempotencyKey }).catch((error: unknown) => customerMissing(error, customerId));
      return session.url ?? undefined;
    },

    async createPortal({ customerId, returnUrl }) {
      const session = await stripe.billingPortal.sessions
        .create({ customer: customerId, return_url: returnUrl })
        .catch((error: unknown) => customerMissing(error, customerId));
      return session.url;
    },

    async deleteCustomer(customerId) {
      try {
        // Canceled explicitly first (deleting a customer cancels them too, but says so nowhere in the event).
        for await (const subscription of stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 100 })) {
          if (!ENDED_SUBSCRIPTION_STATES.includes(subscription.status)) await stripe.subscriptions.cancel(subscription.id);
        }
        await stripe.customers.del(customerId);
      } catch (error) {
        if ((error as { code?: string })?.code === 'resource_missing') return;
        throw error;
      }
    },
  };
}
