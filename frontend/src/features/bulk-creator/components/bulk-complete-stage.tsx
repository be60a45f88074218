import { Alert, Box, Button, HStack, Stack, Text } from '@chakra-ui/react';
import { DownloadIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import type { BulkCreateSummary, BulkJob } from '@shared/schemas/bulk';
import { rejectedRowsCsv, type CsvRow } from '@shared/csv/read-people';
import type { Project } from '@shared/schemas/project';
import { ListSkeleton } from '../../../components/list-skeleton';
import { PasswordVisibilityButton } from '../../../components/password-visibility-button';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useProjectAccountsQuery } from '../../../lib/projects-api';
import { saveCsv } from '../../../lib/save-file';
import { useRejectedRowsDownload } from '../api/bulk-create-api';
import type { CredentialRow } from '../lib/created-accounts-csv';
import { CredentialsTable } from './credentials-table';
import { RowProblemsList, type RowProblem } from './row-problems-list';
import { LoadMoreBar } from '../../../components/load-more-bar';
import { plural } from '@shared/text/plural';

const count = (value: number) => value.toLocaleString();

/** Server row numbers count the rows sent (1-based); the user knows them by their line in the file. */
export function failedRowProblems(summary: BulkCreateSummary, sentRows: readonly Pick<CsvRow, 'row'>[], rowLabel = 'Row'): RowProblem[] {
  return summary.failed.map((failed) => ({
    label: `${rowLabel} ${sentRows[failed.row - 1]?.row ?? failed.row}`,
    field: failed.field,
    message: failed.message,
  }));
}

/** Every rejected row of a summary: how many there are, and whether the response listed them all. */
export const rejectedCount = (summary: BulkCreateSummary): number => summary.failedCount ?? summary.failed.length;

/** The rejected rows a response listed, as the file's rows (line, names) with the server's reason. */
export function rejectedRowsOf(summary: BulkCreateSummary, sentRows: readonly Partial<Pick<CsvRow, 'row' | 'firstName' | 'lastName' | 'email'>>[]): CsvRow[] {
  return summary.failed.map((failed) => {
    const sent = sentRows[failed.row - 1];
    return {
      row: sent?.row ?? failed.row,
      firstName: sent?.firstName ?? '',
      lastName: sent?.lastName ?? '',
      email: sent?.email ?? failed.email ?? '',
      raw: [],
      issues: [{ ...(failed.field ? { field: failed.field } : {}), message: failed.message }],
    };
  });
}

/**
 * 'Download rejected rows' after a creation. When the response listed every rejected row, the
 * file is made here with the rows' own lines; when it listed only the first few (or a job could
 * not store some rows), the full report is fetched from the server.
 */
export function RejectedRowsDownload({
  project,
  summary,
  sentRows,
  failedInJob = 0,
}: {
  project: Pick<Project, 'id' | 'name'>;
  summary: BulkCreateSummary;
  sentRows: readonly Partial<Pick<CsvRow, 'row' | 'firstName' | 'lastName' | 'email'>>[];
  /** Rows a background job could not store: only the server's report lists them. */
  failedInJob?: number;
}) {
  const download = useRejectedRowsDownload();
  const total = rejectedCount(summary) + failedInJob;
  if (total === 0) return null;
  // No rows sent (an uploaded file, read on the server): only the server's report has their names.
  const complete = failedInJob === 0 && summary.failed.length >= rejectedCount(summary) && sentRows.length > 0;
  return (
    <Stack gap="1" align="flex-start">
      {complete ? null : (
        <Text fontSize="sm" color="fg.muted">
          {summary.failed.length < rejectedCount(summary)
            ? `The list shows the first ${count(summary.failed.length)} of ${count(rejectedCount(summary))} rejected rows; the download has them all.`
            : 'The download lists every row that was not created.'}
        </Text>
      )}
      <Button
        size="xs"
        variant="outline"
        loading={download.isPending}
        onClick={() =>
          complete ? saveCsv(rejectedRowsCsv(rejectedRowsOf(summary, sentRows)), `${project.name}_rejected_rows.csv`) : download.mutate(project)
        }
      >
        <DownloadIcon aria-hidden="true" />
        Download rejected rows
      </Button>
    </Stack>
  );
}

