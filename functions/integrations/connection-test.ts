import type { AuthMethod, IntegrationPlatform } from '../../shared/schemas/integrations';
import { describeOutboundError, guardedRequest, type OutboundOptions } from '../core/outbound';
import { defaultTestPath } from './integration-templates';

/** What the connection test needs of an integration, credentials decrypted. */
export interface ConnectionTarget {
  platform: IntegrationPlatform;
  apiType: string;
  baseUrl: string;
  authMethod: AuthMethod;
  credentials: Record<string, string>;
  apiConfig: { testPath?: string };
}

export interface ConnectionResult {
  status: 'success' | 'failed';
  message: string;
}

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

/** The whole test (token and call) stays within this, well inside the function's 25 s. */
export const TEST_BUDGET_MS = 18_000;
const CALL_TIMEOUT_MS = 10_000;

const defaultTokenUrl = (target: ConnectionTarget): string | undefined =>
  target.platform === 'salesforce' ? joinUrl(target.baseUrl, '/services/oauth2/token') : undefined;

/** A client-credentials grant against the token endpoint (itself SSRF-guarded). */
async function accessToken(target: ConnectionTarget, options: OutboundOptions): Promise<string | ConnectionResult> {
  const tokenUrl = target.credentials.tokenUrl || defaultTokenUrl(target);
  if (!tokenUrl) return { status: 'failed', message: 'OAuth 2.0 needs a token URL for this platform.' };
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: target.credentials.clientId ?? '', client_secret: target.credentials.clientSecret ?? '' });
  if (target.credentials.scope) form.set('scope', target.credentials.scope);
  const response = await guardedRequest(
    { url: tokenUrl, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() },
    options,
  );
  if (response.status < 200 || response.status >= 300) {
    return { status: 'failed', message: `The token endpoint answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: the client credentials were not accepted.` };
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
async function authHeaders(target: ConnectionTarget, options: OutboundOptions): Promise<Record<string, string> | ConnectionResult> {
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

/**
 * The connection test: one read-only call to the platform with the stored credentials. A 2xx
 * answer is success; anything else, including a refused address, is a failure with the reason.
 */
export async function testConnection(target: ConnectionTarget, outbound: OutboundOptions = {}, now: () => number = Date.now): Promise<ConnectionResult> {
  const deadline = now() + TEST_BUDGET_MS;
  const callTimeout = () => Math.max(1000, Math.min(outbound.timeoutMs ?? CALL_TIMEOUT_MS, deadline - now()));
  let timeoutMs = callTimeout();
  try {
    const headers = await authHeaders(target, { ...outbound, timeoutMs });
    timeoutMs = callTimeout();
    const options = { ...outbound, timeoutMs };
    if ('status' in headers && 'message' in headers) return headers as ConnectionResult;
    const testPath = target.apiConfig.testPath ?? defaultTestPath(target.platform);
    const url = joinUrl(target.baseUrl, testPath);
    const graphql = target.apiType === 'GraphQL';
    const response = await guardedRequest(
      graphql
        ? { url, method: 'POST', headers: { ...(headers as Record<string, string>), 'content-type': 'application/json', accept: 'application/json' }, body: '{"query":"{ __typename }"}' }
        : { url, method: 'GET', headers: { ...(headers as Record<string, string>), accept: 'application/json' } },
      options,
    );
    const label = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    if (response.status >= 200 && response.status < 300) return { status: 'success', message: `Connected (${label})` };
    if (response.status === 401 || response.status === 403) return { status: 'failed', message: `${label}: the credentials were refused.` };
    if (response.status >= 300 && response.status < 400) return { status: 'failed', message: `${label}: redirects are not followed; use the final URL.` };
    return { status: 'failed', message: label };
  } catch (error) {
    return { status: 'failed', message: describeOutboundError(error, timeoutMs) };
  }
}
