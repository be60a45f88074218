import { Alert, Button, Checkbox, Separator, Stack, Text } from '@chakra-ui/react';
import type { FormEventHandler } from 'react';
import { Controller, type UseFormReturn } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import { UNLIMITED, planLimits } from '@shared/plans';
import type { Project, SubscriptionStatus } from '@shared/schemas/project';
import { effectivePlanOf } from '../../../lib/plan-status';
import type { CsvFile } from '../lib/read-csv-file';
import type { UploadFormInput, UploadFormValues } from '../lib/upload-form';
import { CsvDropZone } from './csv-drop-zone';
import { CsvFileSummary } from './csv-file-summary';
import { PasswordSettingsFields } from './password-settings-fields';
import { ProvisioningTargetFields } from './provisioning-target-fields';
import { CredentialEmailFields } from './credential-email-fields';
import { plural } from '@shared/text/plural';
import { TypedPeopleFields } from './typed-people-fields';
import { ProjectDetailsFields } from './project-details-fields';

export const UPLOAD_FORM_ID = 'bulk-upload-form';

/** The dialog's first stage: project details, the file and what it holds, password settings, a platform to create the accounts on. */
export function BulkUploadStage({
  form,
  file,
  reading,
  onFile,
  subscription,
  onSubmit,
  target,
}: {
  form: UseFormReturn<UploadFormInput, unknown, UploadFormValues>;
  file?: CsvFile;
  reading: boolean;
  onFile: (file: File) => void;
  subscription?: SubscriptionStatus;
  onSubmit: FormEventHandler<HTMLFormElement>;
  /** People added to this project: its own details are kept, the people may also be typed in. */
  target?: Project;
}) {
  const {
    register,
    formState: { errors },
  } = form;
  // A file read only in part: the server counts its rows (and says when the plan refuses them).
  const planWarning = subscription && file && !file.partial ? planWarningFor(subscription, file.result.valid.length, target) : undefined;

  return (
    <form id={UPLOAD_FORM_ID} onSubmit={onSubmit} noValidate>
      <Stack gap="5">
        {target ? (
          <Text fontSize="sm" color="fg.muted">
            {target.accountType} accounts, after the project&apos;s {plural(target.accountCount, 'account')}.
            {target.integrationId ? ' They are provisioned to the project’s integration once created (Pro).' : ''}
          </Text>
        ) : (
        <ProjectDetailsFields
          register={{ name: register('projectName'), platformUrl: register('platformUrl'), accountType: register('accountType'), expirationDate: register('expirationDate'), description: register('description') }}
          errors={{ name: errors.projectName?.message, platformUrl: errors.platformUrl?.message, accountType: errors.accountType?.message, expirationDate: errors.expirationDate?.message, description: errors.description?.message }}
        />
        )}

        <Separator />
        <Stack gap="3">
          {target ? <TypedPeopleFields onFile={onFile} busy={reading} /> : null}
          <CsvDropZone
            onFile={onFile}
            busy={reading}
            compact={!!file}
            label={file ? 'Choose another CSV file' : 'Drag and drop your CSV file here, or click to browse'}
          />
          {file ? <CsvFileSummary file={file} /> : null}
          {file?.route === 'upload' ? (
            <Stack gap="1">
              <Controller
                control={form.control}
                name="checkFirst"
                render={({ field }) => (
                  <Checkbox.Root colorPalette="blue" name={field.name} checked={!!field.value} onCheckedChange={(details) => field.onChange(details.checked === true)}>
                    <Checkbox.HiddenInput onBlur={field.onBlur} />
                    <Checkbox.Control />
                    <Checkbox.Label>Check every row first (nothing is created until you confirm)</Checkbox.Label>
                  </Checkbox.Root>
                )}
              />
              <Text fontSize="xs" color="fg.muted">
                A large file is uploaded and read on the server: you see the upload, then the rows read, then the rows written.
              </Text>
            </Stack>
          ) : null}
          {planWarning ? (
            <Alert.Root status="warning">
              <Alert.Indicator />
              <Alert.Content>
                <Alert.Title>More accounts than your plan allows</Alert.Title>
                <Alert.Description>
                  {planWarning}{' '}
                  <Button asChild variant="plain" size="sm" p="0" h="auto" colorPalette="blue" color="colorPalette.fg">
                    <RouterLink to="/settings?tab=subscription">See plans</RouterLink>
                  </Button>
                </Alert.Description>
              </Alert.Content>
            </Alert.Root>
          ) : null}
        </Stack>

        <Separator />
        <PasswordSettingsFields form={form} />

        {target ? null : (
          <>
            <Separator />
            <ProvisioningTargetFields form={form} subscription={subscription} people={file?.result.valid} />
          </>
        )}

        <Separator />
        <CredentialEmailFields form={form} subscription={subscription} />
      </Stack>
    </form>
  );
}

/**
 * Why the plan refuses this many rows, said before the server would (it decides, with the same
 * limits from shared/plans); the dialog keeps Generate off while there is a reason.
 */
export function planWarningFor(subscription: SubscriptionStatus, rows: number, target?: Pick<Project, 'accountCount'>): string | undefined {
  const perProject = planLimits[effectivePlanOf(subscription)].accountsPerProject;
  const remaining = subscription.usage.remainingAccounts;
  if (perProject !== UNLIMITED && target && target.accountCount + rows > perProject) {
    return `This file has ${plural(rows, 'valid row')}; your plan allows ${plural(perProject, 'account')} per project and this project has ${plural(target.accountCount, 'account')}.`;
  }
  if (perProject !== UNLIMITED && rows > perProject) {
    return `This file has ${plural(rows, 'valid row')}; your plan allows ${plural(perProject, 'account')} per project.`;
  }
  if (remaining !== UNLIMITED && rows > remaining) {
    return `This file has ${plural(rows, 'valid row')}; your plan has ${plural(remaining, 'account')} left.`;
  }
  return undefined;
}
