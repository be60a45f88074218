import { securityErrorCodes } from '@shared/schemas/security';
import { clearStoredTokens, loadAuth } from './auth';
import { rememberSessionEnded } from './session-ended-notice';
import { toaster } from './toaster';

/**
 * The one API client: same origin, /api/..., the Cognito access token as bearer. A failed
 * response becomes Error('{status}: {response text}') (spec 8); 401 means logged out.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The `message` of a JSON error body ({ message, details? }), when the server sent one. */
    readonly serverMessage?: string,
    /** The fields a refused request names (`details: [{ path, message }]` of a 400). */
    readonly fieldErrors: readonly FieldError[] = [],
    /** The error body's machine-readable `code` (shared/schemas/security.ts securityErrorCodes). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface FieldError {
  /** Dotted path of the field, e.g. 'baseUrl' or 'authConfig.tokenUrl'. */
  path: string;
  message: string;
}

/** The fields a 400 names, so a form can show the server's reason under the field too. */
export function serverFieldErrors(error: unknown): readonly FieldError[] {
  return error instanceof ApiError && error.status === 400 ? error.fieldErrors : [];
}

/** The server's own message for an error worth showing as is (plan limit 403, busy 409, 400). */
export function serverMessageOf(error: unknown, statuses: readonly number[] = [400, 403, 409]): string | undefined {
  return error instanceof ApiError && statuses.includes(error.status) ? error.serverMessage : undefined;
}

function errorBody(text: string): { message?: string; code?: string; fieldErrors: FieldError[] } {
  try {
    const body: unknown = JSON.parse(text);
    if (!body || typeof body !== 'object') return { fieldErrors: [] };
    const message = 'message' in body && typeof body.message === 'string' ? body.message : undefined;
    const code = 'code' in body && typeof body.code === 'string' ? body.code : undefined;
    const details = 'details' in body && Array.isArray(body.details) ? (body.details as unknown[]) : [];
    const fieldErrors = details.filter(
      (d): d is FieldError => !!d && typeof d === 'object' && typeof (d as FieldError).path === 'string' && typeof (d as FieldError).message === 'string',
    );
    return { message, code, fieldErrors };
  } catch {
    // Not JSON: no server message.
    return { fieldErrors: [] };
  }
}

export const LOGGED_OUT_REDIRECT_MS = 500;

let redirecting = false;

/**
 * Spec 8: destructive toast, then the browser goes to /api/login after 500 ms. When the API said
 * why the session ended (SESSION_EXPIRED, SESSION_REPLACED), that message is shown instead, and
 * again on the sign-in page (session-ended-notice).
 */
function handleUnauthorized(reason?: string): void {
  if (redirecting) return;
  redirecting = true;
  if (reason) {
    rememberSessionEnded(reason);
    toaster.create({ type: 'error', title: 'Signed out', description: reason });
  } else {
    toaster.create({ type: 'error', title: 'Unauthorized', description: 'You are logged out. Logging in again...' });
  }
  // The stored tokens are no good: drop them, or /sign-in would take us for signed in again.
  clearStoredTokens();
  window.setTimeout(() => window.location.assign('/api/login'), LOGGED_OUT_REDIRECT_MS);
}

/** Where the change-password form is (the Security Center opens it for this query). */
export const CHANGE_PASSWORD_PATH = '/security?change-password=1';
/** Fired on window when the API refuses a request because the password expired. */
export const PASSWORD_EXPIRED_EVENT = 'password-expired';

let passwordExpiredShown = false;

/**
 * 403 PASSWORD_EXPIRED: only changing the password is allowed. The app is told (a window event),
 * the message shown once, and the browser goes to the change-password form unless it is there.
 */
function handlePasswordExpired(message: string | undefined): void {
  window.dispatchEvent(new CustomEvent(PASSWORD_EXPIRED_EVENT, { detail: { message } }));
  if (!passwordExpiredShown) {
    passwordExpiredShown = true;
    toaster.create({ type: 'error', title: 'Password expired', description: message ?? 'Your password has expired. Choose a new password to continue.' });
  }
  if (`${window.location.pathname}${window.location.search}` !== CHANGE_PASSWORD_PATH) window.location.assign(CHANGE_PASSWORD_PATH);
}

interface RequestOptions<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** Validates the response body (a zod schema, classic or mini); without it the body is returned as parsed JSON. */
  schema?: { parse(data: unknown): T };
  /** Extra request headers (e.g. Idempotency-Key); Authorization, Accept and Content-Type are set here. */
  headers?: Record<string, string>;
}

/** Sends an authorised request; a failed response throws ApiError (401: logged-out handling). */
async function send(
  path: string,
  method: string,
  accept: string,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  const auth = await loadAuth();
  const token = await auth.getAccessToken();
  if (!token) {
    handleUnauthorized();
    throw new ApiError(401, '401: Unauthorized');
  }
  const headers: Record<string, string> = { ...extraHeaders, Authorization: `Bearer ${token}`, Accept: accept };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'include',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) {
    const text = (await response.text()) || response.statusText;
    // 410: the account was deleted (or is being deleted, in another tab): this session is over too.
    const body = errorBody(text);
    const sessionEnded = response.status === 401 && (body.code === securityErrorCodes.sessionExpired || body.code === securityErrorCodes.sessionReplaced);
    if (response.status === 401 || response.status === 410) handleUnauthorized(sessionEnded ? body.message : undefined);
    if (response.status === 403 && body.code === securityErrorCodes.passwordExpired) handlePasswordExpired(body.message);
    throw new ApiError(response.status, `${response.status}: ${text}`, body.message, body.fieldErrors, body.code);
  }
  return response;
}

export async function apiRequest<T = unknown>(path: string, options: RequestOptions<T> = {}): Promise<T> {
  const response = await send(path, options.method ?? 'GET', 'application/json', options.body, options.headers);
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json();
  return options.schema ? options.schema.parse(data) : (data as T);
}

/** The file name from Content-Disposition (RFC 6266: filename* wins over filename). */
export function filenameFromDisposition(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*utf-8''([^;]+)/i.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // Badly encoded: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/.exec(header);
  if (!plain) return undefined;
  return (plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1]!.trim()) || undefined;
}

/** GET a file (an export) with the same auth and error handling as apiRequest. */
export async function apiDownload(path: string): Promise<{ blob: Blob; filename?: string }> {
  const response = await send(path, 'GET', '*/*', undefined);
  return { blob: await response.blob(), filename: filenameFromDisposition(response.headers.get('Content-Disposition')) };
}
