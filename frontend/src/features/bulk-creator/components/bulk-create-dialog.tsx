import { Alert, Badge, Box, Button, CloseButton, Dialog, HStack, Portal, Progress, Stack, Text } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { DownloadIcon } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import { useUserSettings } from '../../../lib/user-settings-api';
import { useQueryClient } from '@tanstack/react-query';
import type { CsvRow } from '@shared/csv/read-people';
import type { BulkCreateSummary, BulkJob } from '@shared/schemas/bulk';
import type { BulkUpload } from '@shared/schemas/bulk-upload';
import type { Project, SubscriptionStatus } from '@shared/schemas/project';
import { ProvisioningProgress } from '../../../components/provisioning-progress';
import { useExportProject } from '../../../lib/projects-api';
import { useProvisioningJobQuery } from '../../../lib/provisioning-api';
import { useMailSendQuery } from '../../../lib/mail-sends-api';
import { MailSendProgress } from '../../../components/mail-send-progress';
import { saveCsv } from '../../../lib/save-file';
import { toaster } from '../../../lib/toaster';
import {
  invalidateAfterBulkCreate,
  isJobStarted,
  jobFinished,
  useBulkCreateMutation,
  useBulkJobQuery,
  type BulkCreateDone,
  type BulkCreateStarted,
} from '../api/bulk-create-api';
import { useBulkUploadQuery, useStartUploadMutation, useUploadMutation, useUploadReportDownload, type UploadProgress } from '../api/bulk-upload-api';
import { useSimulatedProgress } from '../hooks/use-simulated-progress';
import { RowProblemsList } from './row-problems-list';
import { accountsFileName, createdAccountsCsv } from '../lib/created-accounts-csv';
import { readCsvFile, type CsvFile } from '../lib/read-csv-file';
import { toBulkCreateRequest, toUploadStartRequest, uploadFormDefaultsWith, uploadFormSchema, type UploadFormInput, type UploadFormValues } from '../lib/upload-form';
import { BulkProcessingStage } from './bulk-processing-stage';
import { CreatedAccountsResult, failedRowProblems, JobResult, rejectedCount, RejectedRowsDownload } from './bulk-complete-stage';
import { BulkUploadStage, planWarningFor, UPLOAD_FORM_ID } from './bulk-upload-stage';
import { SKIPPED_ROWS_ID } from './csv-file-summary';
import { plural } from '@shared/text/plural';
import { ignoreFocusOutside } from '../../../lib/modal-focus';

type Outcome =
  | { kind: 'done'; response: BulkCreateDone; sentRows: CsvRow[] }
  /** sentRows empty: an uploaded file, whose row numbers are the file's lines already (the server read it). */
  | { kind: 'job'; response: BulkCreateStarted; sentRows: CsvRow[] };

const OVER_PLAN_ID = 'bulk-over-plan-reason';
const FILE_SUMMARY_ID = 'bulk-file-ready-summary';

/**
 * Beside Generate: how many rows become accounts and how many are skipped, with a link to the
 * skipped rows. The preview and the list sit under the file, often below the dialog's fold, and
 * Generate is reachable without scrolling past them.
 */
function FileReadySummary({ file }: { file: CsvFile }) {
  if (file.partial) {
    return (
      <Text id={FILE_SUMMARY_ID} fontSize="sm" color="fg.muted">
        The server counts this file&apos;s rows.
      </Text>
    );
  }
  const ready = file.result.valid.length;
  const skipped = file.result.invalid.length;
  const showSkipped = () => {
    const list = document.getElementById(SKIPPED_ROWS_ID);
    list?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    list?.focus({ preventScroll: true });
  };
  return (
    <Text id={FILE_SUMMARY_ID} fontSize="sm" data-testid="file-ready-summary">
      <Text as="span" fontWeight="semibold">
        {plural(ready, 'account')} ready
      </Text>
      {skipped ? (
        <>
          {', '}
          <Text as="span" color="fg.error" fontWeight="semibold">
            {plural(skipped, 'row')} skipped
          </Text>{' '}
          <Button variant="plain" size="sm" p="0" h="auto" colorPalette="blue" color="colorPalette.fg" textDecoration="underline" verticalAlign="baseline" onClick={showSkipped}>
            {skipped === 1 ? 'See why' : 'See the list'}
          </Button>
        </>
      ) : null}
    </Text>
  );
}

