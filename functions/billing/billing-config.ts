import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { env } from '../core/env';
import { ServiceUnavailableError } from '../core/errors';
import type { BillingProvider } from './billing-port';
import { localBillingProvider } from './local-billing';
import { stripeBillingProvider } from './stripe-billing';

export const BILLING_NOT_CONFIGURED = 'Billing is not configured yet. Please try again later.';

interface StripeSecrets {
  secretKey?: string;
  webhookSecret?: string;
}

let secrets: Promise<StripeSecrets> | undefined;

/**
 * Stripe's API key and webhook signing secret: from the environment (local stack against
 * Stripe's test mode, local webhook secret) or, in AWS, from the Secrets Manager secret
 * STRIPE_SECRET_ARN (JSON, read once per cold start, never logged).
 */
function stripeSecrets(): Promise<StripeSecrets> {
  secrets ??= (async () => {
    const { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_SECRET_ARN } = env();
    let stored: StripeSecrets = {};
    if (STRIPE_SECRET_ARN && (!STRIPE_SECRET_KEY || !STRIPE_WEBHOOK_SECRET)) {
      const client = new SecretsManagerClient({});
      try {
        const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: STRIPE_SECRET_ARN }));
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(SecretString ?? '{}') as Record<string, unknown>;
        } catch {
          // Never let the parser quote the secret into a log line.
          throw new Error('The Stripe secret is not JSON of the form {"secretKey","webhookSecret"}');
        }
        stored = {
          ...(typeof parsed.secretKey === 'string' && parsed.secretKey ? { secretKey: parsed.secretKey } : {}),
          ...(typeof parsed.webhookSecret === 'string' && parsed.webhookSecret ? { webhookSecret: parsed.webhookSecret } : {}),
        };
      } finally {
        client.destroy();
      }
    }
    return {
      ...stored,
      ...(STRIPE_SECRET_KEY ? { secretKey: STRIPE_SECRET_KEY } : {}),
      ...(STRIPE_WEBHOOK_SECRET ? { webhookSecret: STRIPE_WEBHOOK_SECRET } : {}),
    };
  })();
  const pending = secrets;
  // An unfilled secret (a fresh deployment) is read again on the next call, so the operator's
  // put-secret-value takes effect without waiting for new instances.
  pending.then(
    (read) => {
      if ((!read.secretKey || !read.webhookSecret) && secrets === pending) secrets = undefined;
    },
    () => {
      if (secrets === pending) secrets = undefined;
    },
  );
  return pending;
}

/** The webhook's signing secret; a deployment whose secret is not filled in yet answers 503. */
export async function webhookSecret(): Promise<string> {
  const { webhookSecret: secret } = await stripeSecrets();
  if (!secret) throw new ServiceUnavailableError(BILLING_NOT_CONFIGURED);
  return secret;
}

let provider: Promise<BillingProvider> | undefined;

/**
 * The local test checkout when the local stack asks for it (BILLING_MODE=local); Stripe when its
 * secret key, price id and webhook secret are configured; otherwise 503.
 */
export function billingProvider(): Promise<BillingProvider> {
  provider ??= (async () => {
    const { STRIPE_PRICE_ID, BILLING_MODE, APP_URL } = env();
    const { secretKey, webhookSecret: signingSecret } = await stripeSecrets();
    // The local stack chooses: it sets BILLING_MODE=local unless all three Stripe settings are given.
    if (BILLING_MODE === 'local' && signingSecret && APP_URL) return localBillingProvider({ appUrl: APP_URL, webhookSecret: signingSecret });
    if (STRIPE_PRICE_ID && secretKey && signingSecret) return stripeBillingProvider({ secretKey, priceId: STRIPE_PRICE_ID });
    throw new ServiceUnavailableError(BILLING_NOT_CONFIGURED);
  })();
  const pending = provider;
  pending.catch(() => {
    if (provider === pending) provider = undefined;
  });
  return pending;
}
