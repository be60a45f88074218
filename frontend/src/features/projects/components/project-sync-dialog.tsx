import { Alert, Badge, Box, Button, Checkbox, CloseButton, Dialog, HStack, List, Portal, Progress, RadioGroup, Skeleton, Stack, Table, Tabs, Text } from '@chakra-ui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DownloadIcon } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { checkCsvFile } from '@shared/csv/read-people';
import { UPLOAD_CSV_MAX_BYTES, type BulkUploadForm } from '@shared/schemas/bulk-upload';
import {
  SYNC_PAGE_SIZE,
  syncSections,
  type SyncApplyInput,
  type SyncApplyOptions,
  type SyncChangedRow,
  type SyncMissingAccount,
  type SyncNewRow,
  type SyncPreview,
  type SyncRejectedRow,
  type SyncRowsPage,
  type SyncSection,
  type SyncStartedJob,
  type SyncUnchangedRow,
} from '@shared/schemas/account-sync';
import type { Project } from '@shared/schemas/project';
import { plural } from '@shared/text/plural';
import { apiDownload, apiRequest, serverMessageOf } from '../../../lib/api-client';
import { jobPollInterval } from '../../../lib/job-polling';
import { queryKeys } from '../../../lib/query-keys';
import { saveFile } from '../../../lib/save-file';
import { CsvDropZone } from '../../bulk-creator/components/csv-drop-zone';
import { CredentialEmailChoice } from '../../bulk-creator/components/credential-email-fields';
import { validLinkDays } from '../../../components/credential-delivery-fields';
import { MailSendProgress } from '../../../components/mail-send-progress';
import { credentialOptionsOf, useMailSendQuery, type CredentialChoice } from '../../../lib/mail-sends-api';
import { useSubscriptionStatus } from '../../../lib/subscription-api';
import { LINK_EXPIRY_DAYS_DEFAULT } from '@shared/schemas/mail-send';
import { postFile, type UploadProgress } from '../../bulk-creator/api/bulk-upload-api';
import { ignoreFocusOutside } from '../../../lib/modal-focus';

/**
 * 'Update from a file' (docs/sync.md): the file uploaded as a large creation's is, its preview
 * read (counts that add up, a tab per section with pages, the changed rows' old and new values,
 * the CSV), the changes chosen and confirmed with their counts, then the apply's progress and
 * results.
 */
const sectionTitles: Record<SyncSection, string> = { new: 'New', changed: 'Changed', unchanged: 'Unchanged', missing: 'Missing from the file', rejected: 'Rejected' };
const sectionHeaders: Record<SyncSection, string[]> = {
  new: ['Row', 'Name', 'E-mail'],
  changed: ['Row', 'Username', 'Changes'],
  unchanged: ['Row', 'Username', 'Name', 'E-mail'],
  missing: ['Username', 'Name', 'E-mail', 'State'],
  rejected: ['Row', 'Name', 'E-mail', 'Problem'],
};
const ended = (status: string) => status === 'completed' || status === 'failed';

function usePreview(id: string | undefined) {
  return useQuery({
    queryKey: ['sync-preview', id ?? ''],
    queryFn: () => apiRequest<SyncPreview>(`/api/sync-previews/${id!}`),
    enabled: !!id,
    refetchInterval: (query) => {
      const preview = query.state.data;
      return preview && (preview.status === 'ready' || preview.status === 'failed' || preview.status === 'applied') ? false : jobPollInterval(query.state.dataUpdateCount);
    },
    refetchIntervalInBackground: true,
  });
}

