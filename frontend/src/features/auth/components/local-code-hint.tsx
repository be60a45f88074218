import { Code } from '@chakra-ui/react';
import { useAppConfig } from '../../../lib/config';
import { FormAlert } from './form-alert';

/** Local stack only: the Cognito emulator prints codes instead of e-mailing them. */
export function LocalCodeHint({ code = 'confirmation code' }: { code?: 'confirmation code' | 'reset code' }) {
  const config = useAppConfig();
  if (config?.stage !== 'local') return null;
  return (
    <FormAlert status="info">
      Local stack: the {code} is printed in the <Code>npm start</Code> console (Cognito emulator log).
    </FormAlert>
  );
}
