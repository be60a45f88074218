import { CloseButton, Dialog, Fieldset, Input, NativeSelect, Portal, Separator, SimpleGrid, Stack, Text, Textarea } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo, useState } from 'react';
import { useForm, useWatch, type FieldPath, type UseFormRegister } from 'react-hook-form';
import { defaultAttributeMapping, mappingProblems, mappingTargetOf, type MappingTarget } from '@shared/schemas/attribute-mapping';
import { AttributeMappingFields, mappingOfRows, mappingRows, mappingToSave, type MappingRow } from './attribute-mapping-fields';
import {
  apiTypes,
  authFields,
  authMethodLabels,
  authMethods,
  createIntegrationSchema,
  integrationPlatforms,
  isLdapUrl,
  platformLabels,
  updateIntegrationSchema,
  type CreateIntegrationInput,
  type CreateIntegrationRequest,
  type Integration,
  type IntegrationPlatform,
  type IntegrationTemplate,
} from '@shared/schemas/integrations';
import { provisioningSupport } from '@shared/schemas/provisioning';
import { FormField } from '../../../components/form-field';
import { serverFieldErrors } from '../../../lib/api-client';
import { useCreateIntegration, useUpdateIntegration } from '../api/integrations-api';
import { ignoreFocusOutside } from '../../../lib/modal-focus';
import { DialogActions } from '../../../components/dialog-actions';
import {
  compactSettings,
  integrationFormDefaults,
  optionalChoice,
  optionalNumber,
  sameOrigin,
  STORED_PLACEHOLDER,
  templateFor,
  toCreateRequest,
  withCompactSettings,
} from '../lib/integration-form';

const FORM_ID = 'integration-form';
/** The fields a server's 400 may name that this form shows. */
const formPaths = new Set(['name', 'description', 'platform', 'apiType', 'baseUrl', 'authMethod']);
const serverPath = /^(authConfig|apiConfig)\.\w+(\.\w+){0,2}$/;

/**
 * The create and edit dialog (spec 2 and 5): blank, started from a quick-setup template, or an
 * integration to edit. Mounted only while open, so closing it (or saving) forgets every field,
 * credentials included; credential inputs of another sign-in method are unregistered when the
 * method changes, so only the chosen method's fields are sent. On edit the credentials are
 * write-only: the stored ones are never shown, and a field left empty keeps its stored value.
 */
