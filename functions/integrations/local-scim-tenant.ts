import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Each user's own tenant of the local SCIM directory (bin/local/scim-server.ts; `npm start` and
 * the tests, never AWS): the quick-setup card hands a user a bearer token that opens their tenant
 * only, so one local user never sees another's people. The token names the tenant and carries an
 * HMAC of it under the stack's key (LOCAL_SCIM_TENANT_KEY), so the directory checks it without a
 * list of tokens, and nobody without the key can make one.
 */
const PREFIX = 'tenant';

/** The tenant of a user: a digest of the user id (safe as a file name, says nothing of the id). */
export const localScimTenantOf = (userId: string): string => createHash('sha256').update(`local-scim-tenant:${userId}`).digest('base64url').slice(0, 22);

const macOf = (key: string, tenant: string) => createHmac('sha256', key).update(`${PREFIX}.${tenant}`).digest('base64url');

/** The bearer token of a user's tenant. */
export const localScimTenantToken = (key: string, userId: string): string => {
  const tenant = localScimTenantOf(userId);
  return `${PREFIX}.${tenant}.${macOf(key, tenant)}`;
};

/** The tenant a token opens, or undefined when it is not a tenant token made with this key. */
export function tenantOfLocalScimToken(key: string, token: string): string | undefined {
  const match = /^tenant\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return undefined;
  const [, tenant, mac] = match as unknown as [string, string, string];
  const expected = Buffer.from(macOf(key, tenant));
  const presented = Buffer.from(mac);
  return expected.length === presented.length && timingSafeEqual(expected, presented) ? tenant : undefined;
}
