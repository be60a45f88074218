import { isLdapUrl, type AuthMethod, type IntegrationPlatform, type ProvisioningSettings } from '../../shared/schemas/integrations';
import { describeOutboundError, guardedRequest, type OutboundOptions } from '../core/outbound';
import { defaultTestPath } from './integration-templates';
import { testLdapConnection } from './ldap-connection';
import { authHeaders, joinUrl } from './platform-auth';

/** What the connection test needs of an integration, credentials decrypted. */
export interface ConnectionTarget {
  platform: IntegrationPlatform;
  apiType: string;
  baseUrl: string;
  authMethod: AuthMethod;
  credentials: Record<string, string>;
  apiConfig: { testPath?: string; provisioning?: ProvisioningSettings };
}

export interface ConnectionResult {
  status: 'success' | 'failed';
  message: string;
  /** A failure that says nothing about the credentials (the token endpoint was busy or down): worth trying again. */
  transient?: boolean;
}

export { joinUrl } from './platform-auth';

/** The whole test (token and call) stays within this, well inside the function's 25 s. */
export const TEST_BUDGET_MS = 18_000;
const CALL_TIMEOUT_MS = 10_000;

/**
 * The connection test: one read-only call to the platform with the stored credentials. A 2xx
 * answer is success; anything else, including a refused address, is a failure with the reason.
 */
export async function testConnection(target: ConnectionTarget, outbound: OutboundOptions = {}, now: () => number = Date.now): Promise<ConnectionResult> {
  // An on-premises directory (ldap:// or ldaps://): a bind, not an HTTP call.
  if (isLdapUrl(target.baseUrl)) return testLdapConnection(target, { ...outbound, timeoutMs: Math.min(outbound.timeoutMs ?? CALL_TIMEOUT_MS, TEST_BUDGET_MS) });
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
