import { Button, Card, HStack, Input, NativeSelect, SimpleGrid, Stack } from '@chakra-ui/react';
import { useState } from 'react';
import { dateFormats, PASSWORD_LENGTH, preferencesSchema, PROJECT_EXPIRY_DAYS, timezones, type Preferences } from '@shared/schemas/user-settings';
import { FormField } from '../../../components/form-field';
import { ListSkeleton } from '../../../components/list-skeleton';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useUpdateUserSettings, useUserSettings } from '../../../lib/user-settings-api';

/** Settings > Preferences: defaults of new projects (bulk dialog) and how every date is shown. */
export function PreferencesTab() {
  const settings = useUserSettings();
  if (settings.isPending) return <ListSkeleton rows={4} height="12" label="Loading preferences" />;
  if (settings.isError) return <QueryErrorCard message="Failed to load your settings." onRetry={() => void settings.refetch()} retrying={settings.isFetching} />;
  return <PreferencesForm key={JSON.stringify(settings.data.preferences)} saved={settings.data.preferences} />;
}

type Draft = { defaultProjectExpiry: string; defaultPasswordLength: string; timezone: Preferences['timezone']; dateFormat: Preferences['dateFormat'] };

function PreferencesForm({ saved }: { saved: Preferences }) {
  const [draft, setDraft] = useState<Draft>({ ...saved, defaultProjectExpiry: String(saved.defaultProjectExpiry), defaultPasswordLength: String(saved.defaultPasswordLength) });
  const [errors, setErrors] = useState<Partial<Record<keyof Draft, string>>>({});
  const update = useUpdateUserSettings();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));

  const save = () => {
    // One schema with the server: non-numeric falls back to the default, out of range is refused.
    const parsed = preferencesSchema.safeParse(draft);
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message])));
      return;
    }
    setErrors({});
    update.mutate({ preferences: parsed.data });
  };

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Preferences</Card.Title>
        <Card.Description>Defaults for new projects in the Bulk Creator, and how dates are shown everywhere in the app.</Card.Description>
      </Card.Header>
      <Card.Body>
        <Stack gap="5">
          <SimpleGrid columns={{ base: 1, md: 2 }} gap="4">
            <FormField
              label="Default project expiry (days)"
              error={errors.defaultProjectExpiry}
              helperText={`${PROJECT_EXPIRY_DAYS.min} to ${PROJECT_EXPIRY_DAYS.max} days; the Bulk Creator's expiration date starts this far ahead.`}
            >
              <Input inputMode="numeric" value={draft.defaultProjectExpiry} onChange={(event) => set('defaultProjectExpiry', event.target.value)} />
            </FormField>
            <FormField
              label="Default password length"
              error={errors.defaultPasswordLength}
              helperText={`${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters; the Bulk Creator uses it within its own 10 to 50.`}
            >
              <Input inputMode="numeric" value={draft.defaultPasswordLength} onChange={(event) => set('defaultPasswordLength', event.target.value)} />
            </FormField>
            <FormField label="Timezone" error={errors.timezone}>
              <NativeSelect.Root>
                <NativeSelect.Field aria-label="Timezone" value={draft.timezone} onChange={(event) => set('timezone', event.target.value as Draft['timezone'])}>
                  {timezones.map((zone) => (
                    <option key={zone.value} value={zone.value}>
                      {zone.label === zone.value ? zone.label : `${zone.label} (${zone.value})`}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </FormField>
            <FormField label="Date format" error={errors.dateFormat}>
              <NativeSelect.Root>
                <NativeSelect.Field aria-label="Date format" value={draft.dateFormat} onChange={(event) => set('dateFormat', event.target.value as Draft['dateFormat'])}>
                  {dateFormats.map((format) => (
                    <option key={format} value={format}>
                      {format}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </FormField>
          </SimpleGrid>
          <HStack justify="flex-end">
            <Button colorPalette="blue" onClick={save} loading={update.isPending} loadingText="Saving...">
              Save Preferences
            </Button>
          </HStack>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
