import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { credentialLinkAccess } from './credential-link-access';
import { dynamoLinkStore } from './link-store';

/**
 * The public routes of one-time credential links (auth 'none'): the token in the path is the
 * only credential. Their Lambda reads links, accounts and projects, spends links and marks
 * accounts viewed, and decrypts the one password it reveals; nothing else.
 */
const links = credentialLinkAccess({ store: dynamoLinkStore(dynamo(), requireEnv('TABLE_NAME')), cipher: appCipher, now: () => new Date() });

/** The answers hold a secret or say whether a link works: never cached, indexed or referred onward. */
const privateHeaders = { 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex, nofollow' };

export const handler = httpHandler({
  'GET /api/credential-links/{id}': route({ run: async ({ pathParameters }) => new Response(200, await links.state(pathParameters.id ?? ''), privateHeaders) }),
  'POST /api/credential-links/{id}/reveal': route({ run: async ({ pathParameters }) => new Response(200, await links.reveal(pathParameters.id ?? ''), privateHeaders) }),
});
