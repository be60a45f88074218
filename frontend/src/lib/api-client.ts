import type * as z from 'zod';
import { clearStoredTokens, loadAuth } from './auth';
import { toaster } from './toaster';

/**
 * The one API client: same origin, /api/..., the Cognito access token as bearer. A failed
 * response becomes Error('{status}: {response text}') (spec 8); 401 means logged out.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const LOGGED_OUT_REDIRECT_MS = 500;

let redirecting = false;

/** Spec 8: destructive toast, then the browser goes to /api/login after 500 ms. */
function handleUnauthorized(): void {
  if (redirecting) return;
  redirecting = true;
  toaster.create({ type: 'error', title: 'Unauthorized', description: 'You are logged out. Logging in again...' });
  // The stored tokens are no good: drop them, or /sign-in would take us for signed in again.
  clearStoredTokens();
  window.setTimeout(() => window.location.assign('/api/login'), LOGGED_OUT_REDIRECT_MS);
}

interface RequestOptions<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** Validates the response body; without it the body is returned as parsed JSON. */
  schema?: z.ZodType<T>;
}

export async function apiRequest<T = unknown>(path: string, options: RequestOptions<T> = {}): Promise<T> {
  const auth = await loadAuth();
  const token = await auth.getAccessToken();
  if (!token) {
    handleUnauthorized();
    throw new ApiError(401, '401: Unauthorized');
  }
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    credentials: 'include',
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  if (!response.ok) {
    const text = (await response.text()) || response.statusText;
    if (response.status === 401) handleUnauthorized();
    throw new ApiError(response.status, `${response.status}: ${text}`);
  }
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json();
  return options.schema ? options.schema.parse(data) : (data as T);
}