/** What was created (credentials, passwords masked until shown) and what was not. */
export function CreatedAccountsResult({
  rows,
  created,
  problems,
  failedTotal,
  failedWithoutDetail = 0,
  rejectedDownload,
  provisioning,
  showPasswords,
  onTogglePasswords,
  tableMaxH,
}: {
  rows: readonly CredentialRow[];
  created: number;
  problems: RowProblem[];
  /** Rows refused up front when the response listed only some of them (summary.failedCount). */
  failedTotal?: number;
  /** Rows a background job could not store (it reports a count only). */
  failedWithoutDetail?: number;
  /** The 'Download rejected rows' control, when there is something to download. */
  rejectedDownload?: ReactNode;
  /** The accounts' provisioning to a platform, shown apart from their creation, right under it. */
  provisioning?: ReactNode;
  showPasswords: boolean;
  onTogglePasswords: () => void;
  tableMaxH?: string;
}) {
  const failed = Math.max(problems.length, failedTotal ?? 0) + failedWithoutDetail;
  return (
    <Stack gap="4">
      <Alert.Root status={created === 0 ? 'error' : failed ? 'warning' : 'success'}>
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>
            {plural(created, 'account')} created
            {failed ? `, ${plural(failed, 'row')} not created` : ''}
          </Alert.Title>
          <Alert.Description>
            Download the credentials now: they are also in the project&apos;s export.
          </Alert.Description>
        </Alert.Content>
      </Alert.Root>
      {provisioning}
      {problems.length ? <RowProblemsList label="Rows not created" problems={problems} /> : null}
      {failedWithoutDetail ? (
        <Text fontSize="sm" color="fg.error">
          {plural(failedWithoutDetail, 'row')} could not be stored.
        </Text>
      ) : null}
      {rejectedDownload ? <Box>{rejectedDownload}</Box> : null}
      {rows.length ? (
        <Stack gap="2">
          <HStack justify="space-between" wrap="wrap" gap="2">
            <Text fontWeight="semibold" fontSize="sm">
              Created accounts
            </Text>
            <PasswordVisibilityButton shown={showPasswords} onToggle={onTogglePasswords} />
          </HStack>
          <CredentialsTable rows={rows} showPasswords={showPasswords} caption="Created accounts" maxH={tableMaxH} />
        </Stack>
      ) : null}
    </Stack>
  );
}

/** A background job's result: its counts, then the stored accounts read back 50 at a time. */
export function JobResult({
  projectId,
  projectName,
  job,
  summary,
  sentRows,
  provisioning,
  showPasswords,
  onTogglePasswords,
}: {
  projectId: string;
  projectName: string;
  job: BulkJob;
  summary: BulkCreateSummary;
  sentRows: readonly Pick<CsvRow, 'row' | 'firstName' | 'lastName' | 'email'>[];
  provisioning?: ReactNode;
  showPasswords: boolean;
  onTogglePasswords: () => void;
}) {
  const accounts = useProjectAccountsQuery(projectId, true, job.done > 0);
  const rows: CredentialRow[] = accounts.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <Stack gap="3">
      {job.status === 'failed' ? (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Description>
            The background job stopped{job.reason ? `: ${job.reason}` : ' before every row was processed.'} You can start a new creation now.
          </Alert.Description>
        </Alert.Root>
      ) : null}
      <CreatedAccountsResult
        rows={rows}
        created={job.done}
        problems={failedRowProblems(summary, sentRows)}
        failedTotal={rejectedCount(summary)}
        failedWithoutDetail={job.failedCount}
        rejectedDownload={<RejectedRowsDownload project={{ id: projectId, name: projectName }} summary={summary} sentRows={sentRows} failedInJob={job.failedCount} />}
        provisioning={provisioning}
        showPasswords={showPasswords}
        onTogglePasswords={onTogglePasswords}
        tableMaxH="80"
      />
      {job.done > 0 && accounts.isPending ? <ListSkeleton rows={3} label="Loading created accounts" /> : null}
      {accounts.isError ? (
        <QueryErrorCard
          message="Failed to load the created accounts."
          onRetry={() => void accounts.refetch()}
          retrying={accounts.isFetching}
        />
      ) : null}
      {rows.length ? (
        <LoadMoreBar
          shown={rows.length}
          total={job.done}
          hasMore={accounts.hasNextPage}
          loading={accounts.isFetchingNextPage}
          onLoadMore={() => void accounts.fetchNextPage()}
        />
      ) : null}
    </Stack>
  );
}
