import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { queryItems, queryPages } from '../core/query-pages';
import { plural } from '../../shared/text/plural';
import { rowRanges, shardsOf } from '../accounts/account-partitions';
import { addBlock, emptyStates, overlayState, rowOf, withStates, type StateChannel, type StateEntry } from '../accounts/account-states';
import { accountFilters, type AccountFilter } from '../../shared/schemas/account-selection';
import { emailStatuses } from '../../shared/schemas/email-status';
import { projectEmailCounts } from '../../shared/schemas/email-status';
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
 * `failuresListed`) is read through the project's partitions (its outcomes were on the items then).
 * `channels`: the state channels `failed` reads (overlaid on the accounts read by key).
 */
export async function accountsOfJob<T>(
  deps: { db: DynamoDBDocumentClient; tableName: string },
  job: JobItem,
  query: { failed: (account: Record<string, unknown>) => boolean; filter: string; projection: string; values: Record<string, unknown>; channels?: readonly StateChannel[] },
  limit: number,
  map: (account: Record<string, unknown>) => T,
): Promise<T[]> {
  if (job.failuresListed === true) return listedFailures(deps, { SK: String(job.SK) }, job, query.failed, limit, map, query.channels);
  const found: T[] = [];
  for (const pk of keys.accountPartitions(String(job.userId), String(job.projectId), Number(job.shards ?? 1))) {
    const accounts = { TableName: deps.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :account)', FilterExpression: query.filter, ProjectionExpression: query.projection, ExpressionAttributeValues: { ':pk': pk, ':account': 'ACCOUNT#', ...query.values } };
    for await (const page of queryPages(deps.db, accounts)) {
      for (const account of page.Items ?? []) {
        found.push(map(account));
        if (found.length >= limit) return found;
      }
    }
  }
  return found;
}

/**
 * The filters of a job over a selection (shared/schemas/account-selection.ts), evaluated here
 * only, for every kind that takes one (account actions, Reset password, Send credentials). The
 * job carries its filter (`filter` on the job item); each chunk keeps the accounts of its rows
 * that match it when it reaches them (selectedAccounts), so the set is exact at that moment and
 * no list of 50,000 rows is stored. The job's total is the filter's count at the start
 * (filterCount, the project's exact counters); an account counted then that no longer matches
 * when reached is skipped (the job's view: total - done - failed once it completed).
 */
export const filterOf = (job: JobItem): AccountFilter | undefined => ((accountFilters as readonly string[]).includes(String(job.filter)) ? (job.filter as AccountFilter) : undefined);

/** How many of a project's accounts a filter takes, from its exact counters; undefined where the project has no such counter (Active / Deactivated on a project older than `deactivatedCount`: countFilter counts those). */
export function filterCount(filter: AccountFilter, project: Record<string, unknown>): number | undefined {
  const accountCount = Math.max(0, Number(project.accountCount ?? 0));
  if (filter === 'failed') return Math.max(0, Number(project.syncFailedCount ?? 0));
  if (filter === 'synced') return Math.max(0, Number(project.syncedCount ?? 0));
  if (filter === 'unsent') return projectEmailCounts(project, accountCount).notSent;
  if (filter === 'active' || filter === 'deactivated') {
    const kept = keptActiveCounts(project);
    if (!kept) return undefined;
    return filter === 'deactivated' ? kept.deactivated : Math.max(0, accountCount - kept.deactivated);
  }
  return accountCount;
}

/** The project's deactivated and expired accounts as its counters keep them (docs/data-model.md, Project); undefined for a project older than them. */
export function keptActiveCounts(project: Record<string, unknown>): { deactivated: number; expired: number } | undefined {
  if (typeof project.deactivatedCount !== 'number') return undefined;
  return { deactivated: Math.max(0, project.deactivatedCount), expired: Math.max(0, Number(project.expiredCount ?? 0)) };
}

/**
 * The project's deactivated and expired accounts: its counters, else (a project older than them)
 * counted from its accounts as readers see them (each account's `isActive` with its ACT entry
 * overlaid, `expiredAt` from the entry), and `kept: false`.
 */
