import { Fieldset, Input, SimpleGrid, Stack, Switch, Text } from '@chakra-ui/react';
import { Controller, type UseFormReturn } from 'react-hook-form';
import { PASSWORD_DEFAULT_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@shared/schemas/bulk';
import { FormField } from '../../../components/form-field';
import type { UploadFormInput, UploadFormValues } from '../lib/upload-form';

/** Spec 5: a non-numeric length falls back to the default. */
const lengthFromInput = (value: unknown) => {
  const length = Number.parseInt(String(value), 10);
  return Number.isNaN(length) ? PASSWORD_DEFAULT_LENGTH : length;
};

const toggles = [
  { name: 'passwordSettings.includeNumbers', label: 'Include numbers (0-9)' },
  { name: 'passwordSettings.includeSpecialChars', label: 'Include special characters ($ # @ ! * & ? %)' },
  { name: 'passwordSettings.avoidAmbiguous', label: 'Avoid ambiguous characters (0 O o 1 l I |)' },
] as const;

export function PasswordSettingsFields({ form }: { form: UseFormReturn<UploadFormInput, unknown, UploadFormValues> }) {
  const {
    register,
    control,
    formState: { errors },
  } = form;
  return (
    <Fieldset.Root>
      <Fieldset.Legend fontWeight="semibold">Password settings</Fieldset.Legend>
      <Fieldset.Content>
        <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4" alignItems="start">
          <FormField
            label="Password length"
            error={errors.passwordSettings?.minLength?.message}
            helperText={`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`}
          >
            <Input
              type="number"
              inputMode="numeric"
              min={PASSWORD_MIN_LENGTH}
              max={PASSWORD_MAX_LENGTH}
              // Checked as it is typed: a length out of range says so at once, not only at Generate.
              {...register('passwordSettings.minLength', { setValueAs: lengthFromInput, onChange: () => void form.trigger('passwordSettings.minLength') })}
            />
          </FormField>
          <Stack gap="3" pt={{ sm: '6' }}>
            {toggles.map(({ name, label }) => (
              <Controller
                key={name}
                control={control}
                name={name}
                render={({ field }) => (
                  <Switch.Root
                    size="sm"
                    colorPalette="blue"
                    name={field.name}
                    checked={!!field.value}
                    onCheckedChange={(details) => field.onChange(details.checked)}
                  >
                    <Switch.HiddenInput onBlur={field.onBlur} />
                    <Switch.Control />
                    <Switch.Label fontWeight="normal">{label}</Switch.Label>
                  </Switch.Root>
                )}
              />
            ))}
          </Stack>
        </SimpleGrid>
        <Text fontSize="xs" color="fg.muted">
          Uppercase and lowercase letters are always required. Every password has at least one character of each
          class that is on.
        </Text>
      </Fieldset.Content>
    </Fieldset.Root>
  );
}
