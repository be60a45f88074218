import { useSyncExternalStore } from 'react';
import { clearStoredTokens, hasStoredTokens, loadAuth } from './auth';

/**
 * Whether this browser holds a Cognito session. "Authenticated" in the spec's sense additionally
 * needs the current user from GET /api/auth/user (see app/routes/signed-in-app); this is the step before.
 */
export type SessionState =
  | { status: 'loading' }
  | { status: 'error'; error: Error }
  | { status: 'signedOut' }
  | { status: 'signedIn' };

let state: SessionState = { status: 'loading' };
const listeners = new Set<() => void>();

function setState(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSession(): SessionState {
  return useSyncExternalStore(subscribe, () => state);
}

let started = false;

/** Resolves the session once at start-up (and again when retried after a failure). */
export function startSession(force = false): void {
  if (started && !force) return;
  started = true;
  if (!hasStoredTokens()) {
    setState({ status: 'signedOut' });
    return;
  }
  setState({ status: 'loading' });
  void resolveStoredSession().then(setState, (error: unknown) =>
    setState({ status: 'error', error: error instanceof Error ? error : new Error(String(error)) }),
  );
}

async function resolveStoredSession(): Promise<SessionState> {
  const auth = await loadAuth();
  if (await auth.getAccessToken()) return { status: 'signedIn' };
  clearStoredTokens();
  return { status: 'signedOut' };
}

/** After a successful sign-in: the app then loads the current user and shows itself. */
export function markSignedIn(): void {
  setState({ status: 'signedIn' });
}

export function markSignedOut(): void {
  setState({ status: 'signedOut' });
}
