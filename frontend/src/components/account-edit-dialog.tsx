import { Alert, Button, Checkbox, CloseButton, Code, Dialog, Input, Portal, Stack, Text } from '@chakra-ui/react';
import { useRef, useState, type FormEvent } from 'react';
import { accountEditSchema, accountFieldLabels, type AccountEditResult } from '@shared/schemas/account-edit';
import type { AccountView } from '@shared/schemas/project';
import { FormField } from './form-field';
import { serverFieldErrors, serverMessageOf } from '../lib/api-client';
import { useEditAccount } from '../lib/accounts-api';
import { toaster } from '../lib/toaster';

type Field = 'firstName' | 'lastName' | 'email';
type FieldErrors = Partial<Record<Field, string>>;

/**
 * Edit an account: first name, last name and e-mail, checked by the schema the server checks
 * them with (the bulk creator's rules and messages), the server's own reasons shown under the
 * fields too. The username stays unless 'Regenerate the username' is ticked. When the e-mail
 * changed on an account whose credentials were e-mailed, it then asks whether to send them to
 * the new address (`onSendCredentials`: the existing send for one account).
 *
 * Mounted open; closing unmounts it.
 */
export function AccountEditDialog({
  account,
  onClose,
  onSendCredentials,
  onUpdateOnPlatform,
}: {
  account: AccountView;
  onClose: () => void;
  onSendCredentials?: (account: AccountView) => void;
  onUpdateOnPlatform?: (account: AccountView) => void;
}) {
  const [draft, setDraft] = useState({ firstName: account.firstName, lastName: account.lastName, email: account.email, regenerateUsername: false });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string>();
  const [saved, setSaved] = useState<{ result: AccountEditResult; oldEmail: string }>();
  const firstInput = useRef<HTMLInputElement>(null);
  const edit = useEditAccount();
  const busy = edit.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = accountEditSchema.safeParse(draft);
    if (!parsed.success) {
      const found: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as Field;
        found[field] ??= issue.message;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    setFormError(undefined);
    edit.mutate(
      { accountId: account.id, ...parsed.data },
      {
        onSuccess: (result) => {
          if (result.changes.length === 0) {
            toaster.create({ type: 'info', title: 'Nothing changed', description: 'The account already had these values.' });
            return onClose();
          }
          toaster.create({ type: 'success', title: 'Account updated', description: result.changes.map((c) => accountFieldLabels[c.field]).join(', ') });
          // What may follow, asked (never done unasked): the platform's copy updated now, the
          // credentials sent to the new address. The old address as it was when saved (the row
          // re-renders with the new one meanwhile).
          const askSend = result.credentialsSentToOldAddress && !!onSendCredentials;
          const askUpdate = !!result.account.platformChange && !!onUpdateOnPlatform;
          if (askSend || askUpdate) return setSaved({ result, oldEmail: result.changes.find((c) => c.field === 'email')?.from ?? '' });
          onClose();
        },
        onError: (failure) => {
          const fields: FieldErrors = {};
          for (const { path, message } of serverFieldErrors(failure)) if (path === 'firstName' || path === 'lastName' || path === 'email') fields[path] ??= message;
          setErrors(fields);
          setFormError(Object.keys(fields).length ? undefined : (serverMessageOf(failure, [400, 404, 409]) ?? 'The account could not be saved. Please try again.'));
        },
      },
    );
  };

  const field = (name: Field, label: string, type = 'text', autoComplete = 'off') => (
    <FormField label={label} error={errors[name]}>
      <Input
        ref={name === 'firstName' ? firstInput : undefined}
        name={name}
        type={type}
        autoComplete={autoComplete}
        value={draft[name]}
        onChange={(event) => setDraft((old) => ({ ...old, [name]: event.target.value }))}
        disabled={busy}
      />
    </FormField>
  );

  return (
    <Dialog.Root
      open
      onOpenChange={(details) => {
        if (!details.open && !busy) onClose();
      }}
      closeOnInteractOutside={!busy}
      placement="center"
      initialFocusEl={() => firstInput.current}
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            {saved ? (
              <AfterSave
                result={saved.result}
                oldEmail={saved.oldEmail}
                onSend={
                  saved.result.credentialsSentToOldAddress && onSendCredentials
                    ? () => {
                        onSendCredentials(saved.result.account);
                        onClose();
                      }
                    : undefined
                }
                onUpdate={
                  saved.result.account.platformChange && onUpdateOnPlatform
                    ? () => {
                        onUpdateOnPlatform(saved.result.account);
                        onClose();
                      }
                    : undefined
                }
                onSkip={onClose}
              />
            ) : (
              <form onSubmit={submit} noValidate>
                <Dialog.Header>
                  <Dialog.Title>Edit account</Dialog.Title>
                </Dialog.Header>
                <Dialog.Body>
                  <Stack gap="4">
                    {field('firstName', 'First name')}
                    {field('lastName', 'Last name')}
                    {field('email', 'Email', 'email')}
                    <Stack gap="1">
                      <Text fontSize="sm" fontWeight="medium">
                        Username
                      </Text>
                      <Code variant="surface" alignSelf="flex-start">
                        {account.username}
                      </Code>
                      <Checkbox.Root
                        mt="1"
                        checked={draft.regenerateUsername}
                        onCheckedChange={(details) => setDraft((old) => ({ ...old, regenerateUsername: details.checked === true }))}
                        disabled={busy}
                      >
                        <Checkbox.HiddenInput />
                        <Checkbox.Control />
                        <Checkbox.Label>Regenerate the username from the new name</Checkbox.Label>
                      </Checkbox.Root>
                      <Text fontSize="xs" color="fg.muted">
                        It is the person&apos;s login: leave it unless they should sign in with a new one.
                      </Text>
                    </Stack>
                    {account.platformChange || account.externalStatus === 'success' ? (
                      <Alert.Root status="warning">
                        <Alert.Indicator />
                        <Alert.Description>This account is on a platform: the change is saved here and marked as not yet updated there.</Alert.Description>
                      </Alert.Root>
                    ) : null}
                    {formError ? (
                      <Text color="fg.error" fontSize="sm" role="alert">
                        {formError}
                      </Text>
                    ) : null}
                  </Stack>
                </Dialog.Body>
                <Dialog.Footer flexWrap="wrap">
                  <Button variant="outline" onClick={onClose} disabled={busy}>
                    Cancel
                  </Button>
                  <Button type="submit" colorPalette="blue" loading={busy} loadingText="Saving...">
                    Save changes
                  </Button>
                </Dialog.Footer>
              </form>
            )}
            {busy ? null : (
              <Dialog.CloseTrigger asChild>
                <CloseButton size="sm" aria-label="Close" />
              </Dialog.CloseTrigger>
            )}
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

/**
 * After a save: an account on a platform is offered 'Update on <platform>' at once (the 'update'
 * account action for this one account); an e-mail changed after the credentials went to the old
 * address asks whether to send them to the new one. Nothing happens unless chosen.
 */
function AfterSave({ result, oldEmail, onSend, onUpdate, onSkip }: { result: AccountEditResult; oldEmail: string; onSend?: () => void; onUpdate?: () => void; onSkip: () => void }) {
  const platform = result.account.platformChange?.platform;
  return (
    <>
      <Dialog.Header>
        <Dialog.Title>{onUpdate ? `Account saved: update it on ${platform}?` : 'Send the credentials to the new address?'}</Dialog.Title>
      </Dialog.Header>
      <Dialog.Body>
        <Stack gap="3">
          {onUpdate ? <Text>The change is saved here. {platform} still has the previous values until the account is updated there.</Text> : null}
          {onSend ? (
            <Text>
              The credentials were e-mailed to <strong>{oldEmail}</strong>. The account&apos;s e-mail is now <strong>{result.account.email}</strong>.
            </Text>
          ) : null}
          <Text color="fg.muted" fontSize="sm">
            Nothing is {onUpdate && onSend ? 'sent or updated' : onUpdate ? 'updated' : 'sent'} unless you choose to.
          </Text>
        </Stack>
      </Dialog.Body>
      <Dialog.Footer flexWrap="wrap">
        <Button variant="outline" onClick={onSkip}>
          Not now
        </Button>
        {onSend ? (
          <Button colorPalette="blue" variant={onUpdate ? 'outline' : 'solid'} onClick={onSend}>
            Send credentials
          </Button>
        ) : null}
        {onUpdate ? (
          <Button colorPalette="blue" onClick={onUpdate}>
            Update on {platform}
          </Button>
        ) : null}
      </Dialog.Footer>
    </>
  );
}
