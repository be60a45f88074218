import { Alert, Button, CloseButton, Dialog, List, Portal, Progress, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { actionWords, type AccountAction } from '@shared/schemas/account-actions';
import { lifecycleSupport, type OperationSupport } from '@shared/schemas/lifecycle';
import type { AccountView } from '@shared/schemas/project';
import { plural } from '@shared/text/plural';
import { useAccountActionQuery, useStartAccountAction } from '../lib/account-actions-api';
import { useIntegrationsQuery } from '../lib/integrations-query';
import { useProjectsQuery } from '../lib/projects-api';

/** What the action touches: listed accounts (one, or those ticked), or every account of the project. */
export type ActionTarget = { accounts: AccountView[] } | { all: number };

/**
 * The project's platform, when some of the target accounts are on it (Synced): its name and
 * whether and how it does the action, in shared/schemas/lifecycle.ts's words.
 */
export function usePlatformOperation(projectId: string, action: AccountAction, target: ActionTarget): { name: string; support: OperationSupport } | undefined {
  const project = useProjectsQuery().data?.find((p) => p.id === projectId);
  const onPlatform = 'all' in target ? (project?.syncedCount ?? 0) > 0 : target.accounts.some((a) => a.externalStatus === 'success');
  const integrations = useIntegrationsQuery(onPlatform && !!project?.integrationId);
  const integration = integrations.data?.find((i) => i.id === project?.integrationId);
  if (!onPlatform || !integration) return undefined;
  const support = lifecycleSupport(integration);
  return { name: integration.name, support: action === 'delete' ? support.remove : action === 'update' ? support.update : support.setActive };
}

const nameOf = (account: AccountView) => `${account.firstName} ${account.lastName} (${account.username})`;

/**
 * Deactivate / Reactivate / Delete, asked first: the dialog names the account (or the count) and,
 * for accounts on a platform, what the platform does, or that it cannot, before anything is sent.
 * Once started it shows the job's progress and, at the end, the accounts not changed with the
 * platform's words. It stays open until closed, so the outcome is always seen.
 */
export function AccountActionDialog({ projectId, action, target, onClose, onStarted }: { projectId: string; action: AccountAction; target: ActionTarget; onClose: () => void; onStarted?: () => void }) {
  const start = useStartAccountAction();
  const [jobId, setJobId] = useState<string>();
  const job = useAccountActionQuery(jobId, start.data);
  const platform = usePlatformOperation(projectId, action, target);
  const words = actionWords[action];
  const count = 'all' in target ? target.all : target.accounts.length;
  const single = 'accounts' in target && target.accounts.length === 1 ? target.accounts[0] : undefined;
  const what = single ? nameOf(single) : 'all' in target ? `all ${plural(count, 'account')} of this project` : plural(count, 'account');
  const title = single ? `${words.verb} ${single.firstName} ${single.lastName}?` : `${words.verb} ${plural(count, 'account')}?`;
  const cannot = platform && !platform.support.supported ? platform.support.reason : undefined;
  const busy = start.isPending || (!!jobId && job.data?.status !== 'completed' && job.data?.status !== 'failed');
  const view = job.data;

  const confirm = () =>
    start.mutate({ projectId, action, ...('all' in target ? { filter: 'all' as const } : { accountIds: target.accounts.map((a) => a.id) }) }, {
      onSuccess: (started) => {
        setJobId(started.id);
        onStarted?.();
      },
    });

  return (
    <Dialog.Root role="alertdialog" open onOpenChange={(details) => !details.open && !busy && onClose()} closeOnInteractOutside={!busy} placement="center">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header>
              <Dialog.Title>{view ? (busy ? `${words.doing} ${plural(view.total, 'account')}` : `${words.verb} ${plural(view.total, 'account')}: finished`) : title}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              {view ? (
                <Stack gap="3" role="status">
                  <Progress.Root value={view.total ? Math.round(((view.done + view.failed) / view.total) * 100) : 100} size="sm">
                    <Progress.Label srOnly>Progress</Progress.Label>
                    <Progress.Track>
                      <Progress.Range />
                    </Progress.Track>
                  </Progress.Root>
                  <Text>
                    {view.done} {words.done}
                    {view.onPlatform ? ` (${view.onPlatform} on ${view.integrationName ?? 'the platform'} too)` : ''}, {view.failed} not changed, {view.pending} to go.
                  </Text>
                  {view.status === 'failed' && view.reason ? <Text color="fg.error">{view.reason}</Text> : null}
                  {view.failures?.length ? (
                    <Alert.Root status="error">
                      <Alert.Indicator />
                      <Alert.Content>
                        <Alert.Title>Not changed (run it again to retry)</Alert.Title>
                        <List.Root fontSize="sm" ps="4">
                          {view.failures.map((f) => (
                            <List.Item key={f.accountId} overflowWrap="anywhere">
                              {f.username}: {f.reason}
                            </List.Item>
                          ))}
                        </List.Root>
                      </Alert.Content>
                    </Alert.Root>
                  ) : null}
                </Stack>
              ) : (
                <Dialog.Description asChild color="fg">
                  <Stack gap="3">
                    <Text>
                      {action === 'delete'
                        ? `${what} will be deleted here, with ${count === 1 ? 'its username' : 'their usernames'} (free for reuse); ${count === 1 ? 'its' : 'their'} one-time credential links stop working. This cannot be undone.`
                        : action === 'deactivate'
                          ? `${what} will be deactivated: ${count === 1 ? 'its' : 'their'} one-time credential links stop working until reactivated.`
                          : `${what} will be active again.`}
                    </Text>
                    {platform ? (
                      platform.support.supported ? (
                        <Text>
                          On {platform.name} first: {platform.support.how}
                        </Text>
                      ) : (
                        <Alert.Root status="warning">
                          <Alert.Indicator />
                          <Alert.Description>
                            {platform.name} cannot do this: {cannot} The accounts on it will not be changed (shown as not changed).
                          </Alert.Description>
                        </Alert.Root>
                      )
                    ) : null}
                  </Stack>
                </Dialog.Description>
              )}
            </Dialog.Body>
            <Dialog.Footer flexWrap="wrap">
              {view ? (
                <Button onClick={onClose} disabled={busy}>
                  Close
                </Button>
              ) : (
                <>
                  <Button variant="outline" onClick={onClose} disabled={busy}>
                    Cancel
                  </Button>
                  <Button colorPalette={action === 'reactivate' ? 'blue' : 'red'} loading={start.isPending} loadingText="Starting..." onClick={confirm}>
                    {single ? words.verb : `${words.verb} ${plural(count, 'account')}`}
                  </Button>
                </>
              )}
            </Dialog.Footer>
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