export async function activeCounts(deps: { db: DynamoDBDocumentClient; tableName: string }, userId: string, projectId: string, project: Record<string, unknown>): Promise<{ active: number; deactivated: number; expired: number; kept: boolean }> {
  const kept = keptActiveCounts(project);
  if (kept) return { ...kept, active: Math.max(0, Number(project.accountCount ?? 0) - kept.deactivated), kept: true };
  const [acts, accounts] = await Promise.all([actEntries(deps, userId, projectId), itemsOf(deps, userId, projectId, shardsOf(project))]);
  const counts = { active: 0, deactivated: 0, expired: 0, kept: false };
  for (const item of accounts) {
    const account = overlayState(item, { ...emptyStates(), ACT: acts });
    if (account.isActive === false) counts.deactivated++;
    else counts.active++;
    if (typeof account.expiredAt === 'string') counts.expired++;
  }
  return counts;
}

/**
 * How many of a project's accounts a filter takes now: the counters where they give it, else a
 * count of the project's accounts as every reader sees them (Active / Deactivated: `isActive` of
 * the item with its ACT state entry overlaid, matchesFilter): a paged query of its partitions
 * reading only each account's row and `isActive`, and one query of its ACT blocks. The project's
 * lock then keeps the number true for the job.
 */
export async function countFilter(deps: { db: DynamoDBDocumentClient; tableName: string }, userId: string, projectId: string, project: Record<string, unknown>, filter: AccountFilter): Promise<number> {
  const counted = filterCount(filter, project);
  if (counted !== undefined) return counted;
  const counts = await activeCounts(deps, userId, projectId, project);
  return filter === 'deactivated' ? counts.deactivated : counts.active;
}

/** Each account of the project: its keys, row and `isActive` only. */
async function itemsOf(deps: { db: DynamoDBDocumentClient; tableName: string }, userId: string, projectId: string, shards: number): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (const pk of keys.accountPartitions(userId, projectId, shards)) {
    found.push(
      ...(await queryItems(deps.db, {
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :account)',
        ProjectionExpression: 'SK, #row, isActive',
        ExpressionAttributeNames: { '#row': 'row' },
        ExpressionAttributeValues: { ':pk': pk, ':account': 'ACCOUNT#' },
        ConsistentRead: true,
      })),
    );
  }
  return found;
}

/** Every ACT state entry of the project (row -> entry). */
async function actEntries(deps: { db: DynamoDBDocumentClient; tableName: string }, userId: string, projectId: string): Promise<Map<number, StateEntry>> {
  const states = emptyStates();
  const blocks = await queryItems(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :act)',
    ExpressionAttributeValues: { ':pk': keys.accountStatesOf(userId, projectId).PK, ':act': 'ACT#' },
    ConsistentRead: true,
  });
  for (const block of blocks) addBlock(states, block);
  return states.ACT!;
}

/** A filtered job's total when it is planned: the counters' number, else the one counted at its start (the lock kept it true). */
export const planTotal = (job: JobItem, project: Record<string, unknown>): number => filterCount(filterOf(job) ?? 'all', project) ?? Number(job.total ?? 0);

/** The state channels an account's filter reads (functions/accounts/account-states.ts): overlaid before matchesFilter. */
export const filterChannels = (filter: AccountFilter | undefined): StateChannel[] => (filter === 'failed' || filter === 'synced' ? ['PROV'] : filter === 'unsent' ? ['MAIL'] : filter === 'active' || filter === 'deactivated' ? ['ACT'] : []);

/** Whether an account (the channels of filterChannels overlaid) is one the filter takes. */
export function matchesFilter(filter: AccountFilter | undefined, account: Record<string, unknown>): boolean {
  if (filter === 'failed') return account.externalStatus === 'failed';
  if (filter === 'synced') return account.externalStatus === 'success';
  if (filter === 'unsent') return !(emailStatuses as readonly string[]).includes(String(account.emailStatus));
  if (filter === 'deactivated') return account.isActive === false;
  if (filter === 'active') return account.isActive !== false;
  return true;
}

/**
 * The accounts of a chunk the job takes: of its rows (`rows`) and matching its filter, read
 * with the states the filter needs (strongly consistent; `overlaid`: the caller read them already).
 * Accounts returned keep those states overlaid; without a filter nothing more is read.
 */
export async function selectedAccounts(deps: { db: DynamoDBDocumentClient; tableName: string }, job: JobItem, accounts: Record<string, unknown>[], options: { overlaid?: boolean } = {}): Promise<Record<string, unknown>[]> {
  const rows = rowsOf(job);
  const filter = filterOf(job);
  const listed = accounts.filter((account) => isSelected(rows, account));
  if (!filter || !listed.length) return listed;
  const channels = options.overlaid ? [] : filterChannels(filter);
  const overlaid = channels.length ? await withStates(deps.db, deps.tableName, { userId: String(job.userId), projectId: String(job.projectId), shards: Number(job.shards ?? 1) }, listed, { consistent: true, channels }) : listed;
  return overlaid.filter((account) => matchesFilter(filter, account));
}

