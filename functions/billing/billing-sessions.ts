import { BadGatewayError, ConflictError, HttpError, NotFoundError } from '../core/errors';
import { logger } from '../core/logger';
import { CustomerMissingError, ENDED_SUBSCRIPTION_STATES, type BillingAccountStore, type BillingProvider } from './billing-port';

export interface BillingSessionDeps {
  users: BillingAccountStore;
  provider: () => Promise<BillingProvider>;
  appUrl: string;
}

export const ALREADY_PRO_MESSAGE = 'You already have a Pro subscription. Use Manage Subscription to change it.';
export const NO_BILLING_ACCOUNT_MESSAGE = 'There is no subscription to manage yet. Upgrade to Pro first.';
export const PROVIDER_FAILED_MESSAGE = 'The payment provider could not be reached. Please try again.';


const settingsUrl = (appUrl: string, query = '') => `${appUrl.replace(/\/$/, '')}/settings?tab=subscription${query}`;

/** Provider failures are reported as the provider's (502), never as a bare 500. */
async function viaProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HttpError || error instanceof CustomerMissingError) throw error;
    // Stripe's errors carry type, code and request id, never the API key.
    const { type, code, requestId, message } = (error ?? {}) as { type?: string; code?: string; requestId?: string; message?: string };
    logger.warn('Billing provider call failed', { type, code, requestId, reason: message });
    throw new BadGatewayError(PROVIDER_FAILED_MESSAGE);
  }
}

/**
 * POST /api/subscription/create-checkout:
 * 1. A user with a Pro subscription that still bills (active, trialing, past due) is refused:
 *    a second checkout would bill them twice.
 * 2. The user's customer is created once and stored (idempotency key per user, conditional write).
 * 3. A checkout session is created with an idempotency key per attempt (the client's
 *    Idempotency-Key, so a double click or a retry makes one session).
 */
export const startCheckout =
  (deps: BillingSessionDeps) =>
  async (userId: string, attemptKey: string): Promise<{ checkoutUrl: string | undefined }> => {
    const user = await deps.users.billingUser(userId);
    if (!user) throw new NotFoundError('User not found');
    // A subscription that no longer bills (ended): a new checkout is the way back to Pro.
    if (user.plan === 'pro' && !ENDED_SUBSCRIPTION_STATES.includes(user.status)) throw new ConflictError(ALREADY_PRO_MESSAGE);

    const provider = await deps.provider();
    const newCustomer = async (idempotencyKey: string) =>
      viaProvider(() => provider.createCustomer({ userId, email: user.email, ...(user.name ? { name: user.name } : {}) }, idempotencyKey));
    let customerId = user.stripeCustomerId;
    if (!customerId) {
      customerId = await deps.users.storeCustomer(userId, await newCustomer(`customer-${userId}`));
      await deps.users.linkCustomer(customerId, userId);
    }
    const checkout = (customer: string) =>
      viaProvider(() =>
        provider.createCheckout(
          { userId, customerId: customer, email: user.email, successUrl: settingsUrl(deps.appUrl, '&checkout=success'), cancelUrl: settingsUrl(deps.appUrl, '&checkout=cancelled') },
          `checkout-${userId}-${customer}-${attemptKey}`,
        ),
      );
    try {
      return { checkoutUrl: await checkout(customerId) };
    } catch (error) {
      if (!(error instanceof CustomerMissingError)) throw error;
      // The provider no longer knows the stored customer (test-mode data after going live).
      const replacement = await deps.users.replaceCustomer(userId, customerId, await newCustomer(`customer-${userId}-after-${customerId}`));
      await deps.users.linkCustomer(replacement, userId);
      return { checkoutUrl: await checkout(replacement) };
    }
  };

/** POST /api/subscription/create-portal: the provider's page for the user's own customer only. */
export const openPortal =
  (deps: BillingSessionDeps) =>
  async (userId: string): Promise<{ portalUrl: string }> => {
    const user = await deps.users.billingUser(userId);
    if (!user) throw new NotFoundError('User not found');
    if (!user.stripeCustomerId) throw new ConflictError(NO_BILLING_ACCOUNT_MESSAGE);
    const provider = await deps.provider();
    const customerId = user.stripeCustomerId;
    try {
      return { portalUrl: await viaProvider(() => provider.createPortal({ customerId, returnUrl: settingsUrl(deps.appUrl) })) };
    } catch (error) {
      // A customer the provider no longer knows has nothing to manage; checkout replaces it.
      if (error instanceof CustomerMissingError) throw new ConflictError(NO_BILLING_ACCOUNT_MESSAGE);
      throw error;
    }
  };
