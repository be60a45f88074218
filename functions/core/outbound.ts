import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Outbound HTTP to addresses a user typed in (integration base URLs, token URLs): guarded against
 * server-side request forgery. Only https, only public unicast addresses (no loopback, private,
 * link-local such as the instance metadata service 169.254.169.254, carrier-grade NAT, NAT64,
 * multicast or reserved ranges), checked on the addresses the connection really uses (the DNS
 * answer is vetted inside the socket's lookup, so a name cannot resolve to a public address for
 * the check and a private one for the connection). Redirects are not followed; answers are read
 * up to 64 KB and the whole exchange is bounded in time.
 */
export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  /** The first 64 KB of the answer (maxBodyBytes when given). */
  body: string;
}

export interface OutboundOptions {
  /**
   * Origins (`http://127.0.0.1:4010`) reachable even though private: for the local stack's and
   * tests' fake platforms only. Empty on AWS.
   */
  allowedOrigins?: readonly string[];
  timeoutMs?: number;
  /** Resolver of host names (tests); node's dns.lookup by default. */
  lookup?: typeof dnsLookup;
  /** How much of an answer is read (64 KB by default): a provisioning batch's answer is bigger. */
  maxBodyBytes?: number;
  /**
   * Keep-alive agents for many calls to one platform (a provisioning chunk). Its new sockets
   * still resolve through the guarded lookup (passed with every request), so a kept socket is one
   * whose address was vetted when it connected. One agent per integration and invocation, never
   * shared between users.
   */
  agents?: { http: http.Agent; https: https.Agent };
}

const MAX_BODY_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

/** True for a public unicast address; false for anything else, and for what is not an address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() reads IPv4-mapped IPv6 (::ffff:127.0.0.1) as the IPv4 it carries.
  const parsed = ipaddr.process(address);
  // Deprecated IPv4-compatible IPv6 (::/96, e.g. ::7f00:1) counts as unicast to ipaddr.js: refuse it.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

const refusedAddress = (host: string) =>
  new OutboundRefusedError(`Refused: ${host} is a private or reserved address. Integrations may only call public https addresses.`);

/** scheme://host:port, also for schemes URL gives no origin (ldap:, ldaps:). */
export const originOf = (url: URL): string => (url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`);

/**
 * Why a URL may not be called, or undefined when it may (before DNS). `protocols`: the schemes
 * the caller speaks (https for HTTP calls; ldaps and ldap for a directory, see ldap-connection.ts).
 */
export function outboundUrlProblem(value: string, allowedOrigins: readonly string[] = [], protocols: readonly string[] = ['https:']): string | undefined {
  if (!URL.canParse(value)) return 'The URL is not valid.';
  const url = new URL(value);
  if (allowedOrigins.includes(originOf(url))) return undefined;
  if (!protocols.includes(url.protocol)) return `Refused: only ${protocols.map((p) => p.replace(/:$/, '')).join(' or ')} URLs may be called.`;
  if (url.username || url.password) return 'Refused: put credentials in the authentication settings, not in the URL.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return isPublicAddress(host) ? undefined : refusedAddress(host).message;
  if (!host.includes('.') || /\.(localhost|local|internal|localdomain)$/i.test(host) || host.toLowerCase() === 'localhost') return refusedAddress(host).message;
  return undefined;
}

/** A socket lookup that fails unless every address the name resolves to is public (also for LDAP sockets). */
export function guardedLookup(resolve: typeof dnsLookup): LookupFunction {
  return ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (bad || list.length === 0) return callback(refusedAddress(hostname), '');
      if ((options as LookupAllOptions).all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  }) as LookupFunction;
}

export async function guardedRequest(request: OutboundRequest, options: OutboundOptions = {}): Promise<OutboundResponse> {
  const allowed = options.allowedOrigins ?? [];
  const problem = outboundUrlProblem(request.url, allowed);
  if (problem) throw new OutboundRefusedError(problem);
  const url = new URL(request.url);
  const trusted = allowed.includes(url.origin);
  const transport = url.protocol === 'https:' ? https : http;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  return await new Promise<OutboundResponse>((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method: request.method ?? 'GET',
        // The caller's headers first: the ones that frame the request are ours.
        headers: { ...request.headers, 'user-agent': 'BulkOnboard/1.0', ...(request.body ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}) },
        ...(trusted ? {} : { lookup: guardedLookup(options.lookup ?? dnsLookup) }),
        signal: AbortSignal.timeout(timeoutMs),
        // One request per call unless the caller brings its own agent (see OutboundOptions.agent).
        agent: options.agents ? (url.protocol === 'https:' ? options.agents.https : options.agents.http) : false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= maxBody) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= maxBody) res.destroy();
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks).subarray(0, maxBody).toString('utf8'),
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** A failed outbound call in words a user can act on (never a stack trace). */
export function describeOutboundError(error: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): string {
  if (error instanceof OutboundRefusedError) return error.message;
  const { code, name } = error as { code?: string; name?: string };
  if (name === 'AbortError' || name === 'TimeoutError' || code === 'ABORT_ERR') return `No answer within ${Math.round(timeoutMs / 1000)} seconds.`;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The host name could not be found.';
    case 'ECONNREFUSED':
      return 'The connection was refused.';
    case 'ECONNRESET':
      return 'The connection was reset.';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'The host could not be reached.';
    case 'ETIMEDOUT':
      return `No answer within ${Math.round(timeoutMs / 1000)} seconds.`;
    default:
      if (typeof code === 'string' && /CERT|SSL|TLS/i.test(code)) return `The TLS certificate was not accepted (${code}).`;
      return 'The request failed.';
  }
}
