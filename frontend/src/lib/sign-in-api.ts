import type { ChangePasswordInput, SignInAnswer, SignInTokens } from '@shared/schemas/sign-in';

/**
 * The sign-in routes (POST /api/auth/sign-in, .../totp, .../change-password). Not through
 * api-client: before sign-in there is no stored token, and a refused password (401) must stay on
 * the form instead of the logged-out handling.
 */
export class SignInError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** ACCOUNT_LOCKED, USER_NOT_CONFIRMED, SIGN_IN_SESSION_EXPIRED ... */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

const GENERIC = 'Something went wrong. Please try again.';
/** API Gateway's own 429 (the route's throttle: `{"message":"Too Many Requests"}`, no code). */
export const THROTTLED = 'Too many attempts. Please wait a moment and try again.';

async function post<T>(path: string, body: unknown, accessToken?: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}) },
      body: JSON.stringify(body),
    });
  } catch {
    throw new SignInError(0, 'Cannot reach the sign-in service. Check your connection and try again.');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const { message, code } = (parsed ?? {}) as { message?: unknown; code?: unknown };
    if (response.status === 429 && typeof code !== 'string') throw new SignInError(429, THROTTLED);
    throw new SignInError(response.status, typeof message === 'string' && response.status < 500 ? message : GENERIC, typeof code === 'string' ? code : undefined);
  }
  return parsed as T;
}

export const signInWithPassword = (email: string, password: string) => post<SignInAnswer>('/api/auth/sign-in', { email, password });
export const signInWithTotp = (email: string, session: string, code: string) => post<SignInAnswer>('/api/auth/sign-in/totp', { email, session, code });
/** With the access token of the sign-in in progress (an expired password) or of the session. */
export const changePasswordWith = (accessToken: string, input: ChangePasswordInput) => post<{ passwordChangedAt: string }>('/api/auth/change-password', input, accessToken);
export type { SignInTokens };
