import { toaster } from './toaster';

/**
 * Why the API ended this session (the session timeout, or a sign-in elsewhere while concurrent
 * sessions are off): the message must outlive the full page load of /api/logout → /sign-in, so it
 * waits in sessionStorage (this tab only) and the app shows it once on its next start.
 */
const KEY = 'bulkonboard.sessionEnded';

export function rememberSessionEnded(message: string): void {
  try {
    window.sessionStorage.setItem(KEY, message);
  } catch {
    // Storage refused (private mode): the sign-out still happens, with the short toast only.
  }
}

export function showSessionEndedNotice(): void {
  let message: string | null;
  try {
    message = window.sessionStorage.getItem(KEY);
    if (message === null) return;
    window.sessionStorage.removeItem(KEY);
  } catch {
    return;
  }
  toaster.create({ type: 'error', title: 'Signed out', description: message, duration: 10_000 });
}
