import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EmailSuppression } from '@shared/schemas/email-suppressions';
import { ApiError, apiRequest } from '../../../lib/api-client';
import { toaster } from '../../../lib/toaster';

export const emailSuppressionsQueryKey = ['/api/email-suppressions'] as const;

/** GET /api/email-suppressions: the user's suppressed addresses, newest first (every plan). */
export function useEmailSuppressionsQuery() {
  return useQuery({
    queryKey: emailSuppressionsQueryKey,
    queryFn: () => apiRequest<EmailSuppression[]>('/api/email-suppressions'),
  });
}

/** DELETE /api/email-suppressions/{email}: credential e-mails go to the address again. */
export function useRemoveEmailSuppression() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (suppression: EmailSuppression) =>
      apiRequest<void>(`/api/email-suppressions/${encodeURIComponent(suppression.email)}`, { method: 'DELETE' }),
    onSuccess: (_, removed) => {
      queryClient.setQueryData<EmailSuppression[]>(emailSuppressionsQueryKey, (list = []) => list.filter((s) => s.email !== removed.email));
      void queryClient.invalidateQueries({ queryKey: emailSuppressionsQueryKey });
      toaster.create({ type: 'success', title: 'Address removed', description: `Credential e-mails will be sent to ${removed.email} again.` });
    },
    onError: (error, suppression) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      if (error instanceof ApiError && error.status === 404) {
        // Removed already (another tab): the list is out of date.
        void queryClient.invalidateQueries({ queryKey: emailSuppressionsQueryKey });
        toaster.create({ type: 'error', title: 'Remove failed', description: `${suppression.email} is no longer on your suppression list.` });
        return;
      }
      toaster.create({ type: 'error', title: 'Remove failed', description: `Failed to remove ${suppression.email}. Please try again.` });
    },
  });
}
