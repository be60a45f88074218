import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { securitySettingsSchema, type SecuritySettings, type UpdateSecuritySettingsInput } from '@shared/schemas/security';
import type { TwoFactorSetup } from '@shared/schemas/two-factor';
import { apiRequest } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';
import { toaster } from '../../../lib/toaster';

/** GET /api/security/settings: the six settings (the defaults where never saved). */
export function useSecuritySettings() {
  return useQuery({ queryKey: queryKeys.securitySettings, queryFn: () => apiRequest('/api/security/settings', { schema: securitySettingsSchema }) });
}

/** PUT /api/security/settings with the spec's toasts (spec 8); the card shows a 400's reasons under the fields. */
export function useUpdateSecuritySettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateSecuritySettingsInput) => apiRequest('/api/security/settings', { method: 'PUT', body: input, schema: securitySettingsSchema }),
    onSuccess: (settings) => {
      queryClient.setQueryData(queryKeys.securitySettings, settings);
      toaster.create({ type: 'success', title: 'Settings updated', description: 'Security settings have been updated successfully.' });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the signed-out toast is already showing
      toaster.create({ type: 'error', title: 'Update failed', description: 'Failed to update security settings.' });
    },
  });
}

/** POST /api/security/two-factor/setup: a new secret for the authenticator app and its QR URI. */
export function useTwoFactorSetup() {
  return useMutation({ mutationFn: () => apiRequest<TwoFactorSetup>('/api/security/two-factor/setup', { method: 'POST' }) });
}
export type TwoFactorSetupMutation = ReturnType<typeof useTwoFactorSetup>;

/** POST /api/security/two-factor/enable or /disable with a code; the settings then hold the new state. */
export function useTwoFactorSwitch(action: 'enable' | 'disable') {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => apiRequest(`/api/security/two-factor/${action}`, { method: 'POST', body: { code }, schema: securitySettingsSchema }),
    onSuccess: (settings: SecuritySettings) => {
      queryClient.setQueryData(queryKeys.securitySettings, settings);
      toaster.create(
        settings.twoFactorEnabled
          ? { type: 'success', title: 'Two-factor authentication on', description: 'Signing in now asks for a code from your authenticator app.' }
          : { type: 'success', title: 'Two-factor authentication off', description: 'Signing in no longer asks for a code.' },
      );
    },
  });
}
