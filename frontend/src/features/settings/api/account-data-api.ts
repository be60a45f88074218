import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, serverMessageOf } from '../../../lib/api-client';
import { rememberAccountDeleted } from '../../../lib/account-deleted-notice';
import { clearStoredTokens } from '../../../lib/auth';
import { toaster } from '../../../lib/toaster';

/**
 * DELETE /api/user/account: the server marks the account as being deleted (every request of it
 * is refused from then on) and erases it in the background. The session ends here: tokens and
 * cached answers are dropped, and the browser goes to /api/logout (spec 7), where the app shows
 * 'Account deleted'.
 */
export function useDeleteAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<{ status: 'deleting' }>('/api/user/account', { method: 'DELETE' }),
    onSuccess: () => {
      rememberAccountDeleted();
      clearStoredTokens();
      queryClient.clear();
      window.location.assign('/api/logout');
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({
        type: 'error',
        title: 'Deletion failed',
        description: serverMessageOf(error, [400, 404, 409]) ?? 'Failed to delete your account. Please try again.',
      });
    },
  });
}
