import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { clearStoredTokens, loadAuth } from './auth';
import { markSignedOut } from './session';

/** Signs out on this device, forgets every cached server answer and goes to '/'. */
export function useSignOut(): () => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(async () => {
    try {
      const auth = await loadAuth();
      await auth.signOutHere();
    } catch {
      // Could not reach Cognito: the local tokens are dropped below all the same.
    }
    clearStoredTokens();
    queryClient.clear();
    navigate('/', { replace: true });
    markSignedOut();
  }, [navigate, queryClient]);
}
