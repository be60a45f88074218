import { Button, Checkbox, CloseButton, Dialog, Input, NativeSelect, Portal, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { CheckCircle2Icon, FileUpIcon, PencilIcon, RotateCcwIcon, UserPlusIcon } from 'lucide-react';
import { useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { useQueryClient } from '@tanstack/react-query';
import { PROJECT_EXPIRED_MESSAGE, REMINDER_DAYS_MAX, projectEditSchema, type Project, type ProjectEditRequest } from '@shared/schemas/project';
import type * as z from 'zod';
import { useEditProject, useSetProjectStatus } from '../../../lib/projects-api';
import { queryKeys } from '../../../lib/query-keys';
import { useEffectivePlan, useSubscriptionStatus } from '../../../lib/subscription-api';
import { BulkCreateDialog } from '../../bulk-creator/components/bulk-create-dialog';
import { ProjectDetailsFields } from '../../bulk-creator/components/project-details-fields';
import { FormField } from '../../../components/form-field';
import { plural } from '@shared/text/plural';
import { ProjectGroupsFormFields } from '../../../components/project-groups-fields';
import { useIntegrationsQuery } from '../../../lib/integrations-query';
import { ProjectSyncDialog } from './project-sync-dialog';
import { AccountActionDialog } from '../../../components/account-action-dialog';
import { ignoreFocusOutside } from '../../../lib/modal-focus';
import { useEmailTemplatesQuery } from '../../email-templates/api/email-templates-api';
import { DialogActions } from '../../../components/dialog-actions';

const EDIT_FORM_ID = 'edit-project-form';

/**
 * The project page's own actions: Add people (the bulk creator's dialog aimed at this project:
 * a CSV file, people typed in or a large upload), Update from a file (docs/sync.md), Edit, and
 * Complete / Reopen. A completed
 * project takes no new people: Add people waits for Reopen; nor does an expired one: Add people
 * waits for a new expiration date (Edit).
 */
export function ProjectActions({ project }: { project: Project }) {
  const [editing, setEditing] = useState(false);
  const [adding, setAdding] = useState(false);
  const [syncing, setSyncing] = useState(false);
  const setStatus = useSetProjectStatus();
  const subscription = useSubscriptionStatus().data;
  const queryClient = useQueryClient();
  const completed = project.status === 'completed';
  // A project being deleted takes no new people and no change (the API answers 409).
  const deleting = project.deletionActive === true;
  const whyNot = deleting ? 'This project is being deleted' : undefined;
  // An expired project takes no new people until its date changes (the API answers 409 with the same words).
  const expired = project.expiredAt !== undefined;
  const whyNotAdd = whyNot ?? (expired ? PROJECT_EXPIRED_MESSAGE : completed ? 'Reopen the project to add people' : undefined);

  return (
    <>
      <Button colorPalette="blue" onClick={() => setAdding(true)} disabled={completed || deleting || expired} title={whyNotAdd}>
        <UserPlusIcon aria-hidden="true" />
        Add people
      </Button>
      <Button variant="outline" onClick={() => setSyncing(true)} disabled={deleting} title={whyNot}>
        <FileUpIcon aria-hidden="true" />
        Update from a file
      </Button>
      <Button variant="outline" onClick={() => setEditing(true)} disabled={deleting} title={whyNot}>
        <PencilIcon aria-hidden="true" />
        Edit
      </Button>
      <Button
        variant="outline"
        loading={setStatus.isPending}
        loadingText={completed ? 'Reopening...' : 'Completing...'}
        disabled={deleting}
        title={whyNot}
        onClick={() => setStatus.mutate({ id: project.id, status: completed ? 'active' : 'completed' })}
      >
        {completed ? <RotateCcwIcon aria-hidden="true" /> : <CheckCircle2Icon aria-hidden="true" />}
        {completed ? 'Reopen' : 'Complete'}
      </Button>
      {editing ? <EditProjectDialog project={project} onClose={() => setEditing(false)} /> : null}
      {syncing ? <ProjectSyncDialog project={project} onClose={() => setSyncing(false)} /> : null}
      {adding ? (
        <BulkCreateDialog
          target={project}
          {...(subscription ? { subscription } : {})}
          onCreated={() => {
            // The page's accounts list: the new people after the last.
            void queryClient.invalidateQueries({ queryKey: ['/api/projects', project.id] });
          }}
          onClose={() => {
            setAdding(false);
            void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
          }}
        />
      ) : null}
    </>
  );
}

type EditValues = z.output<typeof projectEditSchema>;

/** Edit: the fields of the bulk creator with its rules and messages (projectEditSchema), and the platform groups (Pro). */
function EditProjectDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const edit = useEditProject();
  const plan = useEffectivePlan();
  // The project's platform says what it does with groups (or why it cannot) before the user names any.
  const integrations = useIntegrationsQuery(plan === 'pro' && project.integrationId !== undefined);
  const integration = integrations.data?.find((candidate) => candidate.id === project.integrationId);
  const {
    register,
    control,
    handleSubmit,
    formState: { errors },
  } = useForm<ProjectEditRequest, unknown, EditValues>({
    resolver: zodResolver(projectEditSchema),
    defaultValues: {
      name: project.name,
      description: project.description ?? '',
      platformUrl: project.platformUrl ?? '',
      accountType: project.accountType,
      expirationDate: project.expirationDate ?? '',
      groups: project.groups ?? [],
      createGroups: project.createGroups ?? false,
      reminderDays: project.reminderDays ?? null,
      reminderTemplateId: project.reminderTemplateId ?? null,
    },
  });
  // The user's templates a reminder can be written with (the built-in reminder text first).
  const templates = useEmailTemplatesQuery();
  // Groups changed on a project whose accounts are on its platform: those accounts join and leave them too (the 'groups' account action), unless unticked.
  const groups = useWatch({ control, name: 'groups' });
  const synced = project.integrationId !== undefined ? project.syncedCount : 0;
  const groupsChanged = JSON.stringify(groups ?? []) !== JSON.stringify(project.groups ?? []);
  const [applyGroups, setApplyGroups] = useState(true);
  const [applying, setApplying] = useState(false);
  const offerApply = groupsChanged && synced > 0 && plan === 'pro';
  const submit = handleSubmit((values) => edit.mutate({ id: project.id, edit: values }, { onSuccess: () => (offerApply && applyGroups ? setApplying(true) : onClose()) }));

  if (applying) return <AccountActionDialog projectId={project.id} action="groups" target={{ filter: 'synced', count: synced }} autoStart onClose={onClose} />;

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
      open
      onOpenChange={(details) => {
        if (!details.open && !edit.isPending) onClose();
      }}
      placement="center"
      size="lg"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={edit.isPending}>
            <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
              <Dialog.Title>Edit project</Dialog.Title>
              <Dialog.Description>
                The {plural(project.accountCount, 'account')} already made keep their usernames and type; people added later get the new type.
              </Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              <form id={EDIT_FORM_ID} onSubmit={(event) => void submit(event)} noValidate>
                <Stack gap="4">
                  <ProjectDetailsFields
                    register={{ name: register('name'), platformUrl: register('platformUrl'), accountType: register('accountType'), expirationDate: register('expirationDate'), description: register('description') }}
                    errors={{ name: errors.name?.message, platformUrl: errors.platformUrl?.message, accountType: errors.accountType?.message, expirationDate: errors.expirationDate?.message, description: errors.description?.message }}
                  />
                  <Controller
                    control={control}
                    name="reminderDays"
                    render={({ field }) => (
                      <FormField label="Remind account holders N days before the expiration date (empty: off)" error={errors.reminderDays?.message}>
                        <Input
                          type="number"
                          inputMode="numeric"
                          min={1}
                          max={REMINDER_DAYS_MAX}
                          maxW="40"
                          placeholder="Off"
                          value={field.value ?? ''}
                          onBlur={field.onBlur}
                          onChange={(event) => field.onChange(event.target.value === '' ? null : Number(event.target.value))}
                        />
                      </FormField>
                    )}
                  />
                  <Controller
                    control={control}
                    name="reminderTemplateId"
                    render={({ field }) => (
                      <FormField label="Reminder e-mail" error={errors.reminderTemplateId?.message} helperText="One of your e-mail templates may say the date with {{expirationDate}}.">
                        <NativeSelect.Root maxW="sm">
                          <NativeSelect.Field value={field.value ?? ''} onBlur={field.onBlur} onChange={(event) => field.onChange(event.target.value === '' ? null : event.target.value)}>
                            <option value="">Built-in reminder text</option>
                            {/* The project's template while the list loads: the choice shown is the one saved, never the built-in text for a moment. */}
                            {templates.data === undefined && field.value ? <option value={field.value}>Loading your templates...</option> : null}
                            {(templates.data ?? [])
                              .filter((template) => template.isActive || template.id === field.value)
                              .map((template) => (
                                <option key={template.id} value={template.id}>
                                  {template.name}
                                </option>
                              ))}
                          </NativeSelect.Field>
                          <NativeSelect.Indicator />
                        </NativeSelect.Root>
                      </FormField>
                    )}
                  />
                  <ProjectGroupsFormFields control={control} error={errors.groups} pro={plan === undefined ? undefined : plan === 'pro'} idPrefix="project-edit" {...(integration ? { integration } : {})} />
                  {offerApply ? (
                    <Checkbox.Root checked={applyGroups} onCheckedChange={(details) => setApplyGroups(details.checked === true)} disabled={edit.isPending}>
                      <Checkbox.HiddenInput />
                      <Checkbox.Control />
                      <Checkbox.Label>
                        Apply to the {plural(synced, 'account')} already on {integration?.name ?? 'the platform'}
                      </Checkbox.Label>
                    </Checkbox.Root>
                  ) : null}
                </Stack>
              </form>
            </Dialog.Body>
            <DialogActions form={EDIT_FORM_ID} busy={edit.isPending} loadingText="Saving..." submitLabel="Save changes" />
            {edit.isPending ? null : (
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
