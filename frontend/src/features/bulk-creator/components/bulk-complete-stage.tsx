import { Alert, HStack, Stack, Text } from '@chakra-ui/react';
import type { BulkCreateSummary, BulkJob } from '@shared/schemas/bulk';
import type { CsvRow } from '@shared/csv/read-people';
import { ListSkeleton } from '../../../components/list-skeleton';
import { PasswordVisibilityButton } from '../../../components/password-visibility-button';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useProjectAccountsQuery } from '../../../lib/projects-api';
import type { CredentialRow } from '../lib/created-accounts-csv';
import { CredentialsTable } from './credentials-table';
import { RowProblemsList, type RowProblem } from './row-problems-list';
import { LoadMoreBar } from '../../../components/load-more-bar';

const count = (value: number) => value.toLocaleString();

/** Server row numbers count the rows sent (1-based); the user knows them by their line in the file. */
export function failedRowProblems(summary: BulkCreateSummary, sentRows: readonly Pick<CsvRow, 'row'>[], rowLabel = 'Row'): RowProblem[] {
  return summary.failed.map((failed) => ({
    label: `${rowLabel} ${sentRows[failed.row - 1]?.row ?? failed.row}`,
    field: failed.field,
    message: failed.message,
  }));
}

/** What was created (credentials, passwords masked until shown) and what was not. */
export function CreatedAccountsResult({
  rows,
  created,
  problems,
  failedWithoutDetail = 0,
  showPasswords,
  onTogglePasswords,
  tableMaxH,
}: {
  rows: readonly CredentialRow[];
  created: number;
  problems: RowProblem[];
  /** Rows a background job could not store (it reports a count only). */
  failedWithoutDetail?: number;
  showPasswords: boolean;
  onTogglePasswords: () => void;
  tableMaxH?: string;
}) {
  const failed = problems.length + failedWithoutDetail;
  return (
    <Stack gap="4">
      <Alert.Root status={created === 0 ? 'error' : failed ? 'warning' : 'success'}>
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>
            {count(created)} {created === 1 ? 'account' : 'accounts'} created
            {failed ? `, ${count(failed)} ${failed === 1 ? 'row' : 'rows'} not created` : ''}
          </Alert.Title>
          <Alert.Description>
            Download the credentials now: they are also in the project&apos;s export.
          </Alert.Description>
        </Alert.Content>
      </Alert.Root>
      {problems.length ? <RowProblemsList label="Rows not created" problems={problems} /> : null}
      {failedWithoutDetail ? (
        <Text fontSize="sm" color="fg.error">
          {count(failedWithoutDetail)} {failedWithoutDetail === 1 ? 'row' : 'rows'} could not be stored.
        </Text>
      ) : null}
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
  job,
  summary,
  sentRows,
  showPasswords,
  onTogglePasswords,
}: {
  projectId: string;
  job: BulkJob;
  summary: BulkCreateSummary;
  sentRows: readonly Pick<CsvRow, 'row'>[];
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
          <Alert.Description>The background job stopped before every row was processed.</Alert.Description>
        </Alert.Root>
      ) : null}
      <CreatedAccountsResult
        rows={rows}
        created={job.done}
        problems={failedRowProblems(summary, sentRows)}
        failedWithoutDetail={job.failedCount}
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
