import { Alert, Badge, Box, Button, CloseButton, DataList, Dialog, HStack, Link, List, NativeSelect, Portal, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import type { Project } from '@shared/schemas/project';
import type { PasswordResetJob } from '@shared/schemas/reset-passwords';
import { FormField } from '../../../components/form-field';
import { useProjectsQuery } from '../../../lib/projects-api';
import { resetFinished, usePasswordResetQuery, useStartPasswordReset } from '../../../lib/reset-passwords-api';
import { plural } from '@shared/text/plural';
import { ignoreFocusOutside } from '../../../lib/modal-focus';
import { DialogActions } from '../../../components/dialog-actions';

const FORM_ID = 'reset-passwords-form';
const count = new Intl.NumberFormat();
const accounts = (n: number) => plural(n, 'account');

const statusLabel: Record<PasswordResetJob['status'], string> = { queued: 'Queued', running: 'Resetting', completed: 'Completed', failed: 'Failed' };
const statusPalette: Record<PasswordResetJob['status'], string> = { queued: 'gray', running: 'blue', completed: 'green', failed: 'red' };

/** What a reset of this project will do, in plain words, before it starts. */
function Consequences({ project }: { project: Project }) {
  const synced = project.syncedCount;
  return (
    <Stack gap="2" fontSize="sm">
      <Text>
        {project.accountCount === 1 ? 'The one account' : `Every one of the ${accounts(project.accountCount)}`} in <strong>{project.name}</strong> gets a new
        generated password, made with the project&apos;s password rules and stored encrypted.{' '}
        {project.accountCount === 1 ? 'Its current password stops working.' : 'The current passwords stop working.'}
      </Text>
      {synced > 0 ? (
        <Text>
          {synced === 1 ? 'The account provisioned to a platform gets' : `The ${accounts(synced)} provisioned to a platform get`} the new password there too. An account the platform refuses keeps its current password, here and
          there, and the result says why.
        </Text>
      ) : null}
      <Text>Account holders are not told automatically: send the credentials again from the project afterwards.</Text>
    </Stack>
  );
}

/** The job's progress, then its result counts (done + failed + pending = total) and the accounts the platform refused. */
function ResetProgress({ job, lost }: { job: PasswordResetJob; lost: boolean }) {
  const share = (part: number) => (job.total > 0 ? `${(part / job.total) * 100}%` : '0%');
  const settled = job.done + job.failed;
  const summary = `${count.format(job.done)} reset, ${count.format(job.failed)} failed, ${count.format(job.pending)} pending of ${count.format(job.total)}`;
  return (
    <Stack gap="3" borderWidth="1px" borderRadius="md" p="4" role="group" aria-label={`Password reset of ${job.projectName}`}>
      <HStack justify="space-between" align="flex-start" gap="2" wrap="wrap">
        <Text fontWeight="semibold" wordBreak="break-word">
          {job.projectName}
        </Text>
        <Badge colorPalette={statusPalette[job.status]} variant="subtle">
          {statusLabel[job.status]}
        </Badge>
      </HStack>
      <Box
        role="progressbar"
        aria-label="Password reset progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={job.total > 0 ? Math.round((settled / job.total) * 100) : undefined}
        aria-valuetext={summary}
        display="flex"
        h="2"
        borderRadius="full"
        bg="bg.emphasized"
        overflow="hidden"
      >
        <Box bg="green.solid" w={share(job.done)} />
        <Box bg="red.solid" w={share(job.failed)} />
      </Box>
      <Text fontSize="sm" role="status" aria-live="polite">
        {summary}
      </Text>
      {resetFinished(job.status) ? (
        <DataList.Root orientation="horizontal" size="sm" aria-label="Reset results">
          <DataList.Item>
            <DataList.ItemLabel minW="auto">New passwords</DataList.ItemLabel>
            <DataList.ItemValue fontWeight="semibold">{count.format(job.done)}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel minW="auto">Updated on {job.integrationName ?? 'the platform'}</DataList.ItemLabel>
            <DataList.ItemValue fontWeight="semibold">{count.format(job.updatedOnPlatform)}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel minW="auto">Platform not updated</DataList.ItemLabel>
            <DataList.ItemValue fontWeight="semibold" color={job.failed > 0 ? 'fg.error' : undefined}>
              {count.format(job.failed)}
            </DataList.ItemValue>
          </DataList.Item>
        </DataList.Root>
      ) : null}
      {job.failures?.length ? (
        <Stack gap="1">
          <Text fontSize="sm" fontWeight="medium">
            Kept their previous password:
          </Text>
          <List.Root gap="1" fontSize="sm" ps="4" aria-label="Accounts whose platform was not updated">
            {job.failures.map((failure) => (
              <List.Item key={failure.username} wordBreak="break-word">
                <Text as="span" fontWeight="medium">
                  {failure.username}
                </Text>{' '}
                ({failure.email}): {failure.reason}
              </List.Item>
            ))}
          </List.Root>
          {job.failed > job.failures.length ? (
            <Text fontSize="sm" color="fg.muted">
              And {accounts(job.failed - job.failures.length)} more.
            </Text>
          ) : null}
        </Stack>
      ) : null}
      {job.status === 'failed' ? (
        <Alert.Root status="error" size="sm">
          <Alert.Indicator />
          <Alert.Description>
            The reset stopped{job.reason ? `: ${job.reason}` : '.'} Accounts it did not reach keep their passwords.
          </Alert.Description>
        </Alert.Root>
      ) : null}
      {job.status === 'completed' && job.done > 0 ? (
        <Text fontSize="sm">
          Send the new credentials from{' '}
          <Link asChild color="blue.fg" fontWeight="medium">
            <RouterLink to={`/projects/${encodeURIComponent(job.projectId)}`}>the project</RouterLink>
          </Link>{' '}
          (Send credentials).
        </Text>
      ) : null}
      {lost ? (
        <Text fontSize="sm" color="fg.warning">
          The reset&apos;s progress cannot be read right now (still trying). It goes on without this window.
        </Text>
      ) : null}
    </Stack>
  );
}

/**
 * Reset Passwords (the Security page's quick action): choose a project, read what will happen,
 * confirm; then the job's progress and its result counts. Closing the dialog does not stop the job.
 */
export function ResetPasswordsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const projects = useProjectsQuery();
  const start = useStartPasswordReset();
  const [chosen, setChosen] = useState<string>();
  const [jobId, setJobId] = useState<string>();
  const job = usePasswordResetQuery(jobId, start.data);
  const choices = (projects.data ?? []).filter((p) => p.accountCount > 0);
  const projectId = chosen ?? choices[0]?.id;
  const project = choices.find((p) => p.id === projectId);
  const busy = start.isPending;

  const close = () => {
    if (busy) return;
    setJobId(undefined);
    setChosen(undefined);
    start.reset();
    onClose();
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!projectId) return;
    start.mutate(projectId, { onSuccess: (started) => setJobId(started.id) });
  };

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
      role="alertdialog"
      open={open}
      onOpenChange={(details) => {
        if (!details.open) close();
      }}
      closeOnInteractOutside={!busy}
      placement="center"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
              <Dialog.Title>Reset Passwords</Dialog.Title>
              <Dialog.Description>Generate new passwords for the accounts of one project.</Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              {jobId && job.data ? (
                <ResetProgress job={job.data} lost={job.isError} />
              ) : (
                <form id={FORM_ID} onSubmit={submit} noValidate>
                  <Stack gap="4">
                    {projects.isPending ? (
                      <Text fontSize="sm" color="fg.muted">
                        Loading your projects...
                      </Text>
                    ) : projects.isError ? (
                      <Text fontSize="sm" color="fg.error">
                        Your projects could not be loaded. Close this and try again.
                      </Text>
                    ) : choices.length === 0 ? (
                      <Text fontSize="sm">You have no project with accounts yet: there is no password to reset.</Text>
                    ) : (
                      <>
                        <FormField label="Project">
                          <NativeSelect.Root disabled={busy}>
                            <NativeSelect.Field value={projectId} onChange={(event) => setChosen(event.target.value)}>
                              {choices.map((p) => (
                                <option key={p.id} value={p.id}>
                                  {p.name} ({accounts(p.accountCount)})
                                </option>
                              ))}
                            </NativeSelect.Field>
                            <NativeSelect.Indicator />
                          </NativeSelect.Root>
                        </FormField>
                        {project ? <Consequences project={project} /> : null}
                      </>
                    )}
                  </Stack>
                </form>
              )}
            </Dialog.Body>
            {jobId ? (
              <Dialog.Footer flexWrap="wrap">
                <Button variant="outline" onClick={close}>
                  {resetFinished(job.data?.status) ? 'Done' : 'Close (the reset goes on)'}
                </Button>
              </Dialog.Footer>
            ) : (
              <DialogActions onCancel={close} form={FORM_ID} colorPalette="red" disabled={!project} busy={busy} loadingText="Starting..." submitLabel="Reset passwords" />
            )}
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