export function ProjectSyncDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [previewId, setPreviewId] = useState<string>();
  const [fileError, setFileError] = useState<string>();
  const [progress, setProgress] = useState<UploadProgress>();
  const [confirming, setConfirming] = useState(false);
  const [choices, setChoices] = useState<SyncApplyOptions>({ createNew: true, updateChanged: true, missing: 'nothing' });
  // The new people's credentials by e-mail: unticked at first, as in Add people.
  const [mail, setMail] = useState<{ send: boolean; choice: CredentialChoice }>({ send: false, choice: { delivery: 'password', linkExpiresInDays: LINK_EXPIRY_DAYS_DEFAULT } });
  const subscription = useSubscriptionStatus().data;
  const preview = usePreview(previewId).data;

  const upload = useMutation({
    mutationFn: async (file: File) => {
      const form = await apiRequest<BulkUploadForm>('/api/bulk-uploads', { method: 'POST' });
      await postFile(form, file, setProgress);
      return apiRequest<SyncPreview>(`/api/projects/${project.id}/sync-previews`, { method: 'POST', body: { uploadId: form.id } });
    },
    onSuccess: (started) => setPreviewId(started.id),
  });
  const apply = useMutation({
    mutationFn: (options: SyncApplyInput) => apiRequest<SyncPreview>(`/api/sync-previews/${previewId!}/apply`, { method: 'POST', body: options }),
    onSuccess: (answer) => {
      setConfirming(false);
      queryClient.setQueryData(['sync-preview', previewId], answer);
      void queryClient.invalidateQueries({ queryKey: ['sync-preview', previewId] });
    },
  });
  const download = useMutation({
    mutationFn: async () => {
      const { blob, filename } = await apiDownload(`/api/sync-previews/${previewId!}/csv`);
      saveFile(blob, filename ?? 'sync-preview.csv');
    },
  });

  const onFile = (file: File) => {
    const problem = checkCsvFile(file, UPLOAD_CSV_MAX_BYTES);
    setFileError(problem);
    if (!problem) upload.mutate(file);
  };
  const busy = upload.isPending || apply.isPending;
  const close = () => {
    if (busy) return;
    void queryClient.invalidateQueries({ queryKey: ['/api/projects', project.id] });
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    onClose();
  };
  const counts = preview?.counts;
  const toMissing = counts ? (choices.missing === 'deactivate' ? counts.missingActive : choices.missing === 'delete' ? counts.missing : 0) : 0;
  const toCreate = counts && choices.createNew ? counts.new : 0;
  const toUpdate = counts && choices.updateChanged ? counts.changed : 0;
  const nothing = toMissing + toCreate + toUpdate === 0;
  const mailed = mail.send && toCreate > 0;
  const badDays = mailed && mail.choice.delivery === 'link' && !validLinkDays(mail.choice.linkExpiresInDays);
  const applyOptions: SyncApplyInput = { ...choices, ...(mailed ? { sendCredentials: credentialOptionsOf(mail.choice) } : {}) };
  const applying = preview?.status === 'applying' || preview?.status === 'applied';

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside} open onOpenChange={(details) => (details.open ? undefined : close())} placement="center" size="xl" scrollBehavior="inside">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
              <Dialog.Title>Update from a file</Dialog.Title>
              <Dialog.Description>
                Upload the current list of people for &quot;{project.name}&quot;. You will see what changes before anything is written.
              </Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              <Stack gap="4">
                {!previewId ? (
                  <Stack gap="3">
                    <Text fontSize="sm" color="fg.muted">
                      People are matched to the project&apos;s accounts by an <strong>id</strong> or <strong>employeeId</strong> column when the file has one, otherwise by e-mail address.
                    </Text>
                    <CsvDropZone onFile={onFile} busy={upload.isPending} label="Drag and drop the updated CSV file here, or click to browse" />
                    {upload.isPending && progress ? (
                      <Text fontSize="sm" role="status">
                        Uploading... {Math.round((progress.loaded / Math.max(1, progress.total)) * 100)}%
                      </Text>
                    ) : null}
                    {fileError ?? (upload.error ? (serverMessageOf(upload.error, [400, 403, 404, 409, 413]) ?? 'The file could not be uploaded. Please try again.') : undefined) ? (
                      <Alert.Root status="error">
                        <Alert.Indicator />
                        <Alert.Title>{fileError ?? serverMessageOf(upload.error, [400, 403, 404, 409, 413]) ?? 'The file could not be uploaded. Please try again.'}</Alert.Title>
                      </Alert.Root>
                    ) : null}
                  </Stack>
                ) : !preview || preview.status === 'reading' ? (
                  <Stack gap="2" role="status">
                    <Text fontWeight="medium">Comparing the file with the project&apos;s accounts...</Text>
                    <Text fontSize="sm" color="fg.muted">
                      {plural(preview?.rowsRead ?? 0, 'row')} read
                    </Text>
                    <Progress.Root value={null} size="sm" aria-label="Preparing the preview">
                      <Progress.Track>
                        <Progress.Range />
                      </Progress.Track>
                    </Progress.Root>
                  </Stack>
                ) : preview.status === 'failed' ? (
                  <Alert.Root status="error">
                    <Alert.Indicator />
                    <Alert.Content>
                      <Alert.Title>The preview failed</Alert.Title>
                      <Alert.Description>{preview.reason}</Alert.Description>
                    </Alert.Content>
                  </Alert.Root>
                ) : (
                  <>
                    <PreviewSummary preview={preview} onDownload={() => download.mutate()} downloading={download.isPending} />
                    {applying ? (
                      <ApplyProgress preview={preview} />
                    ) : (
                      <>
                        {confirming ? null : (
                          <>
                            <PreviewSections previewId={preview.id} preview={preview} />
                            <Choices preview={preview} choices={choices} onChange={setChoices} disabled={busy} />
                            {counts && counts.new > 0 ? (
                              <CredentialEmailChoice
                                subscription={subscription}
                                label={`E-mail the ${plural(counts.new, 'new person', 'new people')} their credentials once they are created`}
                                idPrefix="sync"
                                checked={mail.send}
                                disabled={busy || !choices.createNew}
                                onCheckedChange={(send) => setMail({ ...mail, send })}
                                value={mail.choice}
                                onChange={(choice) => setMail({ ...mail, choice })}
                              />
                            ) : null}
                          </>
                        )}
                        {confirming ? (
                          <Alert.Root status={choices.missing === 'delete' ? 'error' : 'warning'}>
                            <Alert.Indicator />
                            <Alert.Content>
                              <Alert.Title>Apply these changes?</Alert.Title>
                              <Alert.Description>
                                <List.Root ps="4">
                                  {toCreate ? (
                                    <List.Item>
                                      Create {plural(toCreate, 'new account')}
                                      {mailed ? ' and e-mail their holders their credentials' : ''}
                                    </List.Item>
                                  ) : null}
                                  {toUpdate ? <List.Item>Update {plural(toUpdate, 'changed account')} (and on their platform when provisioned)</List.Item> : null}
                                  {toMissing ? (
                                    <List.Item>
                                      {choices.missing === 'delete' ? 'Delete' : 'Deactivate'} {plural(toMissing, 'account')} missing from the file{choices.missing === 'delete' ? ': this cannot be undone' : ''}
                                    </List.Item>
                                  ) : null}
                                </List.Root>
                              </Alert.Description>
                            </Alert.Content>
                          </Alert.Root>
                        ) : null}
                        {apply.error ? (
                          <Alert.Root status="error">
                            <Alert.Indicator />
                            <Alert.Title>{serverMessageOf(apply.error, [400, 403, 404, 409]) ?? 'The changes could not be applied. Please try again.'}</Alert.Title>
                          </Alert.Root>
                        ) : null}
                      </>
                    )}
                  </>
                )}
              </Stack>
            </Dialog.Body>
            <Dialog.Footer flexWrap="wrap">
              {preview?.status === 'ready' ? (
                confirming ? (
                  <>
                    <Button variant="outline" onClick={() => setConfirming(false)} disabled={busy}>
                      Back
                    </Button>
                    <Button colorPalette={choices.missing === 'delete' ? 'red' : 'blue'} loading={apply.isPending} loadingText="Starting..." onClick={() => apply.mutate(applyOptions)}>
                      Confirm and apply
                    </Button>
                  </>
                ) : (
                  <>
                    <Button variant="outline" onClick={close} disabled={busy}>
                      Cancel
                    </Button>
                    <Button colorPalette="blue" disabled={nothing || badDays} title={nothing ? 'Nothing to apply with these choices' : undefined} onClick={() => setConfirming(true)}>
                      Apply changes
                    </Button>
                  </>
                )
              ) : (
                <Button variant="outline" onClick={close} disabled={busy}>
                  {preview?.status === 'applied' ? 'Done' : 'Close'}
                </Button>
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

function PreviewSummary({ preview, onDownload, downloading }: { preview: SyncPreview; onDownload: () => void; downloading: boolean }) {
  const c = preview.counts!;
  return (
    <Stack gap="2" borderWidth="1px" borderRadius="md" p="3">
      <Text fontSize="sm">
        <strong>{plural(c.rows, 'row')} in the file:</strong> {c.new} new, {c.changed} changed, {c.unchanged} unchanged, {c.rejected} rejected
      </Text>
      <Text fontSize="sm">
        <strong>{plural(c.accounts, 'account')} in the project:</strong> {c.matched} matched, {c.missing} missing from the file
        {c.missing > c.missingActive ? ` (${c.missing - c.missingActive} already deactivated)` : ''}
      </Text>
      <HStack justify="space-between" flexWrap="wrap" gap="2">
        <Text fontSize="xs" color="fg.muted">
          Matched by {preview.matchWords}
        </Text>
        <Button size="xs" variant="outline" onClick={onDownload} loading={downloading}>
          <DownloadIcon aria-hidden="true" />
          Download preview (CSV)
        </Button>
      </HStack>
    </Stack>
  );
}

function PreviewSections({ previewId, preview }: { previewId: string; preview: SyncPreview }) {
  const [section, setSection] = useState<SyncSection>(() => syncSections.find((s) => (preview.counts?.[s] ?? 0) > 0) ?? 'new');
  const [page, setPage] = useState(0);
  const total = preview.counts?.[section] ?? 0;
  const rows = useQuery({
    queryKey: ['sync-preview-rows', previewId, section, page],
    queryFn: () => apiRequest<SyncRowsPage>(`/api/sync-previews/${previewId}/rows?section=${section}&page=${page}`),
  });
  const pages = Math.max(1, Math.ceil(total / SYNC_PAGE_SIZE));
  return (
    <Tabs.Root
      value={section}
      onValueChange={(details) => {
        setSection(details.value as SyncSection);
        setPage(0);
      }}
      variant="line"
      size="sm"
    >
      <Tabs.List flexWrap="wrap" aria-label="Differences">
        {syncSections.map((s) => (
          <Tabs.Trigger key={s} value={s}>
            {sectionTitles[s]}
            <Badge size="xs" variant="subtle" colorPalette={s === 'rejected' ? 'red' : s === 'new' ? 'green' : s === 'changed' ? 'blue' : s === 'missing' ? 'orange' : 'gray'}>
              {preview.counts?.[s] ?? 0}
            </Badge>
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {syncSections.map((s) => (
        <Tabs.Content key={s} value={s} pt="3">
          {s !== section ? null : total === 0 ? (
          <Text fontSize="sm" color="fg.muted">
            None.
          </Text>
        ) : (
          <Stack gap="2">
            <Box overflowX="auto">
              <SectionTable section={section} rows={rows.data?.rows} loadingRows={Math.min(SYNC_PAGE_SIZE, total - page * SYNC_PAGE_SIZE)} />
            </Box>
            {pages > 1 ? (
              <HStack justify="space-between">
                <Button size="xs" variant="outline" disabled={page === 0} onClick={() => setPage(page - 1)}>
                  Previous
                </Button>
                <Text fontSize="xs" color="fg.muted">
                  Page {page + 1} of {pages}
                </Text>
                <Button size="xs" variant="outline" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
                  Next
                </Button>
              </HStack>
            ) : null}
          </Stack>
        )}
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}

/**
 * One section's page of rows. While the page loads, as many placeholder rows as it will hold keep
 * its height, so the choices below do not move under the pointer when the rows arrive.
 */
function SectionTable({ section, rows, loadingRows }: { section: SyncSection; rows: SyncRowsPage['rows'] | undefined; loadingRows: number }) {
  const head = (cells: string[]) => (
    <Table.Header>
      <Table.Row>
        {cells.map((cell) => (
          <Table.ColumnHeader key={cell}>{cell}</Table.ColumnHeader>
        ))}
      </Table.Row>
    </Table.Header>
  );
  if (!rows) {
    return (
      <Table.Root size="sm" aria-label={sectionTitles[section]} aria-busy>
        {head(sectionHeaders[section])}
        <Table.Body>
          {Array.from({ length: Math.max(1, loadingRows) }, (_, line) => (
            <Table.Row key={line}>
              {sectionHeaders[section].map((header) => (
                <Table.Cell key={header}>
                  <Skeleton>
                    <Text fontSize="sm">&nbsp;</Text>
                  </Skeleton>
                </Table.Cell>
              ))}
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    );
  }
  const body = (lines: { key: string; cells: ReactNode[] }[]) => (
    <Table.Body>
      {lines.map((line) => (
        <Table.Row key={line.key}>
          {line.cells.map((cell, i) => (
            <Table.Cell key={i} verticalAlign="top">
              {cell}
            </Table.Cell>
          ))}
        </Table.Row>
      ))}
    </Table.Body>
  );
  const name = (r: { firstName: string; lastName: string }) => `${r.firstName} ${r.lastName}`;
  return (
    <Table.Root size="sm" aria-label={sectionTitles[section]}>
      {section === 'new' ? (
        <>
          {head(sectionHeaders.new)}
          {body((rows as SyncNewRow[]).map((r) => ({ key: String(r.row), cells: [r.row, name(r), r.email] })))}
        </>
      ) : section === 'changed' ? (
        <>
          {head(sectionHeaders.changed)}
          {body(
            (rows as SyncChangedRow[]).map((r) => ({
              key: String(r.row),
              cells: [
                r.row,
                r.username,
                <Stack key="changes" gap="0.5">
                  {r.changes.map((c) => (
                    <Text key={c.field} fontSize="sm">
                      {c.label}: <Text as="del" color="fg.muted">{c.from || '(empty)'}</Text> → <Text as="ins" textDecoration="none" fontWeight="medium">{c.to || '(empty)'}</Text>
                    </Text>
                  ))}
                </Stack>,
              ],
            })),
          )}
        </>
      ) : section === 'unchanged' ? (
        <>
          {head(sectionHeaders.unchanged)}
          {body((rows as SyncUnchangedRow[]).map((r) => ({ key: String(r.row), cells: [r.row, r.username, name(r), r.email] })))}
        </>
      ) : section === 'missing' ? (
        <>
          {head(sectionHeaders.missing)}
          {body((rows as SyncMissingAccount[]).map((r) => ({ key: r.accountId, cells: [r.username, name(r), r.email, r.isActive ? 'Active' : 'Deactivated'] })))}
        </>
      ) : (
        <>
          {head(sectionHeaders.rejected)}
          {body((rows as SyncRejectedRow[]).map((r) => ({ key: String(r.row), cells: [r.row, name(r), r.email, r.problem] })))}
        </>
      )}
    </Table.Root>
  );
}

function Choices({ preview, choices, onChange, disabled }: { preview: SyncPreview; choices: SyncApplyOptions; onChange: (choices: SyncApplyOptions) => void; disabled: boolean }) {
  const c = preview.counts!;
  return (
    <Stack gap="3" borderWidth="1px" borderRadius="md" p="3">
      <Text fontWeight="medium">What to apply</Text>
      <Checkbox.Root checked={choices.createNew} disabled={disabled || c.new === 0} onCheckedChange={(details) => onChange({ ...choices, createNew: details.checked === true })}>
        <Checkbox.HiddenInput />
        <Checkbox.Control />
        <Checkbox.Label>Create the {plural(c.new, 'new person', 'new people')} (usernames and passwords as for Add people)</Checkbox.Label>
      </Checkbox.Root>
      <Checkbox.Root checked={choices.updateChanged} disabled={disabled || c.changed === 0} onCheckedChange={(details) => onChange({ ...choices, updateChanged: details.checked === true })}>
        <Checkbox.HiddenInput />
        <Checkbox.Control />
        <Checkbox.Label>Update the {plural(c.changed, 'changed account')}, here and on their platform</Checkbox.Label>
      </Checkbox.Root>
      <Stack gap="2">
        <Text fontSize="sm" id="sync-missing-label">
          The {plural(c.missing, 'account')} missing from the file
        </Text>
        <RadioGroup.Root size="sm" value={choices.missing} disabled={disabled || c.missing === 0} onValueChange={(details) => onChange({ ...choices, missing: (details.value ?? 'nothing') as SyncApplyOptions['missing'] })} aria-labelledby="sync-missing-label">
          <Stack gap="2">
            <RadioGroup.Item value="nothing">
              <RadioGroup.ItemHiddenInput />
              <RadioGroup.ItemIndicator />
              <RadioGroup.ItemText>Leave them as they are</RadioGroup.ItemText>
            </RadioGroup.Item>
            <RadioGroup.Item value="deactivate">
              <RadioGroup.ItemHiddenInput />
              <RadioGroup.ItemIndicator />
              <RadioGroup.ItemText>Deactivate them ({c.missingActive} active)</RadioGroup.ItemText>
            </RadioGroup.Item>
            <RadioGroup.Item value="delete">
              <RadioGroup.ItemHiddenInput />
              <RadioGroup.ItemIndicator />
              <RadioGroup.ItemText>Delete them ({c.missing})</RadioGroup.ItemText>
            </RadioGroup.Item>
          </Stack>
        </RadioGroup.Root>
      </Stack>
    </Stack>
  );
}

function JobLine({ label, job }: { label: string; job: SyncStartedJob | undefined }) {
  if (!job) return null;
  return (
    <Text fontSize="sm">
      {label}: {job.done} of {job.total} done{job.failed ? `, ${job.failed} not changed` : ''}
      {ended(job.status) ? '' : '...'}
    </Text>
  );
}

function ApplyProgress({ preview }: { preview: SyncPreview }) {
  const a = preview.apply;
  if (!a) return null;
  const finished = preview.status === 'applied';
  const parts = [a.toUpdate, a.updateOnPlatform?.total ?? 0, a.missingAction?.total ?? 0, a.toCreate];
  const doneParts = [a.updatedHere + a.updateFailed, (a.updateOnPlatform?.done ?? 0) + (a.updateOnPlatform?.failed ?? 0), (a.missingAction?.done ?? 0) + (a.missingAction?.failed ?? 0), a.created + (a.addPeople?.failed ?? 0)];
  const total = parts.reduce((x, y) => x + y, 0);
  const done = doneParts.reduce((x, y) => x + y, 0);
  return (
    <Stack gap="3" role="status" aria-live="polite">
      <Text fontWeight="medium">{finished ? 'Changes applied' : 'Applying the changes...'}</Text>
      <Progress.Root value={finished ? 100 : total ? Math.min(99, Math.round((done / total) * 100)) : null} size="sm" colorPalette={finished ? 'green' : 'blue'}>
        <Progress.Label srOnly>Progress</Progress.Label>
        <Progress.Track>
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
      <Stack gap="1">
        {a.options.updateChanged ? (
          <Text fontSize="sm">
            Updated here: {a.updatedHere} of {a.toUpdate}
            {a.updateFailed ? `, ${a.updateFailed} not updated` : ''}
          </Text>
        ) : null}
        <JobLine label="Updated on the platform" job={a.updateOnPlatform} />
        <JobLine label={a.options.missing === 'delete' ? 'Deleted' : 'Deactivated'} job={a.missingAction} />
        {a.options.createNew ? (
          <Text fontSize="sm">
            New accounts created: {a.addPeople ? a.addPeople.done : a.created} of {a.toCreate}
          </Text>
        ) : null}
      </Stack>
      {a.mailSendId ? <NewPeopleMail sendId={a.mailSendId} /> : null}
      {a.failures.length ? (
        <Alert.Root status="warning">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Not updated</Alert.Title>
            <List.Root ps="4" fontSize="sm">
              {a.failures.map((f) => (
                <List.Item key={f.accountId}>
                  {f.username}: {f.reason}
                </List.Item>
              ))}
            </List.Root>
          </Alert.Content>
        </Alert.Root>
      ) : null}
      {a.errors.map((error) => (
        <Alert.Root key={error} status="error">
          <Alert.Indicator />
          <Alert.Title>{error}</Alert.Title>
        </Alert.Root>
      ))}
      {finished && ((a.updateOnPlatform?.failed ?? 0) > 0 || (a.missingAction?.failed ?? 0) > 0) ? (
        <Text fontSize="sm" color="fg.muted">
          Accounts a platform refused keep their state here; the account&apos;s history and the project page show why.
        </Text>
      ) : null}
    </Stack>
  );
}

/** The new people's credential e-mails (Add people's send over the rows it added). */
function NewPeopleMail({ sendId }: { sendId: string }) {
  const send = useMailSendQuery(sendId).data;
  return send ? <MailSendProgress send={send} /> : null;
}
