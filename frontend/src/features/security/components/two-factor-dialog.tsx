import { Alert, Box, Button, Code, CloseButton, Dialog, Input, Portal, QrCode, Skeleton, Stack, Text } from '@chakra-ui/react';
import { useRef, useState, type FormEvent } from 'react';
import { TWO_FACTOR_CODE_FORMAT_MESSAGE, twoFactorCodeSchema } from '@shared/schemas/two-factor';
import { FormField } from '../../../components/form-field';
import { serverMessageOf } from '../../../lib/api-client';
import { useTwoFactorSwitch, type TwoFactorSetupMutation } from '../api/security-settings-api';
import { ignoreFocusOutside } from '../../../lib/modal-focus';
import { DialogActions } from '../../../components/dialog-actions';

/**
 * Turning two-factor authentication on (the QR code and the secret for the authenticator app,
 * then a code from it) or off (a code). Nothing changes until the server accepts a code.
 */
/**
 * Mounted open; closing unmounts it (the card renders it while an action is chosen). For 'enable'
 * the card has started the setup (`setup`) when the switch was turned: a code is checked against
 * the secret of that one setup, so it is started once per opening, not by an effect here.
 */
export function TwoFactorDialog({ action, setup, onClose }: { action: 'enable' | 'disable'; setup: TwoFactorSetupMutation; onClose: () => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const codeInput = useRef<HTMLInputElement>(null);
  const submit = useTwoFactorSwitch(action);
  const busy = submit.isPending;

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    const parsed = twoFactorCodeSchema.safeParse({ code });
    if (!parsed.success) return setError(TWO_FACTOR_CODE_FORMAT_MESSAGE);
    setError(undefined);
    submit.mutate(parsed.data.code, {
      onSuccess: onClose,
      onError: (failure) => setError(serverMessageOf(failure, [400, 409]) ?? 'The code could not be checked. Please try again.'),
    });
  };

  const enabling = action === 'enable';
  const title = enabling ? 'Turn on two-factor authentication' : 'Turn off two-factor authentication';
  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
      open
      onOpenChange={(details) => {
        if (!details.open && !busy) onClose();
      }}
      closeOnInteractOutside={!busy}
      placement="center"
      initialFocusEl={() => codeInput.current}
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4">
            <form onSubmit={confirm} noValidate>
              <Dialog.Header>
                <Dialog.Title>{title}</Dialog.Title>
              </Dialog.Header>
              <Dialog.Body>
                <Stack gap="4">
                  {enabling ? <SetupStep setup={setup} /> : <Text>Enter the current code from your authenticator app to turn two-factor authentication off.</Text>}
                  <FormField label="Authentication code" error={error} helperText="The 6-digit code your app shows now.">
                    <Input
                      ref={codeInput}
                      name="code"
                      inputMode="numeric"
                      autoComplete="one-time-code"
                      maxLength={7}
                      placeholder="123456"
                      value={code}
                      onChange={(event) => setCode(event.target.value)}
                      disabled={enabling && !setup.data}
                    />
                  </FormField>
                </Stack>
              </Dialog.Body>
              <DialogActions onCancel={onClose} busy={busy} colorPalette={enabling ? 'blue' : 'red'} loadingText="Checking..." disabled={enabling && !setup.data} submitLabel={enabling ? 'Turn On' : 'Turn Off'} />
              {busy ? null : (
                <Dialog.CloseTrigger asChild>
                  <CloseButton size="sm" aria-label="Close" />
                </Dialog.CloseTrigger>
              )}
            </form>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

function SetupStep({ setup }: { setup: TwoFactorSetupMutation }) {
  if (setup.isError) {
    return (
      <Alert.Root status="error">
        <Alert.Indicator />
        <Alert.Description>
          {serverMessageOf(setup.error, [409]) ?? 'The setup could not be started.'}{' '}
          <Button variant="plain" size="sm" p="0" h="auto" textDecoration="underline" onClick={() => setup.mutate()}>
            Try again
          </Button>
        </Alert.Description>
      </Alert.Root>
    );
  }
  if (!setup.data) {
    return (
      <Stack gap="3" align="center" aria-busy="true" aria-label="Preparing the QR code">
        <Skeleton boxSize="200px" />
        <Skeleton h="4" w="60%" />
      </Stack>
    );
  }
  return (
    <Stack gap="3">
      <Text>Scan this QR code with your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password...), then enter the code it shows.</Text>
      {/* Dark on white in both colour modes: authenticator apps read it reliably so. */}
      <Box alignSelf="center" bg="white" p="3" borderRadius="md" borderWidth="1px">
        <QrCode.Root value={setup.data.otpauthUri} size="xl" color="black" aria-label="QR code for your authenticator app" role="img">
          <QrCode.Frame>
            <QrCode.Pattern />
          </QrCode.Frame>
        </QrCode.Root>
      </Box>
      <Stack gap="1">
        <Text fontSize="sm" color="fg.muted">
          Cannot scan it? Enter this key in the app instead:
        </Text>
        <Code data-testid="two-factor-secret" fontSize="sm" px="2" py="1" wordBreak="break-all" userSelect="all">
          {setup.data.secret}
        </Code>
      </Stack>
    </Stack>
  );
}
