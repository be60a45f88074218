import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { userSettingsSchema, type UpdateUserSettingsInput } from '@shared/schemas/user-settings';
import { apiRequest } from './api-client';
import { toaster } from './toaster';
import { currentUserQueryKey } from './user-api';

/** GET /api/user/settings: shared by the Settings tabs (Notifications here; Preferences, Account later). */
export const userSettingsQueryKey = ['/api/user/settings'] as const;

export function useUserSettings() {
  return useQuery({ queryKey: userSettingsQueryKey, queryFn: () => apiRequest('/api/user/settings', { schema: userSettingsSchema }) });
}

/** PUT /api/user/settings with the spec's toasts (spec 8). */
export function useUpdateUserSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateUserSettingsInput) => apiRequest('/api/user/settings', { method: 'PUT', body: input, schema: userSettingsSchema }),
    onSuccess: (settings, input) => {
      queryClient.setQueryData(userSettingsQueryKey, settings);
      // The account group is the profile: the top bar's name follows.
      if (input.account) void queryClient.invalidateQueries({ queryKey: currentUserQueryKey });
      toaster.create({ type: 'success', title: 'Settings updated', description: 'Your settings have been saved successfully.' });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Update failed', description: 'Failed to update settings. Please try again.' });
    },
  });
}
