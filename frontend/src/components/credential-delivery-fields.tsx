import { HStack, Input, NativeSelect, RadioGroup, Stack, Text } from '@chakra-ui/react';
import type { EmailTemplate } from '@shared/schemas/email-templates';
import { BUILTIN_TEMPLATE_ID, LINK_EXPIRY_DAYS_MAX } from '@shared/schemas/mail-send';
import type { CredentialChoice } from '../lib/mail-sends-api';
import { FormField } from './form-field';

/** The template a send uses by default: the user's default template, else the built-in one. */
export const defaultTemplateId = (templates: readonly EmailTemplate[] | undefined): string =>
  templates?.find((t) => t.isDefault && t.isActive)?.id ?? BUILTIN_TEMPLATE_ID;

/** Whether a link expiry is one the server takes (1 to 30 whole days). */
export const validLinkDays = (days: number) => Number.isInteger(days) && days >= 1 && days <= LINK_EXPIRY_DAYS_MAX;

/**
 * How credential e-mails are written and what they carry: the template (the user's active ones,
 * the default preselected, and the built-in one), and the password itself or a one-time link
 * that expires after a number of days. Used by the bulk dialog and the project's Send credentials.
 */
export function CredentialDeliveryFields({
  value,
  onChange,
  templates,
  loading,
  idPrefix,
}: {
  value: CredentialChoice;
  onChange: (next: CredentialChoice) => void;
  templates: readonly EmailTemplate[] | undefined;
  loading: boolean;
  idPrefix: string;
}) {
  const active = (templates ?? []).filter((t) => t.isActive);
  const templateId = value.templateId ?? defaultTemplateId(templates);
  const days = value.linkExpiresInDays;
  return (
    <Stack gap="4">
      <FormField label="Template" helperText={loading ? 'Loading your templates...' : 'Change templates in Email Templates.'}>
        <NativeSelect.Root disabled={loading}>
          <NativeSelect.Field value={templateId} onChange={(event) => onChange({ ...value, templateId: event.target.value })}>
            {active.map((template) => (
              <option key={template.id} value={template.id}>
                {template.name}
                {template.isDefault ? ' (default)' : ''}
              </option>
            ))}
            <option value={BUILTIN_TEMPLATE_ID}>Built-in default</option>
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
      </FormField>
      <Stack gap="2">
        <Text fontSize="sm" fontWeight="medium" id={`${idPrefix}-delivery-label`}>
          The e-mail carries
        </Text>
        <RadioGroup.Root
          size="sm"
          value={value.delivery}
          onValueChange={(details) => onChange({ ...value, delivery: details.value === 'link' ? 'link' : 'password' })}
          aria-labelledby={`${idPrefix}-delivery-label`}
        >
          <Stack gap="2">
            <RadioGroup.Item value="password">
              <RadioGroup.ItemHiddenInput />
              <RadioGroup.ItemIndicator />
              <RadioGroup.ItemText>The password</RadioGroup.ItemText>
            </RadioGroup.Item>
            <RadioGroup.Item value="link">
              <RadioGroup.ItemHiddenInput />
              <RadioGroup.ItemIndicator />
              <RadioGroup.ItemText>A one-time link to the password (safer)</RadioGroup.ItemText>
            </RadioGroup.Item>
          </Stack>
        </RadioGroup.Root>
      </Stack>
      {value.delivery === 'link' ? (
        <FormField
          label="Link expires after (days)"
          error={validLinkDays(days) ? undefined : `Enter a whole number of days from 1 to ${LINK_EXPIRY_DAYS_MAX}.`}
          helperText="The link shows the password once, to whoever opens it first."
        >
          <HStack>
            <Input
              type="number"
              inputMode="numeric"
              min={1}
              max={LINK_EXPIRY_DAYS_MAX}
              maxW="24"
              value={Number.isNaN(days) ? '' : String(days)}
              onChange={(event) => onChange({ ...value, linkExpiresInDays: event.target.value === '' ? Number.NaN : Number(event.target.value) })}
            />
          </HStack>
        </FormField>
      ) : null}
    </Stack>
  );
}
