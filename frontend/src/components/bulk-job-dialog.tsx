import { Alert, Button, CloseButton, Dialog, List, Portal, Progress, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { plural } from '@shared/text/plural';

/** A job's progress as the dialog shows it, whichever kind (or action over projects) it is: done + failed + skipped + pending = total. */
export interface JobProgress {
  status: string;
  total: number;
  done: number;
  failed: number;
  skipped: number;
  pending: number;
  /** Accounts changed on their platform too, and its name (shown when some were). */
  onPlatform?: number;
  integrationName?: string;
  /** Why the job stopped (shown once it failed). */
  reason?: string;
  failures: { key: string; username: string; reason: string }[];
}

/** The words of an action: 'Deactivate' / 'deactivated' / 'Deactivating' / 'not changed', and the title of the list of accounts not done. */
export interface JobWords {
  verb: string;
  done: string;
  doing: string;
  notDone: string;
  notDoneTitle: string;
}

const over = (status: string | undefined) => status === 'completed' || status === 'failed';

/**
 * The one dialog of a bulk job over accounts (the project page's bulk bar and row menus, the
 * Account Database's bulk bar): asked first (the title names the account or the count, the
 * description what happens, here and on the platform), then once started the job's progress (done,
 * not done, skipped, to go: they add up to the total), and at the end the accounts not done with
 * the reason. It stays open until closed, so the outcome is always seen; while the job runs it
 * cannot be closed. An alert dialog: it answers to its buttons and Escape only (a focus or click
 * outside it, the edit dialog it follows giving focus back to the row's menu as it closes, must not
 * close it). What it acts on, how it starts and where its progress comes from are the caller's.
 */
export function BulkJobDialog(props: {
  /** The confirmation's title: what it acts on. */
  title: string;
  words: JobWords;
  /** Once started: the job's progress (undefined until it is first read). */
  started: boolean;
  progress: JobProgress | undefined;
  /** The start's request is under way. */
  starting: boolean;
  /** What confirming does (one element: it becomes the dialog's description). */
  description: ReactNode;
  /** Choices asked with the confirmation (a send's delivery). */
  fields?: ReactNode;
  /** Said after the progress line's counts (e.g. over how many projects). */
  progressNote?: string;
  /** Parts of the job that did not start, in words. */
  warning?: string;
  confirmLabel: string;
  danger: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { words, progress: view } = props;
  const busy = props.starting || (props.started && !over(view?.status));
  return (
    <Dialog.Root role="alertdialog" open onOpenChange={(details) => !details.open && !busy && props.onClose()} closeOnInteractOutside={false} placement="center">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header>
              <Dialog.Title>{view ? (busy ? `${words.doing} ${plural(view.total, 'account')}` : `${words.verb} ${plural(view.total, 'account')}: finished`) : props.title}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              {view ? (
                <Stack gap="3" role="status">
                  <Progress.Root value={view.total ? Math.round(((view.done + view.failed + view.skipped) / view.total) * 100) : 100} size="sm">
                    <Progress.Label srOnly>Progress</Progress.Label>
                    <Progress.Track>
                      <Progress.Range />
                    </Progress.Track>
                  </Progress.Root>
                  <Text>
                    {view.done} {words.done}
                    {view.onPlatform ? ` (${view.onPlatform} on ${view.integrationName ?? 'the platform'} too)` : ''}, {view.failed} {words.notDone}
                    {view.skipped ? `, ${view.skipped} skipped (no longer matching when reached)` : ''}, {view.pending} to go
                    {props.progressNote ?? ''}.
                  </Text>
                  {view.status === 'failed' && view.reason ? <Text color="fg.error">{view.reason}</Text> : null}
                  {props.warning ? (
                    <Alert.Root status="warning">
                      <Alert.Indicator />
                      <Alert.Description>{props.warning}</Alert.Description>
                    </Alert.Root>
                  ) : null}
                  {view.failures.length ? (
                    <Alert.Root status="error">
                      <Alert.Indicator />
                      <Alert.Content>
                        <Alert.Title>{words.notDoneTitle}</Alert.Title>
                        <List.Root fontSize="sm" ps="4">
                          {view.failures.map((f, n) => (
                            <List.Item key={`${f.key}-${n}`} overflowWrap="anywhere">
                              {f.username}: {f.reason}
                            </List.Item>
                          ))}
                        </List.Root>
                      </Alert.Content>
                    </Alert.Root>
                  ) : null}
                </Stack>
              ) : (
                <Stack gap="3">
                  <Dialog.Description asChild color="fg">
                    {props.description}
                  </Dialog.Description>
                  {props.fields}
                </Stack>
              )}
            </Dialog.Body>
            <Dialog.Footer flexWrap="wrap">
              {view ? (
                <Button onClick={props.onClose} disabled={busy}>
                  Close
                </Button>
              ) : (
                <>
                  <Button variant="outline" onClick={props.onClose} disabled={busy}>
                    Cancel
                  </Button>
                  <Button colorPalette={props.danger ? 'red' : 'blue'} loading={props.starting} loadingText="Starting..." onClick={props.onConfirm}>
                    {props.confirmLabel}
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
