import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { dynamoSuppressionStore } from './suppression-store';
import { suppressionUseCases } from './suppressions';

const suppressions = suppressionUseCases({ store: dynamoSuppressionStore(dynamo(), requireEnv('TABLE_NAME')) });

export const handler = httpHandler({
  'GET /api/email-suppressions': route({ run: ({ userId }) => suppressions.list(userId) }),
  'DELETE /api/email-suppressions/{email}': route({
    run: async ({ userId, pathParameters }) => {
      await suppressions.remove(userId, pathParameters.email ?? '');
      return new Response(204);
    },
  }),
});
