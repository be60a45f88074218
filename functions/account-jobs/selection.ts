import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { rowRanges } from '../accounts/account-partitions';
import { rowOf } from '../accounts/account-states';
import { listedFailures } from './job-failures';
import type { ChunkRange, JobItem } from './kind';

/**
 * Which of a project's accounts a job takes. A job over every account (a provisioning run, a
 * send to all) plans every shard's rows (rowRanges) and its work keeps the accounts of its chunk
 * that it takes (their state: pending, failed, ...). A job over a selected set (the bulk actions
 * of a project's page: deactivate, reactivate, delete, send credentials or reset the passwords of
 * the accounts ticked) stores the rows of its accounts on the job (`rows`) and plans only the
 * chunks that hold one of them, so 10 accounts of a 50,000-account project cost one chunk or a
 * few, not 200.
 */

/** The most accounts one job names (its `rows`, a list of numbers on the job item: well under DynamoDB's 400 KB). */
export const MAX_SELECTED_ACCOUNTS = 10_000;

/** An account id is `<projectId>.<row>` (keys.accountId): its row, when it is one of this project's. */
export function rowOfAccount(projectId: string, accountId: string): number | undefined {
  const prefix = `${projectId}.`;
  if (!accountId.startsWith(prefix)) return undefined;
  const row = accountId.slice(prefix.length);
  return /^\d{1,9}$/.test(row) && Number(row) > 0 ? Number(row) : undefined;
}

/** The rows of the listed accounts of a project, sorted, each once; undefined when an id is not one of the project's (the route answers 404). */
export function selectedRows(projectId: string, accountIds: readonly string[]): number[] | undefined {
  const rows = new Set<number>();
  for (const id of accountIds) {
    const row = rowOfAccount(projectId, id);
    if (row === undefined) return undefined;
    rows.add(row);
  }
  return [...rows].sort((a, b) => a - b);
}

/**
 * The chunks of a job over the selected rows: the project's chunks (rowRanges) that hold at least
 * one of them, numbered again from 0 in the same order. A row lives in shard row % shards. The
 * same arguments always give the same chunks (a plan that runs twice queues the same messages).
 */
export function selectedRanges(shards: number, rows: readonly number[], accountsPerChunk: number): ChunkRange[] {
  if (!rows.length) return [];
  const maxRow = Math.max(...rows);
  const width = Math.max(1, shards);
  return rowRanges(width, maxRow, accountsPerChunk)
    .filter((range) => rows.some((row) => row % width === range.shard && row >= range.fromRow && row <= range.toRow))
    .map((range, chunk) => ({ ...range, chunk }));
}

/** The rows a job names (`rows` on the job item), or undefined for a job over every account of its project. */
export const rowsOf = (job: JobItem): ReadonlySet<number> | undefined => (Array.isArray(job.rows) ? new Set(job.rows.map(Number)) : undefined);

/** Whether an account of the job's project is one the job takes by selection (every one for a job that names none). */
export const isSelected = (rows: ReadonlySet<number> | undefined, account: Record<string, unknown>): boolean => !rows || rows.has(rowOf(account));

/**
 * The first `limit` accounts of a job's project that it failed (its run marker and a failed
 * result: `failed`, and as a query, `filter`), in row order, mapped by `map`. A job of a kind that
 * `listsFailures` reads the failed rows kept beside it and those accounts by key (job-failures.ts:
 * in proportion to the failures shown); a job started before those were kept (no
 * `failuresListed`) is read through the project's partitions.
 */
export async function accountsOfJob<T>(
  deps: { db: DynamoDBDocumentClient; tableName: string },
  job: JobItem,
  query: { failed: (account: Record<string, unknown>) => boolean; filter: string; projection: string; values: Record<string, unknown> },
  limit: number,
  map: (account: Record<string, unknown>) => T,
): Promise<T[]> {
  if (job.failuresListed === true) return listedFailures(deps, { SK: String(job.SK) }, job, query.failed, limit, map);
  const found: T[] = [];
  for (const pk of keys.accountPartitions(String(job.userId), String(job.projectId), Number(job.shards ?? 1))) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await deps.db.send(
        new QueryCommand({
          TableName: deps.tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :account)',
          FilterExpression: query.filter,
          ProjectionExpression: query.projection,
          ExpressionAttributeValues: { ':pk': pk, ':account': 'ACCOUNT#', ...query.values },
          ExclusiveStartKey: start,
        }),
      );
      for (const account of page.Items ?? []) {
        found.push(map(account));
        if (found.length >= limit) return found;
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return found;
}
