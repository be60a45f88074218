/**
 * The billing port: what the app asks of a payment provider. Two adapters implement it: Stripe
 * (stripe-billing.ts) and the local test checkout of `npm start` (local-billing.ts). Either way
 * the provider reports back only through signed events to POST /api/stripe/webhook.
 */
export interface BillingProvider {
  readonly kind: 'stripe' | 'local';
  /** Creates the user's customer. The same idempotency key yields the same customer. */
  createCustomer(input: { userId: string; email: string; name?: string }, idempotencyKey: string): Promise<string>;
  /** A hosted checkout page for the Pro subscription; returns its URL. */
  createCheckout(
    input: { userId: string; customerId: string; email: string; successUrl: string; cancelUrl: string },
    idempotencyKey: string,
  ): Promise<string | undefined>;
  /** A hosted page where the customer manages the subscription; returns its URL. */
  createPortal(input: { customerId: string; returnUrl: string }): Promise<string>;
  /**
   * Account deletion: every subscription of the customer is canceled now (no refund, no further
   * invoice) and the customer is deleted. A customer that is already gone counts as done.
   */
  deleteCustomer(customerId: string): Promise<void>;
}

/** Subscription states in which Stripe no longer bills: the user is back on free. */
export const ENDED_SUBSCRIPTION_STATES: readonly string[] = ['canceled', 'incomplete_expired'];

/**
 * The provider does not know the stored customer (e.g. a test-mode customer after switching to
 * live keys): a new one is created in its place.
 */
export class CustomerMissingError extends Error {
  constructor(readonly customerId: string) {
    super(`The billing provider has no customer ${customerId}`);
  }
}

/** What checkout and portal read of the user item. */
export interface BillingUser {
  email: string;
  name?: string;
  plan: string;
  status: string;
  stripeCustomerId?: string;
}

export interface BillingAccountStore {
  billingUser(userId: string): Promise<BillingUser | undefined>;
  /**
   * Stores the customer id unless the user has one already; returns the one that is stored
   * (two concurrent first checkouts end with one customer on the user).
   */
  storeCustomer(userId: string, customerId: string): Promise<string>;
  /** Replaces a customer the provider no longer knows, unless another request replaced it first; returns the stored one. */
  replaceCustomer(userId: string, missingId: string, customerId: string): Promise<string>;
  linkCustomer(customerId: string, userId: string): Promise<void>;
}