export function IntegrationDialog({
  template,
  templates,
  editing,
  onClose,
}: {
  template?: IntegrationTemplate;
  /** Every template, for the example URL and test path of the platform chosen. */
  templates?: readonly IntegrationTemplate[];
  /** The integration to edit (PUT), instead of creating one. */
  editing?: Integration;
  onClose: () => void;
}) {
  const create = useCreateIntegration();
  const update = useUpdateIntegration();
  const save = editing ? update : create;
  const {
    register,
    control,
    handleSubmit,
    setValue,
    setError,
    getFieldState,
    formState: { errors },
  } = useForm<CreateIntegrationInput, unknown, CreateIntegrationRequest>({
    // Provisioning settings left wholly empty (a platform's group) are not checked for their required fields.
    resolver: (values, context, options) =>
      zodResolver(editing ? updateIntegrationSchema : createIntegrationSchema)(withCompactSettings(values), context, options),
    defaultValues: integrationFormDefaults(template, editing),
    shouldUnregister: true,
  });
  const platform = useWatch({ control, name: 'platform' });
  const apiType = useWatch({ control, name: 'apiType' });
  const authMethod = useWatch({ control, name: 'authMethod' }) ?? 'api_key';
  const platformTemplate = templateFor(templates, platform) ?? template;
  const baseUrl = useWatch({ control, name: 'baseUrl' });
  // Fields stored under the method shown: an empty one keeps its value (a new method needs them
  // all). Stored secrets only go where they went: a new address needs them typed again.
  const sameHost = !!editing && sameOrigin(baseUrl, editing.baseUrl);
  const stored = new Set(
    editing && authMethod === editing.authMethod
      ? editing.authFieldsSet.filter((name) => sameHost || !authFields[authMethod].find((field) => field.name === name)?.secret)
      : [],
  );
  const settings = useWatch({ control, name: 'apiConfig.provisioning' });
  // The same rule as the server's, on what is typed: e.g. Entra ID needs its verified domain.
  const support = platform ? provisioningSupport({ platform, apiType, baseUrl, apiConfig: { provisioning: compactSettings(settings) } }) : undefined;
  const ldap = platform === 'active_directory' && isLdapUrl(baseUrl ?? '');
  // Columns on the platform: the integration's mapping, else its platform's default; kept in the
  // form's state (not a registered field) and added to the request on save.
  const target = platform ? mappingTargetOf({ platform, baseUrl, apiConfig: { provisioning: { ldap: settings?.ldap } } }) : undefined;
  const [mappingEdit, setMappingEdit] = useState<{ target: MappingTarget; rows: MappingRow[] }>();
  const initialRows = useMemo(() => {
    if (!target) return [];
    const own = editing && mappingTargetOf(editing) === target ? editing.apiConfig.provisioning?.attributeMapping : undefined;
    return mappingRows(own ?? defaultAttributeMapping[target]);
  }, [target, editing]);
  const rows = mappingEdit && mappingEdit.target === target ? mappingEdit.rows : initialRows;
  const mappingInvalid = !!target && mappingProblems(target, mappingOfRows(rows)).length > 0;

  // A platform chosen here brings its template's settings, for the fields the user has not changed.
  const applyPlatform = (chosen: IntegrationPlatform | '') => {
    const next = templateFor(templates, chosen || undefined);
    if (!next) return;
    if (!getFieldState('apiType').isDirty) setValue('apiType', next.apiType);
    if (!getFieldState('authMethod').isDirty) setValue('authMethod', next.authMethod);
    if (!getFieldState('apiConfig.testPath').isDirty) setValue('apiConfig.testPath', next.testPath);
  };

  const onError = (error: Error) => {
    for (const { path, message } of serverFieldErrors(error)) {
      if (formPaths.has(path) || serverPath.test(path)) {
        setError(path as FieldPath<CreateIntegrationInput>, { type: 'server', message }, { shouldFocus: true });
      }
    }
  };
  const onSubmit = handleSubmit((values) => {
    // The mapping's problems are shown under it; nothing is sent until they are fixed.
    if (mappingInvalid) return;
    const attributeMapping = target ? mappingToSave(target, rows) : undefined;
    const plain = toCreateRequest(values);
    const request = attributeMapping ? { ...plain, apiConfig: { ...plain.apiConfig, provisioning: { ...plain.apiConfig.provisioning, attributeMapping } } } : plain;
    if (editing) update.mutate({ id: editing.id, request }, { onSuccess: onClose, onError });
    else create.mutate(request, { onSuccess: onClose, onError });
  });
  const busy = save.isPending;
  const provisioningErrors = errors.apiConfig?.provisioning;

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
      open
      onOpenChange={(details) => {
        if (!details.open && !busy) onClose();
      }}
      closeOnInteractOutside={!busy}
      closeOnEscape={!busy}
      size="lg"
      scrollBehavior="inside"
      placement="center"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
              <Dialog.Title>{editing ? 'Edit Integration' : 'Add Integration'}</Dialog.Title>
              <Dialog.Description>
                {editing
                  ? `Change ${editing.name}. Stored credentials are never shown: leave a field empty to keep it.`
                  : template?.ready
                    ? `Quick setup for ${template.name}: everything is filled in, ready to create.`
                    : template
                      ? `Quick setup for ${template.name}: the platform and sign-in method are chosen for you.`
                      : 'Connect a platform so accounts can be created on it.'}
              </Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              <form id={FORM_ID} onSubmit={onSubmit} noValidate>
                <Stack gap="4">
                  <FormField label="Name" error={errors.name?.message}>
                    <Input
                      autoComplete="off"
                      placeholder={template ? `${template.name} production` : 'My integration'}
                      {...register('name')}
                    />
                  </FormField>
                  <FormField label="Description (optional)" error={errors.description?.message}>
                    <Textarea rows={2} autoresize {...register('description')} />
                  </FormField>
                  <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
                    <FormField
                      label="Platform"
                      error={errors.platform?.message}
                      helperText={editing ? 'Fixed: its accounts and runs belong to it. Add a new integration for another platform.' : undefined}
                    >
                      <NativeSelect.Root>
                        <NativeSelect.Field
                          {...register('platform', {
                            onChange: (event: { target: { value: IntegrationPlatform | '' } }) => applyPlatform(event.target.value),
                          })}
                        >
                          {editing ? null : <option value="">Select a platform</option>}
                          {(editing ? [editing.platform] : integrationPlatforms).map((value) => (
                            <option key={value} value={value}>
                              {platformLabels[value]}
                            </option>
                          ))}
                        </NativeSelect.Field>
                        <NativeSelect.Indicator />
                      </NativeSelect.Root>
                    </FormField>
                    <FormField label="API type" error={errors.apiType?.message}>
                      <NativeSelect.Root>
                        <NativeSelect.Field {...register('apiType')}>
                          {apiTypes.map((value) => (
                            <option key={value} value={value}>
                              {value}
                            </option>
                          ))}
                        </NativeSelect.Field>
                        <NativeSelect.Indicator />
                      </NativeSelect.Root>
                    </FormField>
                  </SimpleGrid>
                  <FormField
                    label="Base URL"
                    error={errors.baseUrl?.message}
                    helperText="The address of the platform's API, starting with https://."
                  >
                    <Input
                      type="url"
                      inputMode="url"
                      autoComplete="off"
                      placeholder={platformTemplate?.baseUrlExample ?? 'https://api.example.com'}
                      {...register('baseUrl')}
                    />
                  </FormField>
                  <FormField
                    label="Test path (optional)"
                    error={errors.apiConfig?.testPath?.message}
                    helperText="What Test reads, relative to the base URL."
                  >
                    <Input autoComplete="off" placeholder="/api/v1/users?limit=1" {...register('apiConfig.testPath')} />
                  </FormField>
                  <FormField label="Authentication method" error={errors.authMethod?.message}>
                    <NativeSelect.Root>
                      <NativeSelect.Field {...register('authMethod')}>
                        {authMethods.map((value) => (
                          <option key={value} value={value}>
                            {authMethodLabels[value]}
                          </option>
                        ))}
                      </NativeSelect.Field>
                      <NativeSelect.Indicator />
                    </NativeSelect.Root>
                  </FormField>
                  <Separator />
                  <Fieldset.Root>
                    <Stack gap="1">
                      <Fieldset.Legend fontWeight="semibold">Credentials</Fieldset.Legend>
                      <Fieldset.HelperText>Stored encrypted and never shown again, not even to you.</Fieldset.HelperText>
                    </Stack>
                    <Fieldset.Content>
                      {authFields[authMethod].map((field) => (
                        <FormField
                          key={`${authMethod}.${field.name}`}
                          label={field.required && !stored.has(field.name) ? field.label : `${field.label} (optional)`}
                          error={errors.authConfig?.[field.name]?.message}
                          helperText={field.hint}
                        >
                          <Input
                            type={field.secret ? 'password' : 'text'}
                            placeholder={stored.has(field.name) ? STORED_PLACEHOLDER : undefined}
                            autoComplete="off"
                            spellCheck={false}
                            {...register(`authConfig.${field.name}`)}
                          />
                        </FormField>
                      ))}
                    </Fieldset.Content>
                  </Fieldset.Root>
                  <Separator />
                  <Fieldset.Root>
                    <Stack gap="1">
                      <Fieldset.Legend fontWeight="semibold">Provisioning</Fieldset.Legend>
                      <Fieldset.HelperText>
                        How accounts are created on the platform. Left empty, the platform&apos;s documented limits apply.
                      </Fieldset.HelperText>
                    </Stack>
                    <Fieldset.Content>
                      {support && !support.supported ? (
                        <Text fontSize="sm" color="fg.muted">
                          {support.reason}
                        </Text>
                      ) : null}
                      <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
                        <FormField label="Requests per minute (optional)" error={provisioningErrors?.requestsPerMinute?.message}>
                          <Input
                            type="number"
                            inputMode="numeric"
                            min={1}
                            placeholder="Platform default"
                            {...register('apiConfig.provisioning.requestsPerMinute', { setValueAs: optionalNumber })}
                          />
                        </FormField>
                        <FormField label="Concurrent requests (optional)" error={provisioningErrors?.concurrency?.message}>
                          <Input
                            type="number"
                            inputMode="numeric"
                            min={1}
                            max={100}
                            placeholder="Platform default"
                            {...register('apiConfig.provisioning.concurrency', { setValueAs: optionalNumber })}
                          />
                        </FormField>
                      </SimpleGrid>
                      {platform === 'okta' ? (
                        <FormField label="Okta login" error={provisioningErrors?.oktaLogin?.message} helperText="What each person signs in to Okta with.">
                          <NativeSelect.Root>
                            <NativeSelect.Field {...register('apiConfig.provisioning.oktaLogin', { setValueAs: optionalChoice })}>
                              <option value="">The generated username (default)</option>
                              <option value="email">The e-mail address (Okta's default login pattern)</option>
                            </NativeSelect.Field>
                            <NativeSelect.Indicator />
                          </NativeSelect.Root>
                        </FormField>
                      ) : null}
                      {platform === 'okta' ? (
                        <FormField
                          label="Deactivate on Okta"
                          error={provisioningErrors?.oktaDeactivation?.message}
                          helperText="Deactivate removes the person's Okta app assignments; Suspend keeps them, but works only for people who have signed in."
                        >
                          <NativeSelect.Root>
                            <NativeSelect.Field {...register('apiConfig.provisioning.oktaDeactivation', { setValueAs: optionalChoice })}>
                              <option value="">Deactivate the user (default)</option>
                              <option value="suspend">Suspend the user</option>
                            </NativeSelect.Field>
                            <NativeSelect.Indicator />
                          </NativeSelect.Root>
                        </FormField>
                      ) : null}
                      {platform === 'salesforce' ? <SalesforceFields register={register} errors={provisioningErrors?.salesforce as FieldErrorsOf} /> : null}
                      {ldap ? <LdapFields register={register} errors={provisioningErrors?.ldap as FieldErrorsOf} /> : null}
                      {platform === 'active_directory' && !ldap ? (
                        <FormField
                          label="Verified domain (Microsoft Entra ID)"
                          error={provisioningErrors?.entraDomain?.message}
                          helperText="The tenant's verified domain: user principal names are username@domain. Needed to provision through Microsoft Graph."
                        >
                          <Input
                            autoComplete="off"
                            spellCheck={false}
                            placeholder="contoso.com"
                            {...register('apiConfig.provisioning.entraDomain', { setValueAs: optionalChoice })}
                          />
                        </FormField>
                      ) : null}
                      <FormField
                        label="Undo action"
                        error={provisioningErrors?.undo?.message}
                        helperText="What Undo on platform does to an account there. Defaults: Okta and OpenLDAP delete (Okta deactivates first); SCIM, Entra ID, Salesforce and Active Directory deactivate."
                      >
                        <NativeSelect.Root>
                          <NativeSelect.Field {...register('apiConfig.provisioning.undo', { setValueAs: optionalChoice })}>
                            <option value="">The platform's default</option>
                            <option value="deactivate">Deactivate the account</option>
                            <option value="delete">Delete the account</option>
                          </NativeSelect.Field>
                          <NativeSelect.Indicator />
                        </NativeSelect.Root>
                      </FormField>
                    </Fieldset.Content>
                  </Fieldset.Root>
                  {target ? (
                    <>
                      <Separator />
                      <AttributeMappingFields target={target} rows={rows} onChange={(next) => setMappingEdit({ target, rows: next })} integrationId={editing?.id} />
                    </>
                  ) : null}
                </Stack>
              </form>
            </Dialog.Body>
            <DialogActions form={FORM_ID} busy={busy} loadingText={editing ? 'Saving...' : 'Creating...'} submitLabel={editing ? 'Save Changes' : 'Create Integration'} />
            {busy ? null : (
              <Dialog.CloseTrigger asChild>
                <CloseButton size="sm" />
              </Dialog.CloseTrigger>
            )}
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

type Register = UseFormRegister<CreateIntegrationInput>;
type FieldErrorsOf = Partial<Record<string, { message?: string }>> | undefined;

/** A setting's text input: empty is no value (the default, or the whole group left out). */
function SettingInput({ label, name, register, error, placeholder, helperText }: { label: string; name: FieldPath<CreateIntegrationInput>; register: Register; error?: string; placeholder?: string; helperText?: string }) {
  return (
    <FormField label={label} error={error} helperText={helperText}>
      <Input autoComplete="off" spellCheck={false} placeholder={placeholder} {...register(name, { setValueAs: optionalChoice })} />
    </FormField>
  );
}

/** Salesforce: what a new User needs beside the person (profile, user name domain, the org's picklists). */
function SalesforceFields({ register, errors }: { register: Register; errors?: FieldErrorsOf }) {
  return (
    <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
      <SettingInput label="Profile id" name="apiConfig.provisioning.salesforce.profileId" register={register} error={errors?.profileId?.message} placeholder="00e..." helperText="The Profile of new users (Setup, Profiles: the id in the address)." />
      <SettingInput label="User name domain" name="apiConfig.provisioning.salesforce.usernameDomain" register={register} error={errors?.usernameDomain?.message} placeholder="example.com" helperText="Salesforce user names are username@domain." />
      <SettingInput label="Time zone (optional)" name="apiConfig.provisioning.salesforce.timeZoneSidKey" register={register} error={errors?.timeZoneSidKey?.message} placeholder="GMT" />
      <SettingInput label="Locale (optional)" name="apiConfig.provisioning.salesforce.localeSidKey" register={register} error={errors?.localeSidKey?.message} placeholder="en_US" />
      <SettingInput label="Language (optional)" name="apiConfig.provisioning.salesforce.languageLocaleKey" register={register} error={errors?.languageLocaleKey?.message} placeholder="en_US" />
      <SettingInput label="E-mail encoding (optional)" name="apiConfig.provisioning.salesforce.emailEncodingKey" register={register} error={errors?.emailEncodingKey?.message} placeholder="UTF-8" />
      <SettingInput label="API version (optional)" name="apiConfig.provisioning.salesforce.apiVersion" register={register} error={errors?.apiVersion?.message} placeholder="62.0" />
    </SimpleGrid>
  );
}

/** An LDAP directory: where people are added, which attributes they get, Active Directory's UPN suffix. */
function LdapFields({ register, errors }: { register: Register; errors?: FieldErrorsOf }) {
  return (
    <Stack gap="4">
      <SettingInput label="Base DN" name="apiConfig.provisioning.ldap.baseDn" register={register} error={errors?.baseDn?.message} placeholder="ou=People,dc=example,dc=org" helperText="Where new people are added." />
      <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
        <FormField label="Directory" error={errors?.directory?.message}>
          <NativeSelect.Root>
            <NativeSelect.Field {...register('apiConfig.provisioning.ldap.directory', { setValueAs: optionalChoice })}>
              <option value="">OpenLDAP or another (inetOrgPerson, default)</option>
              <option value="openldap">OpenLDAP (inetOrgPerson)</option>
              <option value="active_directory">Active Directory (user, unicodePwd over LDAPS)</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </FormField>
        <SettingInput label="UPN suffix (optional)" name="apiConfig.provisioning.ldap.upnSuffix" register={register} error={errors?.upnSuffix?.message} placeholder="corp.example.com" helperText="Active Directory only; default: the base DN's dc= parts." />
      </SimpleGrid>
    </Stack>
  );
}
