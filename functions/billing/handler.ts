import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { dynamoBillingUserStore, dynamoProcessedEventStore } from './billing-store';
import { handleStripeEvent } from './handle-stripe-event';

const tableName = requireEnv('TABLE_NAME');

export const handler = httpHandler({
  'POST /api/stripe/webhook': route({
    run: async ({ rawBody, event }) => {
      const handle = handleStripeEvent({
        users: dynamoBillingUserStore(dynamo(), tableName),
        events: dynamoProcessedEventStore(dynamo(), tableName),
        clock: () => new Date(),
        webhookSecret: requireEnv('STRIPE_WEBHOOK_SECRET'),
      });
      return { received: true, outcome: await handle({ rawBody, signature: event.headers['stripe-signature'] }) };
    },
  }),
});
