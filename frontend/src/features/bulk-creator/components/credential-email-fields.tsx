import { Button, Checkbox, Fieldset, HStack, Text } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import { useState } from 'react';
import { useWatch, type UseFormReturn } from 'react-hook-form';
import { proFeatures } from '@shared/plans';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { CredentialDeliveryFields, defaultTemplateId } from '../../../components/credential-delivery-fields';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { useTemplateChoicesQuery, type CredentialChoice } from '../../../lib/mail-sends-api';
import { effectivePlanOf } from '../../../lib/plan-status';
import type { UploadFormInput, UploadFormValues } from '../lib/upload-form';

const LEGEND = 'E-mail the account holders';

/**
 * The upload stage's 'E-mail the account holders' (Pro): once the accounts exist, each holder is
 * e-mailed their credentials with the chosen template (the default preselected), the password or
 * a one-time link. Free (or lapsed): the gate.
 */
export function CredentialEmailFields({ form, subscription }: { form: UseFormReturn<UploadFormInput, unknown, UploadFormValues>; subscription?: SubscriptionStatus }) {
  const { control, setValue } = form;
  const chosen = useWatch({ control, name: 'sendCredentials' }) ?? false;
  const templateId = useWatch({ control, name: 'credentialTemplateId' }) ?? '';
  const delivery = useWatch({ control, name: 'credentialDelivery' }) ?? 'password';
  const days = useWatch({ control, name: 'linkExpiresInDays' }) ?? 7;
  return (
    <CredentialEmailChoice
      subscription={subscription}
      label="E-mail each account holder their credentials once the accounts are created"
      idPrefix="bulk"
      checked={chosen}
      onCheckedChange={(checked) => setValue('sendCredentials', checked)}
      value={{ ...(templateId ? { templateId } : {}), delivery, linkExpiresInDays: days }}
      onChange={(next) => {
        setValue('credentialTemplateId', next.templateId ?? '');
        setValue('credentialDelivery', next.delivery);
        setValue('linkExpiresInDays', next.linkExpiresInDays);
      }}
    />
  );
}

/**
 * 'E-mail the account holders' as a control of its own: a box, and once ticked the template and
 * what the e-mail carries; Free (or lapsed): what it would do and the upgrade. The bulk dialog's
 * and Add people's (above) and a sync's new people (the project's 'Update from a file').
 */
export function CredentialEmailChoice({
  subscription,
  label,
  idPrefix,
  checked,
  onCheckedChange,
  value,
  onChange,
  disabled = false,
}: {
  subscription: SubscriptionStatus | undefined;
  label: string;
  idPrefix: string;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  value: CredentialChoice;
  onChange: (next: CredentialChoice) => void;
  disabled?: boolean;
}) {
  const plan = subscription ? effectivePlanOf(subscription) : undefined;
  const templates = useTemplateChoicesQuery(plan === 'pro');
  const [gateOpen, setGateOpen] = useState(false);

  if (!plan) return null;
  if (plan !== 'pro') {
    return (
      <Fieldset.Root>
        <Fieldset.Legend fontWeight="semibold">{LEGEND}</Fieldset.Legend>
        <Fieldset.Content>
          <HStack gap="3" wrap="wrap" justify="space-between">
            <Text fontSize="sm" color="fg.muted" flex="1" minW="48">
              E-mail each person their new credentials with your template. Credential e-mails are part of the Pro plan.
            </Text>
            <Button size="sm" variant="outline" onClick={() => setGateOpen(true)}>
              <CrownIcon aria-hidden="true" />
              E-mail the holders
            </Button>
          </HStack>
        </Fieldset.Content>
        <UpgradePromptDialog feature={proFeatures.credentialEmails} open={gateOpen} onOpenChange={setGateOpen} />
      </Fieldset.Root>
    );
  }
  return (
    <Fieldset.Root disabled={disabled}>
      <Fieldset.Legend fontWeight="semibold">{LEGEND}</Fieldset.Legend>
      <Fieldset.Content gap="4">
        <Checkbox.Root checked={checked} disabled={disabled} onCheckedChange={(details) => onCheckedChange(details.checked === true)}>
          <Checkbox.HiddenInput />
          <Checkbox.Control />
          <Checkbox.Label>{label}</Checkbox.Label>
        </Checkbox.Root>
        {checked ? (
          <CredentialDeliveryFields
            idPrefix={idPrefix}
            templates={templates.data}
            loading={templates.isPending}
            value={{ ...value, templateId: value.templateId || defaultTemplateId(templates.data) }}
            onChange={onChange}
          />
        ) : null}
      </Fieldset.Content>
    </Fieldset.Root>
  );
}