/**
 * The bulk dialog (spec 4): upload -> processing -> complete; an error returns to upload with the
 * fields kept. Mounted while open, so closing (ignored while processing) resets every field.
 */
export function BulkCreateDialog({
  initialFile,
  subscription,
  target,
  onCreated,
  onClose,
}: {
  initialFile?: CsvFile;
  subscription?: SubscriptionStatus;
  /**
   * Add people to this existing project instead of creating one (the project page's 'Add people'):
   * its own name, type and platform; a CSV file, people typed in or a large upload, checked and
   * previewed the same way.
   */
  target?: Project;
  /** Accounts were created (or a job started): the page keeps the dialog open past the limit check. */
  onCreated: () => void;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  // Settings > Preferences: the expiration date and password length start from the user's defaults.
  const preferences = useUserSettings().data?.preferences;
  const form = useForm<UploadFormInput, unknown, UploadFormValues>({
    resolver: zodResolver(uploadFormSchema),
    defaultValues: target ? { ...uploadFormDefaultsWith(preferences), projectName: target.name, accountType: target.accountType, expirationDate: '' } : uploadFormDefaultsWith(preferences),
  });
  // The request names the project people are added to (its name, type and platform are its own).
  const toRequest = (values: UploadFormValues, rows: readonly CsvRow[]) => ({ ...toBulkCreateRequest(values, rows), ...(target ? { projectId: target.id } : {}) });
  const toUploadRequest = (values: UploadFormValues, checkOnly: boolean) => ({ ...toUploadStartRequest(values, checkOnly), ...(target ? { projectId: target.id } : {}) });
  const doneTitle = target ? 'People added successfully' : 'Accounts created successfully';
  const doneWords = target ? (n: number) => `${plural(n, 'person has', 'people have')} been added to ${target.name}.` : (n: number) => `${plural(n, 'account has', 'accounts have')} been created.`;
  const [file, setFile] = useState<CsvFile | undefined>(initialFile);
  const [reading, setReading] = useState(false);
  const [sentOutcome, setOutcome] = useState<Outcome>();
  const [showPasswords, setShowPasswords] = useState(false);
  const readToken = useRef(0);
  const create = useBulkCreateMutation();
  const exportProject = useExportProject();
  // A file over the request's size goes to S3 and is read there (docs/bulk-files.md).
  const upload = useUploadMutation();
  const startAgain = useStartUploadMutation();
  const [uploadProgress, setUploadProgress] = useState<UploadProgress>();
  const [uploadStarted, setUploadStarted] = useState<BulkUpload>();
  const lastValues = useRef<UploadFormValues>(undefined);
  const uploadQuery = useBulkUploadQuery(uploadStarted);
  const uploadState = uploadStarted ? uploadQuery.data : undefined;
  // An uploaded file's job, once its reading started one; row numbers are the file's lines (no rows were sent).
  const uploadOutcome = useMemo<Outcome | undefined>(() => {
    if (uploadState?.status !== 'queued' || !uploadState.project || !uploadState.job) return undefined;
    const summary = uploadState.summary ?? { total: uploadState.total ?? 0, successful: 0, failed: uploadState.failed ?? [], failedCount: uploadState.failedCount ?? 0 };
    return { kind: 'job', response: { project: uploadState.project, job: uploadState.job, summary }, sentRows: [] };
  }, [uploadState]);
  const outcome = sentOutcome ?? uploadOutcome;

  const started = outcome?.kind === 'job' ? outcome.response : undefined;
  const jobQuery = useBulkJobQuery(started?.job);
  const job = started ? jobQuery.data : undefined;
  const jobDone = !!job && jobFinished(job);

  const readingFile = uploadState?.status === 'started' || uploadState?.status === 'reading';
  // The report of a 'check first', or of a file none of whose rows (or too many for the plan) can be created.
  const report = uploadState?.status === 'checked' || uploadState?.status === 'failed' ? uploadState : undefined;
  const uploadStage = upload.isPending ? 'uploading' : readingFile ? 'reading' : report ? 'report' : undefined;
  const stage = uploadStage ?? (create.isPending || (started && !jobDone) ? 'processing' : outcome ? 'complete' : 'upload');
  // Progress that cannot be read must not trap the user: the job goes on without this window.
  const progressLost = (!!started && jobQuery.isError) || (readingFile && uploadQuery.isError);
  const busy = (stage === 'processing' || stage === 'uploading' || stage === 'reading') && !progressLost;

  // The reading ended with a job: it is followed as any job is (rows written).
  const uploadStatus = uploadState?.status;
  useEffect(() => {
    if (uploadStatus !== 'queued') return;
    onCreated();
    invalidateAfterBulkCreate(queryClient);
    // Once per reading that started a job.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [uploadStatus]);

  // A background job has ended: say so once and refresh what it changed.
  const jobStatus = job?.status;
  useEffect(() => {
    if (!started || !job || !jobFinished(job)) return;
    invalidateAfterBulkCreate(queryClient);
    if (jobStatus === 'completed') {
      toaster.create({ type: 'success', title: doneTitle, description: doneWords(job.done) });
    } else {
      toaster.create({
        type: 'error',
        title: 'Error creating accounts',
        description: `The job stopped${job.reason ? ` (${job.reason})` : ''}: ${plural(job.done, 'account was', 'accounts were')} created.`,
      });
    }
    // Once per job end: the status is what changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [jobStatus]);

  const chooseFile = async (chosen: File) => {
    const token = ++readToken.current;
    setReading(true);
    const read = await readCsvFile(chosen);
    if (token !== readToken.current) return; // a later choice wins
    setReading(false);
    if (read) setFile(read);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!form.getValues('projectName')?.trim()) {
      toaster.create({ type: 'error', title: 'Missing project name', description: 'Please enter a project name.' });
      return;
    }
    const rows = file?.result.valid ?? [];
    if (rows.length === 0 && !file?.partial) {
      toaster.create({ type: 'error', title: 'No CSV data', description: 'Please upload a CSV file with user data.' });
      return;
    }
    void form.handleSubmit((values) => {
      if (file?.route === 'upload' && file.file) {
        lastValues.current = values;
        setUploadProgress(undefined);
        upload.mutate({ file: file.file, request: toUploadRequest(values, values.checkFirst), onProgress: setUploadProgress }, { onSuccess: setUploadStarted });
        return;
      }
      create.mutate(toRequest(values, rows), {
        onSuccess: (response) => {
          onCreated();
          if (isJobStarted(response)) {
            setOutcome({ kind: 'job', response, sentRows: rows });
            return;
          }
          setOutcome({ kind: 'done', response, sentRows: rows });
          toaster.create({ type: 'success', title: doneTitle, description: doneWords(response.summary.successful) });
        },
      });
    }, (errors) => {
      // The shared schema's "no character class" has no field of its own to show under: say it here.
      const noClass = errors.passwordSettings?.includeUppercase?.message;
      if (noClass) toaster.create({ type: 'error', title: 'Invalid password settings', description: noClass });
    })(event);
  };

  const projectName = useWatch({ control: form.control, name: 'projectName' }) ?? '';
  // More rows than the plan allows: the server would refuse them all, so Generate stays off.
  const overPlan = subscription && file && !file.partial ? planWarningFor(subscription, file.result.valid.length, target) !== undefined : false;
  const canSubmit = projectName.trim() !== '' && ((file?.result.valid.length ?? 0) > 0 || !!file?.partial) && !create.isPending && !upload.isPending && !reading && !overPlan;
  const createChecked = () => {
    if (!report || !lastValues.current) return;
    startAgain.mutate({ id: report.id, request: toUploadRequest(lastValues.current, false) }, { onSuccess: setUploadStarted });
  };
  const project = outcome?.response.project;

  const downloadCsv = () => {
    if (outcome?.kind === 'done') {
      const rows = outcome.response.accounts.map((account) => ({ ...account, password: account.plainPassword }));
      saveCsv(createdAccountsCsv(rows), accountsFileName(outcome.response.project.name));
    } else if (project) {
      exportProject.mutate(project);
    }
  };

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
      open
      onOpenChange={(details) => {
        if (!details.open && !busy) onClose();
      }}
      size="xl"
      scrollBehavior="inside"
      closeOnInteractOutside={!busy}
      closeOnEscape={!busy}
      placement="center"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content aria-busy={busy}>
            <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
              <Dialog.Title>{target ? `Add people to ${target.name}` : 'Bulk Create Accounts'}</Dialog.Title>
              <Dialog.Description>
                {stage === 'upload'
                  ? target
                    ? 'Upload a CSV file or type the people in: their accounts join this project after its last one.'
                    : 'Upload a CSV file of people and choose how their accounts are made.'
                  : stage === 'uploading' || stage === 'reading'
                    ? 'Your file is uploaded, then every row is read and checked on the server.'
                    : stage === 'report'
                      ? 'Every row of your file was checked.'
                  : stage === 'processing'
                    ? job?.status === 'queued'
                      ? 'Your accounts will be created when the job starts.'
                      : target
                        ? 'The people are being added.'
                        : 'Your accounts are being created.'
                    : `Project ${project?.name ?? ''}`}
              </Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              {stage === 'uploading' ? (
                <FileProgress
                  title="Uploading the file..."
                  percent={uploadProgress && uploadProgress.total > 0 ? (uploadProgress.loaded / uploadProgress.total) * 100 : 0}
                  detail={`${megabytes(uploadProgress?.loaded ?? 0)} of ${megabytes(uploadProgress?.total ?? file?.size ?? 0)} MB uploaded`}
                  label="Upload progress"
                />
              ) : stage === 'reading' && uploadState ? (
                <Stack gap="3">
                  <FileProgress
                    title={uploadState.status === 'started' ? 'Uploaded — waiting to be read' : 'Reading the file...'}
                    percent={uploadState.bytes ? (uploadState.bytesRead / uploadState.bytes) * 100 : 0}
                    detail={`${plural(uploadState.rowsRead, 'row')} read`}
                    label="Reading progress"
                  />
                  {progressLost ? (
                    <Alert.Root status="warning">
                      <Alert.Indicator />
                      <Alert.Description>The file&apos;s progress cannot be read right now (still trying). You can close this window: the accounts appear in Projects.</Alert.Description>
                    </Alert.Root>
                  ) : null}
                </Stack>
              ) : stage === 'report' && report ? (
                <FileReport report={report} />
              ) : stage === 'upload' ? (
                <BulkUploadStage
                  form={form}
                  file={file}
                  reading={reading}
                  onFile={(chosen) => void chooseFile(chosen)}
                  subscription={subscription}
                  onSubmit={submit}
                  {...(target ? { target } : {})}
                />
              ) : stage === 'processing' ? (
                job && started ? (
                  <Stack gap="3">
                    <JobProgress status={job.status} done={job.done} failed={job.failedCount} total={job.total} {...(job.waitReason ? { waitReason: job.waitReason } : {})} />
                    <ProvisioningOutcome summary={started.summary} />
                    <MailOutcome summary={started.summary} />
                    {progressLost ? (
                      <Alert.Root status="warning">
                        <Alert.Indicator />
                        <Alert.Description>
                          The job&apos;s progress cannot be read right now (still trying). You can close this window:
                          the accounts keep being created and appear in Projects.
                        </Alert.Description>
                      </Alert.Root>
                    ) : null}
                  </Stack>
                ) : (
                  <SimulatedProgress />
                )
              ) : outcome?.kind === 'done' ? (
                <CreatedAccountsResult
                  rows={outcome.response.accounts.map((account) => ({ ...account, password: account.plainPassword }))}
                  created={outcome.response.summary.successful}
                  problems={failedRowProblems(outcome.response.summary, outcome.sentRows)}
                  failedTotal={rejectedCount(outcome.response.summary)}
                  rejectedDownload={<RejectedRowsDownload project={outcome.response.project} summary={outcome.response.summary} sentRows={outcome.sentRows} />}
                  provisioning={
                    <>
                      <ProvisioningOutcome summary={outcome.response.summary} />
                      <MailOutcome summary={outcome.response.summary} />
                    </>
                  }
                  showPasswords={showPasswords}
                  onTogglePasswords={() => setShowPasswords((shown) => !shown)}
                  tableMaxH="80"
                />
              ) : outcome?.kind === 'job' && job ? (
                <JobResult
                  projectId={outcome.response.project.id}
                  projectName={outcome.response.project.name}
                  job={job}
                  summary={outcome.response.summary}
                  sentRows={outcome.sentRows}
                  provisioning={
                    <>
                      {/* People added to a project: the run and the send start once the job has ended, and the job names them. */}
                      <ProvisioningOutcome summary={{ ...outcome.response.summary, ...followUpsOf(job) }} />
                      <MailOutcome summary={{ ...outcome.response.summary, ...followUpsOf(job) }} />
                    </>
                  }
                  showPasswords={showPasswords}
                  onTogglePasswords={() => setShowPasswords((shown) => !shown)}
                />
              ) : null}
            </Dialog.Body>
            {stage === 'report' && report ? (
              <Dialog.Footer flexWrap="wrap">
                <Button variant="outline" onClick={() => setUploadStarted(undefined)}>
                  Back
                </Button>
                {report.status === 'checked' && (report.validCount ?? 0) > 0 ? (
                  <Button colorPalette="blue" onClick={createChecked} loading={startAgain.isPending}>
                    Create {plural(report.validCount ?? 0, 'account', 'accounts')}
                  </Button>
                ) : null}
              </Dialog.Footer>
            ) : stage === 'upload' ? (
              <Dialog.Footer flexWrap="wrap">
                <Stack gap="0.5" me="auto" minW="0">
                  {file ? <FileReadySummary file={file} /> : null}
                  {overPlan ? (
                    <Text id={OVER_PLAN_ID} fontSize="sm" fontWeight="medium">
                      Too many rows for your plan: choose a smaller file or upgrade.
                    </Text>
                  ) : null}
                </Stack>
                <Dialog.ActionTrigger asChild>
                  <Button variant="outline">Cancel</Button>
                </Dialog.ActionTrigger>
                <Button
                  type="submit"
                  form={UPLOAD_FORM_ID}
                  colorPalette="blue"
                  disabled={!canSubmit}
                  loading={create.isPending || upload.isPending}
                  aria-describedby={[file ? FILE_SUMMARY_ID : '', overPlan ? OVER_PLAN_ID : ''].filter(Boolean).join(' ') || undefined}
                >
                  {target ? 'Add people' : 'Generate Accounts'}
                </Button>
              </Dialog.Footer>
            ) : stage === 'complete' && project ? (
              <Dialog.Footer flexWrap="wrap">
                {target ? null : (
                  <Button asChild variant="ghost">
                    <RouterLink to={`/projects/${encodeURIComponent(project.id)}`}>View project</RouterLink>
                  </Button>
                )}
                <Button variant="outline" onClick={downloadCsv} loading={exportProject.isPending}>
                  <DownloadIcon aria-hidden="true" />
                  Download CSV
                </Button>
                <Dialog.ActionTrigger asChild>
                  <Button colorPalette="blue">Done</Button>
                </Dialog.ActionTrigger>
              </Dialog.Footer>
            ) : null}
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

/** What a job adding people to a project started once it ended (GET /api/bulk-jobs/{id}). */
const followUpsOf = (job: BulkJob): Partial<BulkCreateSummary> =>
  Object.fromEntries((['provisioningJobId', 'provisioningError', 'mailSendId', 'mailSendError'] as const).filter((key) => job[key] !== undefined).map((key) => [key, job[key]]));

const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** An uploaded file's real progress: its bytes sent, then its bytes and rows read on the server. */
function FileProgress({ title, percent, detail, label }: { title: string; percent: number; detail: string; label: string }) {
  return (
    <Stack gap="4" py="4">
      <Text fontWeight="semibold" fontSize="lg" textAlign="center" role="status">
        {title}
      </Text>
      <Progress.Root value={Math.min(100, Math.round(percent))} max={100} colorPalette="blue" size="lg" aria-label={label}>
        <HStack justify="space-between" mb="1">
          <Progress.Label fontSize="sm">{detail}</Progress.Label>
          <Progress.ValueText />
        </HStack>
        <Progress.Track borderRadius="full">
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
    </Stack>
  );
}

/** What the server found in every row of an uploaded file: counts, the problems with their lines, the rejected rows. */
function FileReport({ report }: { report: BulkUpload }) {
  const download = useUploadReportDownload();
  const failed = report.failed ?? [];
  const failedCount = report.failedCount ?? 0;
  return (
    <Stack gap="4" data-testid="file-report">
      {report.status === 'failed' && report.reason ? (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Description>
            {report.reason} Nothing was created{report.total === undefined ? ': choose another file with Back.' : '.'}
          </Alert.Description>
        </Alert.Root>
      ) : null}
      {report.total === undefined ? null : (
      <HStack gap="2" wrap="wrap">
        <Text fontWeight="medium">{plural(report.total, 'row', 'rows')} read</Text>
        <Badge colorPalette="green" variant="subtle">
          {(report.validCount ?? 0).toLocaleString()} can be created
        </Badge>
        {failedCount ? (
          <Badge colorPalette="red" variant="subtle">
            {failedCount.toLocaleString()} with problems
          </Badge>
        ) : null}
      </HStack>
      )}
      {report.total === undefined ? null : failedCount ? (
        <Box>
          <RowProblemsList label="Rows with problems" problems={failed.map((row) => ({ label: `Row ${row.row}`, field: row.field, message: row.message }))} />
          <Stack gap="1" mt="2" align="flex-start">
            {failed.length < failedCount ? (
              <Text fontSize="sm" color="fg.muted">
                The list shows the first {failed.length.toLocaleString()} of {failedCount.toLocaleString()} rows with problems; the download has them all.
              </Text>
            ) : null}
            {report.rejectedRowsUrl ? (
              <Button size="xs" variant="outline" loading={download.isPending} onClick={() => download.mutate({ url: report.rejectedRowsUrl!, name: 'upload' })}>
                <DownloadIcon aria-hidden="true" />
                Download rejected rows
              </Button>
            ) : null}
          </Stack>
        </Box>
      ) : (
        <Text fontSize="sm">Every row can be created.</Text>
      )}
    </Stack>
  );
}

/** A synchronous request reports no progress: spec 4's simulated bar. */
function SimulatedProgress() {
  const percent = useSimulatedProgress();
  return <BulkProcessingStage percent={percent} />;
}

/** A background job's real progress, or that it has not started yet. */
function JobProgress({ status, done, failed, total, waitReason }: { status: BulkJob['status']; done: number; failed: number; total: number; waitReason?: string }) {
  const processed = done + failed;
  const percent = total > 0 ? (processed / total) * 100 : 0;
  if (status === 'queued') {
    return <BulkProcessingStage queued percent={0} detail={`${plural(total, 'row', 'rows')} waiting to start`} {...(waitReason ? { waitReason } : {})} />;
  }
  return (
    <BulkProcessingStage
      percent={percent}
      detail={`${processed.toLocaleString('en-US')} of ${plural(total, 'row')} processed${failed ? ` (${failed.toLocaleString('en-US')} failed)` : ''}`}
    />
  );
}

/**
 * The provisioning of the new accounts, apart from their creation: the run's progress (followed
 * until it ends), or why it could not start (the accounts exist; the project can start it).
 */
function ProvisioningOutcome({ summary }: { summary: BulkCreateSummary }) {
  const run = useProvisioningJobQuery(summary.provisioningJobId);
  if (summary.provisioningError) {
    return (
      <Alert.Root status="warning">
        <Alert.Indicator />
        <Alert.Description>{summary.provisioningError}</Alert.Description>
      </Alert.Root>
    );
  }
  if (!summary.provisioningJobId) return null;
  if (!run.data) {
    return run.isError ? (
      <Text fontSize="sm" color="fg.warning">
        The provisioning run&apos;s progress cannot be read right now. It goes on without this window: the project shows it.
      </Text>
    ) : null;
  }
  return <ProvisioningProgress job={run.data} lost={run.isError} />;
}

/**
 * The credential e-mails of the new accounts (E-mail the account holders): how many were queued,
 * and the send's progress, followed here while the window is open; or why they could not start.
 */
function MailOutcome({ summary }: { summary: BulkCreateSummary }) {
  const send = useMailSendQuery(summary.mailSendId);
  if (summary.mailSendError) {
    return (
      <Alert.Root status="warning">
        <Alert.Indicator />
        <Alert.Description>{summary.mailSendError}</Alert.Description>
      </Alert.Root>
    );
  }
  if (!summary.mailSendId || !send.data) return null;
  const queued = send.data.total;
  return (
    <Stack gap="2">
      <Text fontSize="sm" fontWeight="medium" data-testid="credentials-queued">
        {send.data.status === 'waiting' ? 'The credential e-mails go out once the accounts are created.' : `${plural(queued, 'credential e-mail')} queued.`}
      </Text>
      <MailSendProgress send={send.data} lost={send.isError} />
    </Stack>
  );
}
