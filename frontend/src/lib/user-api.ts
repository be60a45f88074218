import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { userSchema, type UpdateProfileInput, type User } from '@shared/schemas/user';
import { apiRequest } from './api-client';
import { toaster } from './toaster';

/**
 * The current user: shared by the app shell, Profile and Settings (features may not import each
 * other, so it lives here). Its presence is what "authenticated" means.
 */
export const currentUserQueryKey = ['/api/auth/user'] as const;

export const getCurrentUser = () => apiRequest('/api/auth/user', { schema: userSchema });

export function useCurrentUserQuery(enabled: boolean) {
  return useQuery({ queryKey: currentUserQueryKey, queryFn: getCurrentUser, enabled });
}

/** The signed-in user; only for screens rendered after the user has loaded. */
export function useUser(): User {
  const { data } = useQuery({ queryKey: currentUserQueryKey, queryFn: getCurrentUser });
  if (!data) throw new Error('useUser() used outside the signed-in app');
  return data;
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateProfileInput) =>
      apiRequest('/api/user/profile', { method: 'PUT', body: input, schema: userSchema }),
    onSuccess: (user) => {
      queryClient.setQueryData(currentUserQueryKey, user);
      toaster.create({ type: 'success', title: 'Profile updated', description: 'Your profile has been updated successfully.' });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Update failed', description: 'Failed to update profile. Please try again.' });
    },
  });
}

/** "First Last", or '' when the user has no names yet. */
export const fullNameOf = (user: Pick<User, 'firstName' | 'lastName'>): string =>
  `${user.firstName} ${user.lastName}`.trim();
