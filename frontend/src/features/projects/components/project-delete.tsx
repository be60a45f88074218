import { Alert, Button, Checkbox, CloseButton, Dialog, HStack, List, Portal, Progress, Stack, Text } from '@chakra-ui/react';
import { Trash2Icon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { lifecycleSupport } from '@shared/schemas/lifecycle';
import type { Project } from '@shared/schemas/project';
import type { ProjectDeletion } from '@shared/schemas/project-deletion';
import { plural } from '@shared/text/plural';
import { useIntegrationsQuery } from '../../../lib/integrations-query';
import { deletionOver, deletionStartedKey, useDeleteProject, useProjectDeletionQuery, useStartedDeletion } from '../../../lib/project-deletion-api';
import { queryKeys } from '../../../lib/query-keys';
import { toaster } from '../../../lib/toaster';
import { ignoreFocusOutside } from '../../../lib/modal-focus';

const count = new Intl.NumberFormat();

/** "12 of 1,234 accounts deleted (3 kept)": removed + kept + pending = total. */
const progressText = (job: ProjectDeletion) => `${count.format(job.removed)} of ${plural(job.total, 'account')} deleted${job.kept ? ` (${count.format(job.kept)} kept)` : ''}`;

/**
 * A project being deleted: 'Deleting...' and how far it is (the project card and page). Paused
 * (refused credentials) and failed say why.
 */
export function ProjectDeletionProgress({ project, showKept = false }: { project: Project; /** The project page: the accounts its last deletion kept, with the platform's words. */ showKept?: boolean }) {
  const job = useProjectDeletionQuery(project.deletionActive || showKept ? project.deletionId : undefined, showKept).data;
  if (!project.deletionActive) return showKept && job?.status === 'completed' && job.kept > 0 && job.keptAccounts?.length ? <KeptAccounts job={job} /> : null;
  const value = job && job.total > 0 ? Math.round(((job.removed + job.kept) / job.total) * 100) : null;
  return (
    <Stack gap="1.5" role="status" aria-live="polite" data-testid="project-deleting">
      <Progress.Root value={value} max={100} colorPalette="red" size="sm" aria-label={`Deleting ${project.name}`}>
        <HStack justify="space-between" mb="1" gap="2">
          <Progress.Label fontSize="sm" fontWeight="medium">
            {job?.status === 'paused' ? 'Deletion paused' : 'Deleting...'}
          </Progress.Label>
          {job ? <Text fontSize="xs" color="fg.muted">{progressText(job)}</Text> : null}
        </HStack>
        <Progress.Track borderRadius="full">
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
      {job?.reason ? (
        <Text fontSize="sm" color="fg.warning">
          {job.reason}
        </Text>
      ) : null}
    </Stack>
  );
}

/**
 * Delete project (the project page's header): a confirmation that names the counts and, for a
 * provisioned project, whether to remove the accounts from the platform too (on by default, with
 * what the platform does). Then the progress; once the project is gone, back to Projects with a
 * toast. Accounts the platform refused stay, listed with its words.
 */
export function DeleteProjectButton({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  const [removeThere, setRemoveThere] = useState(true);
  const started = useStartedDeletion(project.id);
  const provisioned = !!project.integrationId && project.syncedCount > 0;
  const integrations = useIntegrationsQuery(open && provisioned);
  const integration = integrations.data?.find((candidate) => candidate.id === project.integrationId);
  const deleteProject = useDeleteProject();
  const followed = started?.jobId ?? (project.deletionActive ? project.deletionId : undefined);
  const job = useProjectDeletionQuery(followed, true).data;
  const closed = useRef<string>(undefined);

  // Over: the dialog closes (the page, useFollowedProjectDeletion, says how it ended and leaves if the project is gone).
  useEffect(() => {
    const end = job && `${job.id}@${started?.at ?? 0}`;
    if (!job || !deletionOver(job.status) || closed.current === end) return;
    closed.current = end;
    setOpen(false);
  }, [job, started]);

  const running = !!followed && !!job && !deletionOver(job.status);
  const platformName = integration?.name ?? 'the platform';
  const what = integration ? lifecycleSupport(integration).remove : undefined;

  return (
    <>
      <Button variant="outline" colorPalette="red" onClick={() => setOpen(true)} disabled={project.deletionActive === true && job?.status !== 'paused'}>
        <Trash2Icon aria-hidden="true" />
        {project.deletionActive && job?.status !== 'paused' ? 'Deleting...' : 'Delete project'}
      </Button>
      <Dialog.Root onFocusOutside={ignoreFocusOutside} role="alertdialog" open={open} onOpenChange={(details) => !deleteProject.isPending && setOpen(details.open)} placement="center">
        <Portal>
          <Dialog.Backdrop />
          <Dialog.Positioner>
            <Dialog.Content mx="4" aria-busy={deleteProject.isPending || running}>
              <Dialog.Header>
                <Dialog.Title wordBreak="break-word">{`Delete "${project.name}" and its ${plural(project.accountCount, 'account')}?`}</Dialog.Title>
              </Dialog.Header>
              <Dialog.Body>
                <Stack gap="4">
                  <Dialog.Description>
                    The accounts, their passwords, search entries and one-time credential links are erased here. This cannot be undone.
                  </Dialog.Description>
                  {provisioned ? (
                    <Stack gap="2">
                      <Checkbox.Root checked={removeThere} onCheckedChange={(details) => setRemoveThere(details.checked === true)} disabled={running}>
                        <Checkbox.HiddenInput />
                        <Checkbox.Control />
                        <Checkbox.Label>{`Remove the accounts from ${platformName} too`}</Checkbox.Label>
                      </Checkbox.Root>
                      <Text fontSize="sm" color="fg.muted">
                        {removeThere
                          ? `${what ? (what.supported ? what.how : what.reason) : ''} An account ${platformName} refuses to remove stays in this project, with its answer.`.trim()
                          : `The ${plural(project.syncedCount, 'account')} on ${platformName} stay there; only this project's copy is erased.`}
                      </Text>
                    </Stack>
                  ) : null}
                  {running && job ? (
                    <Progress.Root value={job.total ? Math.round(((job.removed + job.kept) / job.total) * 100) : null} max={100} colorPalette="red" aria-label="Deletion progress">
                      <HStack justify="space-between" mb="1">
                        <Progress.Label fontSize="sm">Deleting...</Progress.Label>
                        <Text fontSize="sm" role="status" aria-live="polite">
                          {progressText(job)}
                        </Text>
                      </HStack>
                      <Progress.Track borderRadius="full">
                        <Progress.Range />
                      </Progress.Track>
                    </Progress.Root>
                  ) : null}
                </Stack>
              </Dialog.Body>
              <Dialog.Footer flexWrap="wrap">
                <Dialog.ActionTrigger asChild>
                  {/* A long deletion goes on with the dialog closed: the page and the project's card show it. */}
                  <Button variant="outline" disabled={deleteProject.isPending}>
                    {running ? 'Close' : 'Cancel'}
                  </Button>
                </Dialog.ActionTrigger>
                <Button
                  colorPalette="red"
                  loading={deleteProject.isPending || running}
                  loadingText="Deleting..."
                  onClick={() => deleteProject.mutate({ projectId: project.id, removeFromPlatform: provisioned && removeThere })}
                >
                  Delete project
                </Button>
              </Dialog.Footer>
              {deleteProject.isPending ? null : (
                <Dialog.CloseTrigger asChild>
                  <CloseButton size="sm" />
                </Dialog.CloseTrigger>
              )}
            </Dialog.Content>
          </Dialog.Positioner>
        </Portal>
      </Dialog.Root>
    </>
  );
}

/**
 * The deletion this project's page started, followed to its end by the page itself (not by the
 * Delete project button, which leaves with the project: the list read again while the deletion
 * runs may no longer hold it). Once over it says how it ended; a deleted project's page leaves for
 * Projects, the project taken off the list. `following`: a deletion started here is under way or
 * has deleted the project (the page says 'Deleting...', not 'Project not found', until it leaves).
 */
export function useFollowedProjectDeletion(projectId: string): { following: boolean } {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const started = useStartedDeletion(projectId);
  const followedJob = useProjectDeletionQuery(started?.jobId, true);
  const job = followedJob.data;
  const told = useRef<number>(undefined);
  const gone = useRef(false);
  // Once this page is left: the deletion it started is no longer followed here, and a deleted
  // project leaves the list at once (its refetch confirms it).
  useEffect(
    () => () => {
      queryClient.removeQueries({ queryKey: deletionStartedKey(projectId), exact: true });
      if (!gone.current) return;
      queryClient.setQueryData<Project[]>(queryKeys.projects, (list) => list?.filter((candidate) => candidate.id !== projectId));
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    },
    [queryClient, projectId],
  );
  useEffect(() => {
    if (!job || !started || job.id !== started.jobId || !deletionOver(job.status) || told.current === started.at) return;
    told.current = started.at;
    if (job.status === 'completed' && job.projectDeleted) {
      gone.current = true;
      toaster.create({ type: 'success', title: 'Project deleted', description: `"${job.projectName}" and its ${plural(job.removed, 'account')} were deleted.` });
      void navigate('/projects');
    } else if (job.status === 'completed') {
      toaster.create({ type: 'warning', title: 'Deleted with failures', description: `${plural(job.removed, 'account')} deleted; ${plural(job.kept, 'account')} kept: ${job.integrationName ?? 'the platform'} refused to remove them.` });
    } else {
      toaster.create({ type: 'error', title: job.status === 'paused' ? 'Deletion paused' : 'Deletion failed', description: job.reason ?? 'The deletion stopped.' });
    }
  }, [job, started, navigate]);
  // A deletion that took the project away leaves the page: 'Deleting...' until it has left.
  const ended = job?.id === started?.jobId && deletionOver(job?.status) && !(job?.status === 'completed' && job.projectDeleted);
  // Its progress no longer readable (the query gave up): the page shows what the list says.
  return { following: !!started && !ended && !followedJob.isError };
}

/** The accounts a deletion kept, with the platform's words (the rest were deleted). */
function KeptAccounts({ job }: { job: ProjectDeletion }) {
  return (
    <Alert.Root status="warning" role="status" data-testid="deletion-kept">
        <Alert.Indicator />
        <Alert.Content gap="1">
          <Alert.Title>
            {`Deletion completed with failures: ${plural(job.removed, 'account')} deleted, ${plural(job.kept, 'account')} kept. Delete the project again to retry, or without removing them from ${job.integrationName ?? 'the platform'}.`}
          </Alert.Title>
          <List.Root fontSize="sm" ps="4">
            {job.keptAccounts!.map((account) => (
              <List.Item key={account.username} wordBreak="break-word">
                {account.username}: {account.reason}
              </List.Item>
            ))}
          </List.Root>
        </Alert.Content>
    </Alert.Root>
  );
}
