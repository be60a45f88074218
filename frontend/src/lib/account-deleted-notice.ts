import { toaster } from './toaster';

/**
 * The 'Account deleted' toast must outlive the full page load of /api/logout: the flag waits in
 * sessionStorage (this tab only) and the app shows the toast once on its next start.
 */
const FLAG = 'bulkonboard.accountDeleted';

export function rememberAccountDeleted(): void {
  try {
    window.sessionStorage.setItem(FLAG, '1');
  } catch {
    // Storage refused (private mode): the redirect still happens, without the toast.
  }
}

export function showAccountDeletedNotice(): void {
  try {
    if (window.sessionStorage.getItem(FLAG) !== '1') return;
    window.sessionStorage.removeItem(FLAG);
  } catch {
    return;
  }
  toaster.create({ type: 'success', title: 'Account deleted', description: 'Your account has been permanently deleted.' });
}
