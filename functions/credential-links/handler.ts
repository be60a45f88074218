import * as z from 'zod/mini';
import '../../shared/schemas/zod-messages';
import { INVALID_LINK_MESSAGE } from '../../shared/schemas/credential-links';
import { UNKNOWN_ID_PARAM } from '../../shared/schemas/ids';
import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { credentialLinkAccess } from './credential-link-access';
import { dynamoLinkStore } from './link-store';
import { isLinkTokenShaped } from './link-token';

/**
 * The public routes of one-time credential links (auth 'none'): the token in the body is the
 * only credential (never in a path, which access logs record). Their Lambda reads links, accounts and projects, spends links and marks
 * accounts viewed, and decrypts the one password it reveals; nothing else.
 */
const links = credentialLinkAccess({ store: dynamoLinkStore(dynamo(), requireEnv('TABLE_NAME')), cipher: appCipher, now: () => new Date() });

/**
 * `{ token }`: anything that is not a string of a token's shape names no link, and is answered
 * like an unknown token (404, no hint which), never a 400 that would tell shapes apart.
 */
const linkRequestSchema = z.object({
  token: z.pipe(
    z.unknown(),
    z.transform((token, ctx) => {
      if (typeof token === 'string' && isLinkTokenShaped(token)) return token;
      ctx.issues.push({ code: 'custom', message: INVALID_LINK_MESSAGE, params: { [UNKNOWN_ID_PARAM]: true }, input: token });
      return z.NEVER;
    }),
  ),
});

/** The answers hold a secret or say whether a link works: never cached, indexed or referred onward. */
const privateHeaders = { 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex, nofollow' };

export const handler = httpHandler({
  'POST /api/credential-links/state': route({ body: linkRequestSchema, run: async ({ body }) => new Response(200, await links.state(body.token), privateHeaders) }),
  'POST /api/credential-links/reveal': route({ body: linkRequestSchema, run: async ({ body }) => new Response(200, await links.reveal(body.token), privateHeaders) }),
});
