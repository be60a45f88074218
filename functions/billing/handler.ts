import { randomUUID } from 'node:crypto';
import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route, type HttpEvent } from '../core/http';
import { paymentFailed } from '../notifications/events';
import { billingProvider, webhookSecret } from './billing-config';
import { openPortal, startCheckout, type BillingSessionDeps } from './billing-sessions';
import { dynamoBillingAccountStore, dynamoBillingUserStore } from './billing-store';
import { handleStripeEvent } from './handle-stripe-event';

const tableName = requireEnv('TABLE_NAME');

const sessionDeps = (): BillingSessionDeps => ({
  users: dynamoBillingAccountStore(dynamo(), tableName),
  provider: billingProvider,
  appUrl: requireEnv('APP_URL'),
});

/** The client's key for one upgrade attempt (a double click or retry reuses it); else a new one. */
const attemptKey = (event: HttpEvent): string => {
  const given = event.headers['idempotency-key'];
  return given && /^[A-Za-z0-9_-]{8,64}$/.test(given) ? given : randomUUID();
};

export const handler = httpHandler({
  'POST /api/stripe/webhook': route({
    run: async ({ rawBody, event }) => {
      const handle = handleStripeEvent({
        users: dynamoBillingUserStore(dynamo(), tableName),
        clock: () => new Date(),
        webhookSecret: await webhookSecret(),
        paymentFailed: (input) => paymentFailed({ db: dynamo(), tableName }, input),
      });
      return { received: true, outcome: await handle({ rawBody, signature: event.headers['stripe-signature'] }) };
    },
  }),
  'POST /api/subscription/create-checkout': route({
    run: ({ userId, event }) => startCheckout(sessionDeps())(userId, attemptKey(event)),
  }),
  'POST /api/subscription/create-portal': route({
    run: ({ userId }) => openPortal(sessionDeps())(userId),
  }),
});
