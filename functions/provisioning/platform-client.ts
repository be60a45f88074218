import http from 'node:http';
import https from 'node:https';
import { describeOutboundError, guardedRequest, OutboundRefusedError, type OutboundOptions, type OutboundRequest } from '../core/outbound';
import type { ConnectionTarget } from '../integrations/connection-test';
import { authHeaders, joinUrl } from '../integrations/platform-auth';
import type { ProvisioningOutcome } from './provisioning-port';
import { retryAfterMs } from './pacing';

export interface PlatformAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export type CallFailure = Extract<ProvisioningOutcome, { kind: 'failed' }>;

export interface PlatformClient {
  /** One call on a path under the integration's base URL (or a full URL), signed in. */
  call(request: { method: NonNullable<OutboundRequest['method']>; path: string; body?: unknown; contentType?: string }): Promise<PlatformAnswer | CallFailure>;
  close(): void;
}

const CALL_TIMEOUT_MS = 30_000;
/** A batch's answer (SCIM /Bulk, Graph $batch, Salesforce composite) is read whole up to this. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * The platform's words for a failed answer: SCIM `detail`, Okta `errorSummary` and causes, Graph
 * `error.message`, Salesforce `[{message}]`; else the status line. Never the request (it holds the
 * password) and never more than 500 characters.
 */
export function platformMessage(answer: Pick<PlatformAnswer, 'status' | 'json' | 'text'>): string {
  const json = answer.json as Record<string, unknown> | Record<string, unknown>[] | undefined;
  const pick = (): string | undefined => {
    if (Array.isArray(json)) return json.map((e) => (typeof e?.message === 'string' ? e.message : '')).filter(Boolean).join('; ') || undefined;
    if (!json || typeof json !== 'object') return undefined;
    if (typeof json.detail === 'string') return json.detail;
    if (typeof json.errorSummary === 'string') {
      const causes = Array.isArray(json.errorCauses) ? json.errorCauses.map((c) => (c as { errorSummary?: string }).errorSummary).filter(Boolean) : [];
      return [json.errorSummary, ...causes].join(': ');
    }
    const error = json.error as { message?: unknown } | string | undefined;
    if (typeof error === 'object' && typeof error?.message === 'string') return error.message;
    if (typeof json.error_description === 'string') return json.error_description;
    if (typeof json.message === 'string') return json.message;
    return undefined;
  };
  const words = pick();
  return `HTTP ${answer.status}${words ? `: ${words}` : ''}`.slice(0, 500);
}

/** A non-2xx answer as a failed outcome: 429 and 5xx retryable (429 with its wait), 401/403 refused credentials. */
export function failureOf(answer: PlatformAnswer, now: number = Date.now()): CallFailure {
  const message = platformMessage(answer);
  if (answer.status === 429) return { kind: 'failed', retryable: true, rateLimited: true, message, retryAfterMs: retryAfterMs(answer.headers, now) ?? 1000 };
  if (answer.status === 401 || answer.status === 403) return { kind: 'failed', retryable: false, authRefused: true, message: `${message} (the integration's credentials were refused)` };
  if (answer.status >= 500 || answer.status === 408) return { kind: 'failed', retryable: true, message, ...(retryAfterMs(answer.headers, now) !== undefined ? { retryAfterMs: retryAfterMs(answer.headers, now) } : {}) };
  if (answer.status >= 300 && answer.status < 400) return { kind: 'failed', retryable: false, message: `${message}: redirects are not followed; use the final URL in the integration.` };
  return { kind: 'failed', retryable: false, message };
}

const isSignFailure = (value: Record<string, string> | CallFailure): value is CallFailure => (value as CallFailure).kind === 'failed' && typeof (value as CallFailure).retryable === 'boolean';

export const isCallFailure = (value: PlatformAnswer | CallFailure): value is CallFailure => 'kind' in value;

/**
 * A lifecycle call's answer (update, deactivate / reactivate, delete) as the REST adapters read it
 * (SCIM, Microsoft Graph, Okta): a call that failed as it is; 404 the account gone (`gone`,
 * goneFrom's words); 2xx `done`; else a `conflict` when the answer is one, or the platform's
 * failure (`failure`, failureOf unless the platform words its own).
 */
export function lifecycleAnswer<T>(
  answer: PlatformAnswer | CallFailure,
  read: { gone: T; done: T; conflict?: (answer: PlatformAnswer) => T | undefined; failure?: (answer: PlatformAnswer) => CallFailure },
): T | CallFailure {
  if (isCallFailure(answer)) return answer;
  if (answer.status === 404) return read.gone;
  if (answer.status >= 200 && answer.status < 300) return read.done;
  return read.conflict?.(answer) ?? (read.failure ?? failureOf)(answer);
}

/**
 * A client for one integration in one worker invocation: SSRF-guarded calls (every one through
 * functions/core/outbound.ts), keep-alive sockets for the invocation, the sign-in headers fetched
 * once (an OAuth token again once when the platform answers 401).
 */
export function platformClient(target: ConnectionTarget, outbound: OutboundOptions = {}): PlatformClient {
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };
  const options: OutboundOptions = { ...outbound, agents, timeoutMs: outbound.timeoutMs ?? CALL_TIMEOUT_MS, maxBodyBytes: MAX_ANSWER_BYTES };
  let signing: Promise<Record<string, string> | CallFailure> | undefined;
  const sign = () =>
    (signing ??= authHeaders(target, options).then((headers) =>
      'status' in headers && 'message' in headers
        ? ((headers as { transient?: boolean }).transient
            ? ({ kind: 'failed', retryable: true, message: String(headers.message) } as CallFailure)
            : ({ kind: 'failed', retryable: false, authRefused: true, message: String(headers.message) } as CallFailure))
        : (headers as Record<string, string>),
    ));

  const call: PlatformClient['call'] = async ({ method, path, body, contentType }) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const headers = await sign();
        if (isSignFailure(headers)) {
          signing = undefined;
          return headers;
        }
        const url = /^https?:\/\//i.test(path) ? path : joinUrl(target.baseUrl, path);
        const response = await guardedRequest(
          {
            url,
            method,
            headers: { ...headers, accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType ?? 'application/json' } : {}) },
            ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
          },
          options,
        );
        let json: unknown;
        try {
          json = response.body ? JSON.parse(response.body) : undefined;
        } catch {
          json = undefined;
        }
        // An OAuth token may have expired mid-job: one fresh token, then the answer stands.
        if (response.status === 401 && target.authMethod === 'oauth2' && attempt === 0) {
          signing = undefined;
          continue;
        }
        return { status: response.status, headers: response.headers, text: response.body, json };
      } catch (error) {
        signing = error instanceof OutboundRefusedError ? signing : undefined;
        return { kind: 'failed', retryable: !(error instanceof OutboundRefusedError), message: describeOutboundError(error, options.timeoutMs) };
      }
    }
  };
  return {
    call,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
