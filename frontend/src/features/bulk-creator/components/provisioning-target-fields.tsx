import { Button, Checkbox, Fieldset, HStack, Link, NativeSelect, Skeleton, Text } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Controller, useWatch, type UseFormReturn } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import { proFeatures } from '@shared/plans';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { FormField } from '../../../components/form-field';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { useIntegrationsQuery } from '../../../lib/integrations-query';
import { effectivePlanOf } from '../../../lib/plan-status';
import { defaultTarget, provisioningTargets } from '../../../lib/provisioning-progress';
import type { UploadFormInput, UploadFormValues } from '../lib/upload-form';
import { PlatformCheck } from './platform-check';
import { ProjectGroupsFormFields } from '../../../components/project-groups-fields';
import { RefusedTargets } from '../../../components/refused-targets';

const LEGEND = 'Create accounts on a platform';

/**
 * The upload stage's provisioning choice. Pro: a box and the user's integrations, the ones that
 * cannot be a target shown disabled with the reason; free (or a Pro plan whose payment failed):
 * the API Integrations gate. Nothing while the plan or the list loads into nothing to choose.
 */
export function ProvisioningTargetFields({
  form,
  subscription,
  people,
}: {
  form: UseFormReturn<UploadFormInput, unknown, UploadFormValues>;
  subscription?: SubscriptionStatus;
  /** The file's valid rows: 'Check against platform' looks them up. */
  people?: readonly { row: number; firstName: string; lastName: string; email: string }[];
}) {
  const plan = subscription ? effectivePlanOf(subscription) : undefined;
  const integrations = useIntegrationsQuery(plan === 'pro');
  const [gateOpen, setGateOpen] = useState(false);
  const { control, setValue, getValues, formState: { errors } } = form;
  const choices = provisioningTargets(integrations.data ?? []);
  const chosen = useWatch({ control, name: 'createExternalAccounts' }) ?? false;
  const target = useWatch({ control, name: 'apiIntegrationId' });

  // The first usable integration is the default target, once the list is known.
  const firstTarget = defaultTarget(choices);
  useEffect(() => {
    if (firstTarget && !getValues('apiIntegrationId')) setValue('apiIntegrationId', firstTarget);
  }, [firstTarget, getValues, setValue]);

  if (!plan) return null;
  if (plan !== 'pro') {
    return (
      <Fieldset.Root>
        <Fieldset.Legend fontWeight="semibold">{LEGEND}</Fieldset.Legend>
        <Fieldset.Content>
          <HStack gap="3" wrap="wrap" justify="space-between">
            <Text fontSize="sm" color="fg.muted" flex="1" minW="48">
              Create the accounts on a platform too, such as your SCIM 2.0 directory. API integrations are part of the Pro plan.
            </Text>
            <Button size="sm" variant="outline" onClick={() => setGateOpen(true)}>
              <CrownIcon aria-hidden="true" />
              Create on a platform
            </Button>
          </HStack>
        </Fieldset.Content>
        <UpgradePromptDialog feature={proFeatures.apiIntegrations} open={gateOpen} onOpenChange={setGateOpen} />
      </Fieldset.Root>
    );
  }
  if (integrations.isPending) return <Skeleton height="16" borderRadius="md" aria-label="Loading your integrations" />;
  // No integration (or the list failed to load): a way to add one, not an empty select.
  if (!integrations.data?.length) {
    return (
      <Text fontSize="sm" color="fg.muted">
        {integrations.isError ? 'Your integrations could not be loaded. ' : 'To create the accounts on a platform too, '}
        <Link asChild color="blue.fg" fontWeight="medium">
          <RouterLink to="/integrations">{integrations.isError ? 'Open API Integrations' : 'add an integration'}</RouterLink>
        </Link>
        .
      </Text>
    );
  }

  const targetIntegration = choices.find((choice) => choice.integration.id === target && !choice.reason)?.integration;
  const usable = choices.filter((choice) => !choice.reason).length;
  return (
    <Fieldset.Root>
      <Fieldset.Legend fontWeight="semibold">{LEGEND}</Fieldset.Legend>
      <Fieldset.Content gap="3">
        <Controller
          control={control}
          name="createExternalAccounts"
          render={({ field }) => (
            <Checkbox.Root
              colorPalette="blue"
              name={field.name}
              checked={!!field.value}
              disabled={usable === 0}
              onCheckedChange={(details) => field.onChange(details.checked === true)}
            >
              <Checkbox.HiddenInput onBlur={field.onBlur} />
              <Checkbox.Control />
              <Checkbox.Label fontWeight="normal">Also create these accounts on the platform of an integration</Checkbox.Label>
            </Checkbox.Root>
          )}
        />
        <FormField
          label="Integration"
          error={errors.apiIntegrationId?.message}
          helperText={usable === 0 ? 'None of your integrations can be a provisioning target yet.' : 'Each account shows Synced, Sync Failed or Pending once the run starts.'}
        >
          <NativeSelect.Root>
            <NativeSelect.Field disabled={!chosen || usable === 0} {...form.register('apiIntegrationId')}>
              {usable === 0 ? <option value="">No integration available</option> : null}
              {choices.map(({ integration, reason }) => (
                <option key={integration.id} value={integration.id} disabled={!!reason}>
                  {integration.name}
                  {reason ? ' (not available)' : ''}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </FormField>
        {chosen && target && people?.length && choices.some((c) => c.integration.id === target && !c.reason) ? <PlatformCheck integrationId={target} people={people} /> : null}
        {chosen ? <ProjectGroupsFormFields control={control} error={errors.groups} pro idPrefix="bulk-create" {...(targetIntegration ? { integration: targetIntegration } : {})} /> : null}
        <RefusedTargets choices={choices} />
      </Fieldset.Content>
    </Fieldset.Root>
  );
}
