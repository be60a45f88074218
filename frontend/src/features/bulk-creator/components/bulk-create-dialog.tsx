import { Alert, Button, CloseButton, Dialog, Portal, Stack, Text } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { DownloadIcon } from 'lucide-react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import { useUserSettings } from '../../../lib/user-settings-api';
import { useQueryClient } from '@tanstack/react-query';
import type { CsvRow } from '@shared/csv/read-people';
import type { BulkCreateSummary, BulkJob } from '@shared/schemas/bulk';
import type { SubscriptionStatus } from '@shared/schemas/project';
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
import { useSimulatedProgress } from '../hooks/use-simulated-progress';
import { accountsFileName, createdAccountsCsv } from '../lib/created-accounts-csv';
import { readCsvFile, type CsvFile } from '../lib/read-csv-file';
import { toBulkCreateRequest, uploadFormDefaultsWith, uploadFormSchema, type UploadFormInput, type UploadFormValues } from '../lib/upload-form';
import { BulkProcessingStage } from './bulk-processing-stage';
import { CreatedAccountsResult, failedRowProblems, JobResult, rejectedCount, RejectedRowsDownload } from './bulk-complete-stage';
import { BulkUploadStage, planWarningFor, UPLOAD_FORM_ID } from './bulk-upload-stage';

type Outcome =
  | { kind: 'done'; response: BulkCreateDone; sentRows: CsvRow[] }
  | { kind: 'job'; response: BulkCreateStarted; sentRows: CsvRow[] };

const OVER_PLAN_ID = 'bulk-over-plan-reason';

const plural = (count: number, one: string, many: string) => `${count.toLocaleString()} ${count === 1 ? one : many}`;

/**
 * The bulk dialog (spec 4): upload -> processing -> complete; an error returns to upload with the
 * fields kept. Mounted while open, so closing (ignored while processing) resets every field.
 */
export function BulkCreateDialog({
  initialFile,
  subscription,
  onCreated,
  onClose,
}: {
  initialFile?: CsvFile;
  subscription?: SubscriptionStatus;
  /** Accounts were created (or a job started): the page keeps the dialog open past the limit check. */
  onCreated: () => void;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  // Settings > Preferences: the expiration date and password length start from the user's defaults.
  const preferences = useUserSettings().data?.preferences;
  const form = useForm<UploadFormInput, unknown, UploadFormValues>({
    resolver: zodResolver(uploadFormSchema),
    defaultValues: uploadFormDefaultsWith(preferences),
  });
  const [file, setFile] = useState<CsvFile | undefined>(initialFile);
  const [reading, setReading] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const [showPasswords, setShowPasswords] = useState(false);
  const readToken = useRef(0);
  const create = useBulkCreateMutation();
  const exportProject = useExportProject();

  const started = outcome?.kind === 'job' ? outcome.response : undefined;
  const jobQuery = useBulkJobQuery(started?.job);
  const job = started ? jobQuery.data : undefined;
  const jobDone = !!job && jobFinished(job);

  const stage = create.isPending || (started && !jobDone) ? 'processing' : outcome ? 'complete' : 'upload';
  // Progress that cannot be read must not trap the user: the job goes on without this window.
  const progressLost = !!started && jobQuery.isError;
  const busy = stage === 'processing' && !progressLost;

  // A background job has ended: say so once and refresh what it changed.
  const jobStatus = job?.status;
  useEffect(() => {
    if (!started || !job || !jobFinished(job)) return;
    invalidateAfterBulkCreate(queryClient);
    if (jobStatus === 'completed') {
      toaster.create({
        type: 'success',
        title: 'Accounts created successfully',
        description: `${plural(job.done, 'account has', 'accounts have')} been created.`,
      });
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
    if (rows.length === 0) {
      toaster.create({ type: 'error', title: 'No CSV data', description: 'Please upload a CSV file with user data.' });
      return;
    }
    void form.handleSubmit((values) => {
      create.mutate(toBulkCreateRequest(values, rows), {
        onSuccess: (response) => {
          onCreated();
          if (isJobStarted(response)) {
            setOutcome({ kind: 'job', response, sentRows: rows });
            return;
          }
          setOutcome({ kind: 'done', response, sentRows: rows });
          toaster.create({
            type: 'success',
            title: 'Accounts created successfully',
            description: `${plural(response.summary.successful, 'account has', 'accounts have')} been created.`,
          });
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
  const overPlan = subscription && file ? planWarningFor(subscription, file.result.valid.length) !== undefined : false;
  const canSubmit = projectName.trim() !== '' && (file?.result.valid.length ?? 0) > 0 && !create.isPending && !reading && !overPlan;
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
    <Dialog.Root
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
              <Dialog.Title>Bulk Create Accounts</Dialog.Title>
              <Dialog.Description>
                {stage === 'upload'
                  ? 'Upload a CSV file of people and choose how their accounts are made.'
                  : stage === 'processing'
                    ? job?.status === 'queued'
                      ? 'Your accounts will be created when the job starts.'
                      : 'Your accounts are being created.'
                    : `Project ${project?.name ?? ''}`}
              </Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              {stage === 'upload' ? (
                <BulkUploadStage
                  form={form}
                  file={file}
                  reading={reading}
                  onFile={(chosen) => void chooseFile(chosen)}
                  subscription={subscription}
                  onSubmit={submit}
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
                      <ProvisioningOutcome summary={outcome.response.summary} />
                      <MailOutcome summary={outcome.response.summary} />
                    </>
                  }
                  showPasswords={showPasswords}
                  onTogglePasswords={() => setShowPasswords((shown) => !shown)}
                />
              ) : null}
            </Dialog.Body>
            {stage === 'upload' ? (
              <Dialog.Footer flexWrap="wrap">
                {overPlan ? (
                  <Text id={OVER_PLAN_ID} fontSize="sm" fontWeight="medium" me="auto">
                    Too many rows for your plan: choose a smaller file or upgrade.
                  </Text>
                ) : null}
                <Dialog.ActionTrigger asChild>
                  <Button variant="outline">Cancel</Button>
                </Dialog.ActionTrigger>
                <Button
                  type="submit"
                  form={UPLOAD_FORM_ID}
                  colorPalette="blue"
                  disabled={!canSubmit}
                  loading={create.isPending}
                  aria-describedby={overPlan ? OVER_PLAN_ID : undefined}
                >
                  Generate Accounts
                </Button>
              </Dialog.Footer>
            ) : stage === 'complete' && project ? (
              <Dialog.Footer flexWrap="wrap">
                <Button asChild variant="ghost">
                  <RouterLink to={`/projects/${encodeURIComponent(project.id)}`}>View project</RouterLink>
                </Button>
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
      detail={`${processed.toLocaleString()} of ${total.toLocaleString()} rows processed${failed ? ` (${failed.toLocaleString()} failed)` : ''}`}
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
        {send.data.status === 'waiting' ? 'The credential e-mails go out once the accounts are created.' : `${queued.toLocaleString()} credential ${queued === 1 ? 'e-mail' : 'e-mails'} queued.`}
      </Text>
      <MailSendProgress send={send.data} lost={send.isError} />
    </Stack>
  );
}
