import { Alert, Button, Checkbox, CloseButton, Code, Dialog, Fieldset, HStack, IconButton, Input, Portal, Stack, Text } from '@chakra-ui/react';
import { PlusIcon, XIcon } from 'lucide-react';
import { attributeKey, attributeLabel, orderedAttributeKeys } from '@shared/schemas/attributes';
import { useRef, useState, type FormEvent } from 'react';
import { accountEditSchema, changedFieldLabel, type AccountEditResult } from '@shared/schemas/account-edit';
import type { AccountView } from '@shared/schemas/project';
import { FormField } from './form-field';
import { serverFieldErrors, serverMessageOf } from '../lib/api-client';
import { useEditAccount } from '../lib/accounts-api';
import { toaster } from '../lib/toaster';
import { ignoreFocusOutside } from '../lib/modal-focus';
import { DialogActions } from './dialog-actions';

type Field = 'firstName' | 'lastName' | 'email';
/** One extra column in the form: `key` for one the account has, none for one being added (named by `name`). */
type DetailRow = { id: number; key?: string; name: string; value: string };
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
  // The extra columns as rows: a kept one shows its label; a new one is named by the user.
  const [details, setDetails] = useState<DetailRow[]>(() => orderedAttributeKeys(Object.keys(account.attributes ?? {})).map((key, i) => ({ id: i, key, name: attributeLabel(key), value: account.attributes![key]! })));
  const nextDetail = useRef(details.length);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string>();
  const [saved, setSaved] = useState<{ result: AccountEditResult; oldEmail: string }>();
  const firstInput = useRef<HTMLInputElement>(null);
  const edit = useEditAccount();
  const busy = edit.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const unnamed = details.find((row) => !row.key && row.value.trim() && !attributeKey(row.name));
    // A row without a name is left out; kept ones by their key, new ones by the name typed.
    const attributes = Object.fromEntries(details.filter((row) => row.key || row.name.trim()).map((row) => [row.key ?? row.name, row.value]));
    const parsed = accountEditSchema.safeParse({ ...draft, ...(account.attributes || details.length ? { attributes } : {}) });
    if (!parsed.success || unnamed) {
      const found: FieldErrors = {};
      for (const issue of parsed.error?.issues ?? []) {
        const field = issue.path[0] as Field;
        if (field === 'firstName' || field === 'lastName' || field === 'email') found[field] ??= issue.message;
        else setFormError(issue.message);
      }
      if (unnamed) setFormError('Name each detail with letters or digits (for example Department).');
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
          toaster.create({ type: 'success', title: 'Account updated', description: result.changes.map((c) => changedFieldLabel(c.field)).join(', ') });
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
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
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
                    <Fieldset.Root>
                      <Fieldset.Legend fontSize="sm" fontWeight="medium">
                        Details
                      </Fieldset.Legend>
                      <Fieldset.HelperText fontSize="xs">Department, title, phone, employee ID or any other column kept from the file.</Fieldset.HelperText>
                      <Stack gap="2" mt="2" data-testid="account-details-fields">
                        {details.map((row) => (
                          <HStack key={row.id} gap="2" align="flex-end">
                            {row.key ? (
                              <Text fontSize="sm" minW="28" maxW="40" truncate id={`detail-${row.id}`}>
                                {row.name}
                              </Text>
                            ) : (
                              <Input
                                size="sm"
                                maxW="40"
                                aria-label="Detail name"
                                placeholder="Name"
                                value={row.name}
                                onChange={(event) => setDetails((old) => old.map((r) => (r.id === row.id ? { ...r, name: event.target.value } : r)))}
                                disabled={busy}
                              />
                            )}
                            <Input
                              size="sm"
                              flex="1"
                              aria-label={row.key ? row.name : 'Detail value'}
                              placeholder="Value"
                              value={row.value}
                              onChange={(event) => setDetails((old) => old.map((r) => (r.id === row.id ? { ...r, value: event.target.value } : r)))}
                              disabled={busy}
                            />
                            <IconButton size="sm" variant="ghost" aria-label={`Remove ${row.name || 'this detail'}`} onClick={() => setDetails((old) => old.filter((r) => r.id !== row.id))} disabled={busy}>
                              <XIcon />
                            </IconButton>
                          </HStack>
                        ))}
                        <Button
                          size="sm"
                          variant="outline"
                          alignSelf="flex-start"
                          onClick={() => setDetails((old) => [...old, { id: nextDetail.current++, name: '', value: '' }])}
                          disabled={busy}
                        >
                          <PlusIcon /> Add a detail
                        </Button>
                      </Stack>
                    </Fieldset.Root>
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
                <DialogActions onCancel={onClose} busy={busy} loadingText="Saving..." submitLabel="Save changes" />
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
