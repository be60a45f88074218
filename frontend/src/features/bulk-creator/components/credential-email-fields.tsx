import { Button, Checkbox, Fieldset, HStack, Text } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import { useState } from 'react';
import { useWatch, type UseFormReturn } from 'react-hook-form';
import { proFeatures } from '@shared/plans';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { CredentialDeliveryFields, defaultTemplateId } from '../../../components/credential-delivery-fields';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { useTemplateChoicesQuery } from '../../../lib/mail-sends-api';
import { effectivePlanOf } from '../../../lib/plan-status';
import type { UploadFormInput, UploadFormValues } from '../lib/upload-form';

const LEGEND = 'E-mail the account holders';

/**
 * The upload stage's 'E-mail the account holders' (Pro): once the accounts exist, each holder is
 * e-mailed their credentials with the chosen template (the default preselected), the password or
 * a one-time link. Free (or lapsed): the gate.
 */
export function CredentialEmailFields({ form, subscription }: { form: UseFormReturn<UploadFormInput, unknown, UploadFormValues>; subscription?: SubscriptionStatus }) {
  const plan = subscription ? effectivePlanOf(subscription) : undefined;
  const templates = useTemplateChoicesQuery(plan === 'pro');
  const [gateOpen, setGateOpen] = useState(false);
  const { control, setValue } = form;
  const chosen = useWatch({ control, name: 'sendCredentials' }) ?? false;
  const templateId = useWatch({ control, name: 'credentialTemplateId' }) ?? '';
  const delivery = useWatch({ control, name: 'credentialDelivery' }) ?? 'password';
  const days = useWatch({ control, name: 'linkExpiresInDays' }) ?? 7;

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
    <Fieldset.Root>
      <Fieldset.Legend fontWeight="semibold">{LEGEND}</Fieldset.Legend>
      <Fieldset.Content gap="4">
        <Checkbox.Root checked={chosen} onCheckedChange={(details) => setValue('sendCredentials', details.checked === true)}>
          <Checkbox.HiddenInput />
          <Checkbox.Control />
          <Checkbox.Label>E-mail each account holder their credentials once the accounts are created</Checkbox.Label>
        </Checkbox.Root>
        {chosen ? (
          <CredentialDeliveryFields
            idPrefix="bulk"
            templates={templates.data}
            loading={templates.isPending}
            value={{ templateId: templateId || defaultTemplateId(templates.data), delivery, linkExpiresInDays: days }}
            onChange={(next) => {
              setValue('credentialTemplateId', next.templateId ?? '');
              setValue('credentialDelivery', next.delivery);
              setValue('linkExpiresInDays', next.linkExpiresInDays);
            }}
          />
        ) : null}
      </Fieldset.Content>
    </Fieldset.Root>
  );
}