/** What a job over a selection stores of it: `rows` (listed accounts) or `filter` (none for every account). */
export const selectionFields = (selection: { rows?: number[]; filter?: AccountFilter }): Record<string, unknown> =>
  selection.rows ? { rows: selection.rows } : selection.filter && selection.filter !== 'all' ? { filter: selection.filter } : {};

/** The view's `skipped`: accounts counted at the start of a filtered job that no longer matched when reached (known once it completed). */
export function skippedOf(job: JobItem, ended: number): number | undefined {
  if (job.status !== 'completed' || (filterOf(job) === undefined && !Array.isArray(job.rows))) return undefined;
  return Math.max(0, Number(job.total ?? 0) - ended);
}

/** Listed accounts checked one by one at the start (404 for one not of the project); a longer list's missing ones count in the work (failed or skipped). */
export const CHECKED_AT_START = 100;

/** A selection as a start route takes it: listed accounts or a filter (none: every account). */
export interface SelectionInput {
  accountIds?: readonly string[];
  filter?: AccountFilter;
}

/**
 * A start route's selection, checked the same way for every kind: each listed id one of the
 * project's (and, for a short list, an account that exists), else NotFoundError (404, as another
 * user's); at most MAX_SELECTED_ACCOUNTS. Returns what the job stores (selectionFields) and its
 * total: the listed rows, or the filter's count from the project's exact counters.
 */
export async function resolveSelection(
  deps: { db: DynamoDBDocumentClient; tableName: string },
  target: { userId: string; projectId: string; project: Record<string, unknown> },
  input: SelectionInput,
): Promise<{ rows?: number[]; filter?: AccountFilter; total: number; fields: Record<string, unknown> }> {
  const { userId, projectId, project } = target;
  if (input.accountIds) {
    const rows = selectedRows(projectId, input.accountIds);
    if (!rows || !(await allExist(deps, userId, projectId, shardsOf(project), rows))) throw new NotFoundError(input.accountIds.length === 1 ? 'Account not found' : 'One of the accounts was not found in this project');
    if (rows.length > MAX_SELECTED_ACCOUNTS) throw new ConflictError(`At most ${MAX_SELECTED_ACCOUNTS.toLocaleString('en-US')} accounts at once.`);
    return { rows, total: rows.length, fields: selectionFields({ rows }) };
  }
  const filter = input.filter ?? 'all';
  return { filter, total: await countFilter(deps, userId, projectId, project, filter), fields: selectionFields({ filter }) };
}

/** Whether every listed row (of a short list) is an account of the project. */
async function allExist(deps: { db: DynamoDBDocumentClient; tableName: string }, userId: string, projectId: string, shards: number, rows: number[]): Promise<boolean> {
  if (rows.length > CHECKED_AT_START) return true;
  const found = await Promise.all(rows.map(async (row) => (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.account(userId, projectId, row, shards), ProjectionExpression: 'PK', ConsistentRead: true }))).Item));
  return found.every(Boolean);
}

/** A selection in a security event's words: one account, N accounts, the filter's N accounts, or all N. */
export function selectionWords(input: SelectionInput, total: number): string {
  if (input.accountIds?.length === 1) return `account ${input.accountIds[0]}`;
  if (input.accountIds) return plural(total, 'account');
  if (input.filter === 'failed') return `the ${plural(total, 'account')} whose sync failed`;
  if (input.filter === 'unsent') return `the ${plural(total, 'account')} never e-mailed`;
  if (input.filter === 'synced') return `the ${plural(total, 'account')} on its platform`;
  if (input.filter === 'active') return `the ${plural(total, 'active account')}`;
  if (input.filter === 'deactivated') return `the ${plural(total, 'deactivated account')}`;
  return `all ${plural(total, 'account')}`;
}

/** A filter that takes no account now: nothing to start. */
export const NONE_MATCH: Record<AccountFilter, string> = {
  all: 'This project has no accounts.',
  failed: 'No account of this project failed to sync.',
  synced: 'No account of this project is on a platform.',
  unsent: 'Every account of this project has been e-mailed already.',
  active: 'No account of this project is active.',
  deactivated: 'No account of this project is deactivated.',
};
