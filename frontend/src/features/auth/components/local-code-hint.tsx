import { Code, Link } from '@chakra-ui/react';
import { useAppConfig } from '../../../lib/config';
import { FormAlert } from './form-alert';

/** Local stack only: Cognito's e-mail goes to the local mail viewer, and the code to the console. */
export function LocalCodeHint({ code = 'confirmation code' }: { code?: 'confirmation code' | 'reset code' }) {
  const config = useAppConfig();
  if (config?.stage !== 'local') return null;
  return (
    <FormAlert status="info">
      Local stack: the {code} is printed in the <Code>npm start</Code> console
      {config.mailViewerUrl ? (
        <>
          {' '}
          and e-mailed to the{' '}
          <Link href={config.mailViewerUrl} target="_blank" rel="noreferrer" colorPalette="blue" color="colorPalette.fg">
            mail viewer
          </Link>
        </>
      ) : null}
      .
    </FormAlert>
  );
}
