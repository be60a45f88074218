import { Alert } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** Message above an auth form: an error (role alert) or a notice. */
export function FormAlert({ status, children }: { status: 'error' | 'success' | 'info'; children: ReactNode }) {
  return (
    <Alert.Root status={status} role={status === 'error' ? 'alert' : 'status'}>
      <Alert.Indicator />
      <Alert.Description>{children}</Alert.Description>
    </Alert.Root>
  );
}
