import { Button, Card, HStack, Input, Separator, SimpleGrid, Stack } from '@chakra-ui/react';
import { useRef, useState } from 'react';
import {
  MAX_LOGIN_ATTEMPTS,
  PASSWORD_EXPIRY_DAYS,
  securitySettingsSchema,
  SESSION_TIMEOUT_HOURS,
  type SecuritySettings,
} from '@shared/schemas/security';
import { FormField } from '../../../components/form-field';
import { SettingSwitch } from '../../../components/setting-switch';
import { ListSkeleton } from '../../../components/list-skeleton';
import { QueryErrorCard } from '../../../components/query-error-card';
import { serverFieldErrors } from '../../../lib/api-client';
import { useSecuritySettings, useTwoFactorSetup, useUpdateSecuritySettings } from '../api/security-settings-api';
import { TwoFactorDialog } from './two-factor-dialog';

/**
 * The Security Center's settings card (spec 2): two-factor authentication (switched through its
 * dialog, with a code), and five settings saved together with 'Update Settings'. Each is enforced
 * (docs/security.md).
 */
export function SecuritySettingsCard() {
  const settings = useSecuritySettings();
  if (settings.isPending) return <ListSkeleton rows={6} height="12" label="Loading security settings" />;
  if (settings.isError) return <QueryErrorCard message="Failed to load your security settings." onRetry={() => void settings.refetch()} retrying={settings.isFetching} />;
  // Keyed by the saved values: a save starts the form from them again.
  return <SecuritySettingsForm key={JSON.stringify(settings.data)} saved={settings.data} />;
}

type NumberField = 'sessionTimeout' | 'passwordExpiryDays' | 'maxLoginAttempts';
type SwitchField = 'requirePasswordChange' | 'allowConcurrentSessions';
type Draft = Record<NumberField, string> & Record<SwitchField, boolean>;

const numberFields: { key: NumberField; label: string; help: string }[] = [
  { key: 'sessionTimeout', label: 'Session timeout (hours)', help: `${SESSION_TIMEOUT_HOURS.min} to ${SESSION_TIMEOUT_HOURS.max} hours after signing in, you are signed out.` },
  { key: 'passwordExpiryDays', label: 'Password expiry (days)', help: `${PASSWORD_EXPIRY_DAYS.min} to ${PASSWORD_EXPIRY_DAYS.max} days; then a new password is needed to go on.` },
  { key: 'maxLoginAttempts', label: 'Max login attempts', help: `${MAX_LOGIN_ATTEMPTS.min} to ${MAX_LOGIN_ATTEMPTS.max} failed sign-ins in a row lock the account for 15 minutes.` },
];

const switchFields: { key: SwitchField; label: string; description: string }[] = [
  { key: 'requirePasswordChange', label: 'Require password change', description: 'Accounts you create must change their password at first sign-in, where the platform supports it.' },
  { key: 'allowConcurrentSessions', label: 'Allow concurrent sessions', description: 'When off, signing in signs out your other sessions.' },
];

function SecuritySettingsForm({ saved }: { saved: SecuritySettings }) {
  const [draft, setDraft] = useState<Draft>({
    sessionTimeout: String(saved.sessionTimeout),
    passwordExpiryDays: String(saved.passwordExpiryDays),
    maxLoginAttempts: String(saved.maxLoginAttempts),
    requirePasswordChange: saved.requirePasswordChange,
    allowConcurrentSessions: saved.allowConcurrentSessions,
  });
  const [errors, setErrors] = useState<Partial<Record<keyof SecuritySettings, string>>>({});
  const [twoFactorAction, setTwoFactorAction] = useState<'enable' | 'disable'>();
  const update = useUpdateSecuritySettings();
  const setup = useTwoFactorSetup();
  // The switch may report one turn twice (its label and its input): one dialog, one setup.
  const dialogOpen = useRef(false);
  const openTwoFactor = (action: 'enable' | 'disable') => {
    if (dialogOpen.current) return;
    dialogOpen.current = true;
    setTwoFactorAction(action);
    setup.reset();
    // A new secret for each opening: the code entered is checked against this setup's secret.
    if (action === 'enable') setup.mutate();
  };
  const closeTwoFactor = () => {
    dialogOpen.current = false;
    setTwoFactorAction(undefined);
  };

  const save = () => {
    // One schema with the server: non-numeric becomes 0 (spec 5), which the range then refuses.
    const parsed = securitySettingsSchema.safeParse({ ...draft, twoFactorEnabled: saved.twoFactorEnabled });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message])));
      return;
    }
    setErrors({});
    update.mutate(parsed.data, {
      onError: (error) => setErrors(Object.fromEntries(serverFieldErrors(error).map((field) => [field.path, field.message]))),
    });
  };

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Security Settings</Card.Title>
        <Card.Description>How your account is protected when you sign in and while you work.</Card.Description>
      </Card.Header>
      <Card.Body>
        <Stack gap="5">
          <SettingSwitch
            idPrefix="security"
            name="twoFactorEnabled"
            label="Two-factor authentication"
            description={saved.twoFactorEnabled ? 'On: signing in asks for a code from your authenticator app.' : 'Ask for a code from an authenticator app at every sign-in.'}
            checked={saved.twoFactorEnabled}
            onChange={(checked) => openTwoFactor(checked ? 'enable' : 'disable')}
          />
          {switchFields.map(({ key, label, description }) => (
            <Stack key={key} gap="5">
              <Separator />
              <SettingSwitch idPrefix="security" name={key} label={label} description={description} checked={draft[key]} onChange={(checked) => setDraft((current) => ({ ...current, [key]: checked }))} />
            </Stack>
          ))}
          <Separator />
          <SimpleGrid columns={{ base: 1, md: 3 }} gap="4">
            {numberFields.map(({ key, label, help }) => (
              <FormField key={key} label={label} error={errors[key]} helperText={help}>
                <Input name={key} inputMode="numeric" value={draft[key]} onChange={(event) => setDraft((current) => ({ ...current, [key]: event.target.value }))} />
              </FormField>
            ))}
          </SimpleGrid>
          <HStack justify="flex-end">
            <Button colorPalette="blue" onClick={save} loading={update.isPending} loadingText="Updating...">
              Update Settings
            </Button>
          </HStack>
        </Stack>
      </Card.Body>
      {twoFactorAction ? <TwoFactorDialog action={twoFactorAction} setup={setup} onClose={closeTwoFactor} /> : null}
    </Card.Root>
  );
}
