import { lookup as dnsLookup } from 'node:dns';
import net, { isIP } from 'node:net';
import tls from 'node:tls';
import type { Client } from 'ldapts';
import { ldapts } from '../core/ldapts';
import type { LdapSettings } from '../../shared/schemas/integrations';
import { describeOutboundError, guardedLookup, originOf, OutboundRefusedError, outboundUrlProblem, type OutboundOptions } from '../core/outbound';
import type { CallFailure } from '../provisioning/platform-client';
import type { ConnectionResult, ConnectionTarget } from './connection-test';

/**
 * Connections to an on-premises directory (ldap:// or ldaps://, Active Directory or OpenLDAP) for
 * the connection test and the LDAP provisioning adapter. The same SSRF guard as HTTP calls
 * (functions/core/outbound.ts): the host must be public, checked on the addresses the socket
 * really uses (the guarded lookup is the socket's own), except the local stack's and tests'
 * allowed origins. Credentials never cross the network in clear: ldaps://, or ldap:// upgraded
 * with StartTLS before the bind (plain ldap:// only for an allowed local origin).
 */
export const LDAP_PROTOCOLS = ['ldaps:', 'ldap:'] as const;
const CONNECT_TIMEOUT_MS = 10_000;
const OPERATION_TIMEOUT_MS = 30_000;

export interface LdapOptions extends OutboundOptions {
  /** Extra TLS options (tests: the CA of a local server's certificate). */
  tls?: tls.ConnectionOptions;
}

export interface LdapSession {
  client: Client;
  /** The connection is encrypted (ldaps:// or StartTLS): Active Directory takes a password only then. */
  secure: boolean;
  close(): Promise<void>;
}

/** An LDAP result code or a socket error as a provisioning failure, in words a user can act on. */
export function ldapFailure(error: unknown, timeoutMs = OPERATION_TIMEOUT_MS): CallFailure {
  if (error instanceof OutboundRefusedError) return { kind: 'failed', retryable: false, message: error.message };
  if (error instanceof ldapts().ResultCodeError) {
    const words = error.message.replace(/\s*Code: 0x[0-9a-f]+$/i, '').slice(0, 400);
    const message = `LDAP ${error.code} (${error.name.replace(/Error$/, '')}): ${words}`;
    switch (error.code) {
      case 49:
        return { kind: 'failed', retryable: false, authRefused: true, message: `${message} (the bind DN or its password was refused)` };
      case 50:
        return { kind: 'failed', retryable: false, authRefused: true, message: `${message} (the bind DN may not do this)` };
      case 8:
      case 13:
        return { kind: 'failed', retryable: false, message: `${message} (the directory requires a stronger or encrypted sign-in: use ldaps://)` };
      case 3:
      case 11:
      case 51:
      case 52:
        return { kind: 'failed', retryable: true, message };
      default:
        return { kind: 'failed', retryable: false, message };
    }
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  // A certificate the client does not trust is the integration's to fix, not a passing fault.
  if (typeof code === 'string' && /CERT|SSL|TLS/i.test(code)) return { kind: 'failed', retryable: false, message: describeOutboundError(error, timeoutMs) };
  const text = error instanceof Error ? error.message : '';
  if (/timed out|timeout/i.test(text)) return { kind: 'failed', retryable: true, message: `No answer within ${Math.round(timeoutMs / 1000)} seconds.` };
  if (/closed|ECONNRESET/i.test(text)) return { kind: 'failed', retryable: true, message: 'The directory closed the connection.' };
  return { kind: 'failed', retryable: true, message: describeOutboundError(error, timeoutMs) };
}

/**
 * Connects and binds with the integration's basic_auth credentials (bind DN + password). Throws
 * OutboundRefusedError for an address the guard refuses, ldapts' errors otherwise.
 */
export async function openLdap(target: Pick<ConnectionTarget, 'baseUrl' | 'credentials'>, options: LdapOptions = {}): Promise<LdapSession> {
  const allowed = options.allowedOrigins ?? [];
  const problem = outboundUrlProblem(target.baseUrl, allowed, LDAP_PROTOCOLS);
  if (problem) throw new OutboundRefusedError(problem);
  const url = new URL(target.baseUrl);
  const trusted = allowed.includes(originOf(url));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const lookup = trusted ? undefined : guardedLookup(options.lookup ?? dnsLookup);
  const extraTls = { ...options.tls, ...(isIP(host) ? {} : { servername: host }) };
  const timeout = options.timeoutMs ?? OPERATION_TIMEOUT_MS;

  const client = new (ldapts().Client)({
    url: `${url.protocol}//${url.host}`,
    timeout,
    connectTimeout: Math.min(timeout, CONNECT_TIMEOUT_MS),
    createConnection: ((port: number, h: string) => net.connect({ port, host: h, ...(lookup ? { lookup } : {}) })) as typeof net.connect,
    // ldaps:// is (port, host, tlsOptions); a StartTLS upgrade is ({ socket }) on the vetted socket.
    createSecureConnection: ((...args: unknown[]) =>
      typeof args[0] === 'object'
        ? tls.connect({ ...(args[0] as tls.ConnectionOptions), host, ...extraTls })
        : tls.connect({ ...(args[2] as tls.ConnectionOptions | undefined), ...extraTls, port: args[0] as number, host: args[1] as string, ...(lookup ? { lookup } : {}) })) as typeof tls.connect,
  });
  const close = async () => {
    await client.unbind().catch(() => undefined);
  };
  try {
    let secure = url.protocol === 'ldaps:';
    if (!secure && (!trusted || options.tls)) {
      // Never a password in clear over a network: upgrade, or refuse when the server cannot.
      // (A local directory of the tests may ask for the upgrade by giving TLS options.)
      try {
        await client.startTLS({});
      } catch (error) {
        // The server answered the StartTLS request with a refusal (not a socket, guard or
        // certificate error, which keep their own words): say what to do.
        if (!(error instanceof ldapts().ResultCodeError)) throw error;
        throw new OutboundRefusedError('The directory does not offer StartTLS on ldap://: use an ldaps:// URL (a password is never sent in clear).');
      }
      secure = true;
    }
    await client.bind(target.credentials.username ?? '', target.credentials.password ?? '');
    return { client, secure, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The connection test for a directory: connect, bind, and read the base DN when one is set. */
export async function testLdapConnection(target: ConnectionTarget & { apiConfig: { provisioning?: { ldap?: LdapSettings } } }, options: LdapOptions = {}): Promise<ConnectionResult> {
  let session: LdapSession | undefined;
  try {
    session = await openLdap(target, options);
    const baseDn = target.apiConfig.provisioning?.ldap?.baseDn;
    if (baseDn) await session.client.search(baseDn, { scope: 'base', attributes: ['1.1'], sizeLimit: 1 });
    return { status: 'success', message: `Connected: the bind was accepted${baseDn ? ` and ${baseDn} exists` : ''}${session.secure ? '' : ' (unencrypted: a local directory)'}.` };
  } catch (error) {
    const failure = ldapFailure(error, options.timeoutMs);
    return { status: 'failed', message: failure.message };
  } finally {
    await session?.close();
  }
}
