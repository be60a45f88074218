import { guardedRequest, type OutboundOptions } from '../core/outbound';
import type { ConnectionResult, ConnectionTarget } from './connection-test';

/**
 * Signing calls in to a platform with an integration's stored credentials: shared by the
 * connection test and the provisioning adapters (the credentials are decrypted by their caller,
 * only where the call is made).
 */
/**
 * `path` (which may carry a query) under `base` with exactly one slash between them; the base's
 * own query stays and the path's is added to it. An empty path is the base itself.
 */
export function joinUrl(base: string, path: string): string {
  if (!path) return base;
  const url = new URL(base);
  const [pathPart = '', query] = path.split(/\?(.*)/s, 2);
  if (pathPart) url.pathname = `${url.pathname.replace(/\/+$/, '')}/${pathPart.replace(/^\/+/, '')}`;
  if (query) url.search = url.search ? `${url.search}&${query}` : `?${query}`;
  return url.toString();
}

const defaultTokenUrl = (target: ConnectionTarget): string | undefined =>
  target.platform === 'salesforce' ? joinUrl(target.baseUrl, '/services/oauth2/token') : undefined;

/**
 * Microsoft's and Okta's token endpoints refuse a client-credentials grant without a scope. For
 * Graph it is the API's own `<origin>/.default` (https://graph.microsoft.com/.default, or a
 * national cloud's); for Okta `okta.users.manage`, which also reads users (the connection test).
 */
const defaultScope = (target: ConnectionTarget): string | undefined => {
  if (target.platform === 'okta') return 'okta.users.manage';
  const url = URL.canParse(target.baseUrl) ? new URL(target.baseUrl) : undefined;
  return target.platform === 'active_directory' && url && /^https?:$/.test(url.protocol) ? `${url.origin}/.default` : undefined;
};

/** A client-credentials grant against the token endpoint (itself SSRF-guarded). */
async function accessToken(target: ConnectionTarget, options: OutboundOptions): Promise<string | ConnectionResult> {
  const tokenUrl = target.credentials.tokenUrl || defaultTokenUrl(target);
  if (!tokenUrl) return { status: 'failed', message: 'OAuth 2.0 needs a token URL for this platform.' };
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: target.credentials.clientId ?? '', client_secret: target.credentials.clientSecret ?? '' });
  const scope = target.credentials.scope || defaultScope(target);
  if (scope) form.set('scope', scope);
  const response = await guardedRequest(
    { url: tokenUrl, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() },
    options,
  );
  const label = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  // Busy or down (429, 5xx): not a verdict on the credentials.
  if (response.status === 429 || response.status >= 500) return { status: 'failed', transient: true, message: `The token endpoint answered ${label}: try again later.` };
  if (response.status < 200 || response.status >= 300) {
    return { status: 'failed', message: `The token endpoint answered ${label}: the client credentials were not accepted.` };
  }
  try {
    const token = (JSON.parse(response.body) as { access_token?: unknown }).access_token;
    if (typeof token === 'string' && token) return token;
  } catch {
    // falls through
  }
  return { status: 'failed', message: 'The token endpoint answered without an access_token.' };
}

/** The request headers that sign the test call in, per sign-in method. */
export async function authHeaders(target: ConnectionTarget, options: OutboundOptions): Promise<Record<string, string> | ConnectionResult> {
  const c = target.credentials;
  switch (target.authMethod) {
    case 'api_key':
      if (c.headerName) return { [c.headerName]: c.apiKey ?? '' };
      return target.platform === 'okta' ? { authorization: `SSWS ${c.apiKey ?? ''}` } : { 'x-api-key': c.apiKey ?? '' };
    case 'bearer_token':
      return { authorization: `Bearer ${c.token ?? ''}` };
    case 'basic_auth':
      return { authorization: `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`).toString('base64')}` };
    case 'oauth2': {
      const token = await accessToken(target, options);
      return typeof token === 'string' ? { authorization: `Bearer ${token}` } : token;
    }
  }
}

