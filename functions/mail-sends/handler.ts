import { sendCredentialsSchema } from '../../shared/schemas/mail-send';
import { NotFoundError } from '../core/errors';
import { httpHandler, Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { credentialsRuntime } from '../mail/credentials-runtime';
import { readSend, sendView, startSend } from '../mail/credential-sends';
import { dynamoPlanReader } from '../usage/plan-store';
import { requestOrigin } from '../security/security-events';

const runtime = credentialsRuntime();
const start = startSend({
  ...runtime,
  newId: timeOrderedId,
  plan: dynamoPlanReader(runtime.db, runtime.tableName),
  // The mail worker issues one-time links (functions/credential-links).
  linksAvailable: true,
  // A send over the bulk bar's selection is a security event (who, whose credentials, how many).
  events: { db: runtime.db, tableName: runtime.tableName },
});

export const handler = httpHandler({
  'POST /api/projects/{id}/send-credentials': route({
    body: sendCredentialsSchema,
    run: async ({ userId, pathParameters, body, event }) => new Response(202, await start(userId, pathParameters.id ?? '', body, { origin: requestOrigin(event) })),
  }),
  'GET /api/mail-sends/{id}': route({
    run: async ({ userId, pathParameters }) => {
      const send = await readSend(runtime, userId, pathParameters.id ?? '');
      if (!send) throw new NotFoundError('Send not found');
      return sendView(send);
    },
  }),
});
