import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DirectoryFilters, DirectoryPage, DirectoryQuery } from '../../shared/schemas/account-directory';
import { projectEmailCounts } from '../../shared/schemas/email-status';
import type { AccountView } from '../../shared/schemas/project';
import { isIdShaped } from '../../shared/schemas/ids';
import type { Cipher } from '../core/encryption';
import { NotFoundError, ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import { queryAllUnder } from '../core/prefix-query';
import { projectAttributeKeys, syncCounts } from '../projects/project-item';
import { attributeProjectRows, attributeValueCounts, foldAttributeValue } from './attribute-index';
import { accountView, readableAccountPassword } from './account-item';
import { shardsOf } from './account-partitions';
import { parseAccountId } from './account-record';
import { channelsWithoutStates, STATE_BLOCK_ROWS, withStates, type StateEntry } from './account-states';
import { LISTED_STATUSES, listedRows, type ListedStatus } from './account-status-lists';
import { withStatesByKey } from './account-states-by-key';
import { itemKey, itemsByKey } from '../core/items-by-key';
import { keptActiveCounts } from '../account-jobs/selection';
import { searchTerm } from './search-terms';
import { isWalkId, readDirectoryWalk, writeDirectoryWalk } from './directory-walk';
import { checkTermCursor, termWalk, type TermCursor } from './term-walk';

/**
 * GET /api/accounts: the Account Database as a directory (docs/data-model.md, "The Account
 * Database as a directory"). Without a term it lists the caller's accounts a page at a time,
 * newest first (or by project, or by last name), with filters that combine.
 *
 * What serves it:
 * - The project items (one Query of the user's partition): the project-level filters (project,
 *   account type, expiry range, expired, a created range that starts after a project's accounts)
 *   are decided on them, and their counters (accounts, synced / failed / removed, each e-mail
 *   status) give the count badge and leave out every project with nothing to match, without
 *   reading one of its accounts.
 * - By date or project: the chosen projects' account partitions walked in row order (newest
 *   first: rows descending, projects newest first), each shard asked for its share, the state
 *   blocks overlaid, the account-level filters checked in code.
 * - By name: the last-name search index walked partition by partition (a..z, 0..9, others), the
 *   project-level filters checked on the index entry's id (a later page reads its hits' projects
 *   by key), the page's accounts read by key.
 *
 * A request reads at most READ_FACTOR items per item of the page: a filter that matches few of the
 * accounts it must pass over returns a shorter page (or none) with a cursor that goes on from where
 * it stopped, never a read of everything in one request.
 */
export const READ_FACTOR = 8;

type Project = Record<string, unknown>;

interface Cursor {
  s: DirectoryQuery['sort'];
  /** date / project: the project and its last row passed (absent: its first row is next). */
  p?: string;
  r?: number;
  /** name: the index partition (position in PARTITION_ORDER) and the last entry passed. */
  c?: number;
  k?: { sk: string; pk: string; ask: string };
  /** a term: where the walk of the search indexes stopped (term-walk.ts). */
  t?: TermCursor;
  /** date: the first page's count (and e: exact), so a later page reads only the projects it walks. */
  n?: number;
  e?: boolean;
  /** date: the walk goes on with the projects older than `p` (p's accounts are all passed). */
  o?: boolean;
  /** project: the order the first page wrote (directory-walk.ts) and the place in it where this page starts (`p`'s, when `p` is given). */
  w?: string;
  j?: number;
}

/** Project items a later page of the newest-first walk reads, from the cursor's project on (a page of them at a time). */
export const PROJECTS_PER_PAGE = 25;

const PARTITION_ORDER = [...'abcdefghijklmnopqrstuvwxyz0123456789_'];

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decodeCursor(raw: string | undefined, sort: DirectoryQuery['sort']): Cursor | undefined {
  if (!raw) return undefined;
  let cursor: Cursor;
  try {
    cursor = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
  } catch {
    throw new ValidationError('Invalid cursor');
  }
  if (!cursor || typeof cursor !== 'object' || cursor.s !== sort) throw new ValidationError('Invalid cursor');
  return cursor;
}

/** The filters decided on the project item alone. */
function projectMatches(project: Project, filters: DirectoryFilters): boolean {
  if (filters.projectId && project.id !== filters.projectId) return false;
  if (filters.accountType && (project.accountType ?? 'Standard User') !== filters.accountType) return false;
  const expires = typeof project.expirationDate === 'string' && project.expirationDate ? project.expirationDate : undefined;
  if ((filters.expiresFrom || filters.expiresTo) && !expires) return false;
  if (filters.expiresFrom && expires! < filters.expiresFrom) return false;
  if (filters.expiresTo && expires! > filters.expiresTo) return false;
  // Accounts are created with their project or later: a project created after the range's end has none in it.
  if (filters.createdTo && String(project.createdAt ?? '') > `${filters.createdTo}T23:59:59.999Z`) return false;
  // The Attribute filter: a project none of whose accounts ever had the column holds no match.
  if (filters.attributeName && !projectAttributeKeys(project).includes(filters.attributeName)) return false;
  return true;
}

/**
 * How many of the project's accounts can match, from its counters: exact when every account-level
 * filter has a counter (one of platform status, e-mail status, or active / deactivated / expired;
 * or a column value, counted by `attributeCount` where the project keeps value counters; not two
 * of them, not 'viewed', not a created range), else the smallest counter that bounds it. Active / deactivated / expired are the account's state as its row shows
 * it, counted by the project's `deactivatedCount` (expired ones included) and `expiredCount`
 * (pattern 79): a project older than them (absent) gives its account count, a bound.
 */
export function projectBound(project: Project, filters: DirectoryFilters, attributeCount?: number): { count: number; exact: boolean } {
  const accounts = Math.max(0, Number(project.accountCount ?? 0));
  const bounds: number[] = [accounts];
  let counted = 0;
  let exact = true;
  if (filters.platformStatus) {
    const sync = syncCounts(project, accounts);
    bounds.push({ success: sync.syncedCount, failed: sync.syncFailedCount, removed: sync.syncRemovedCount, pending: sync.syncPendingCount }[filters.platformStatus]);
    counted++;
  }
  if (filters.emailStatus && filters.emailStatus !== 'viewed') {
    const email = projectEmailCounts(project, accounts);
    bounds.push(filters.emailStatus === 'not_sent' ? email.notSent : email[filters.emailStatus]);
    counted++;
  }
  if (filters.state) {
    const kept = keptActiveCounts(project);
    if (kept) {
      bounds.push(filters.state === 'expired' ? kept.expired : filters.state === 'deactivated' ? kept.deactivated : accounts - kept.deactivated);
      counted++;
    } else exact = false;
  }
  // A column value: its counter where the project keeps them (attributeValueCounts), else a bound (the project's accounts).
  if (filters.attributeName) {
    if (attributeCount !== undefined) {
      bounds.push(attributeCount);
      counted++;
    } else exact = false;
  }
  if (counted > 1 || filters.emailStatus === 'viewed' || filters.createdFrom || filters.createdTo) exact = false;
  return { count: Math.max(0, Math.min(...bounds)), exact };
}

/** The account-level filters, on the account as lists show it. */
function accountMatches(view: AccountView, filters: DirectoryFilters): boolean {
  if (filters.platformStatus && view.externalStatus !== filters.platformStatus) return false;
  if (filters.emailStatus) {
    if (filters.emailStatus === 'viewed') {
      if (!view.credentialsViewedAt) return false;
    } else if ((view.emailStatus ?? 'not_sent') !== filters.emailStatus) return false;
  }
  if (filters.state === 'active' && !view.isActive) return false;
  if (filters.state === 'deactivated' && view.isActive) return false;
  // Expired: deactivated by its project's expiry and not reactivated since (the row shows 'Expired').
  if (filters.state === 'expired' && (view.isActive || !view.expiredAt)) return false;
  if (filters.createdFrom && view.createdAt < `${filters.createdFrom}T00:00:00.000Z`) return false;
  if (filters.createdTo && view.createdAt > `${filters.createdTo}T23:59:59.999Z`) return false;
  if (filters.attributeName && foldAttributeValue(view.attributes?.[filters.attributeName] ?? '') !== foldAttributeValue(filters.attributeValue ?? '')) return false;
  return true;
}

/** A filter projectMatches decides on the project item. */
const hasProjectFilter = (filters: DirectoryFilters) => Boolean(filters.projectId || filters.accountType || filters.expiresFrom || filters.expiresTo || filters.createdTo || filters.attributeName);

const hasAccountFilter = (filters: DirectoryFilters) =>
  Boolean(filters.platformStatus || filters.emailStatus || filters.state || filters.createdFrom || filters.createdTo || filters.attributeName);

/**
 * Up to `n` accounts of one project after (or, descending, before) row `after`, in row order over
 * every shard: each shard asked for its share; only rows up to the nearest "last row" of the shards
 * that have more are certain to have no gap, so the batch ends there. States overlaid.
 */
export async function projectRows(
  db: DynamoDBDocumentClient,
  tableName: string,
  target: { userId: string; projectId: string; shards: number },
  n: number,
  after: number | undefined,
  descending: boolean,
): Promise<{ items: Record<string, unknown>[]; read: number; more: boolean; last?: number }> {
  const partitions = keys.accountPartitions(target.userId, target.projectId, target.shards);
  const share = partitions.length === 1 ? n : Math.ceil(n / partitions.length) + 1;
  const low = !descending && after !== undefined ? keys.account(target.userId, target.projectId, after + 1).SK : 'ACCOUNT#';
  const high = descending && after !== undefined ? keys.account(target.userId, target.projectId, Math.max(0, after - 1)).SK : 'ACCOUNT#~';
  const pages = await Promise.all(
    partitions.map(async (pk) => {
      const page = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
          ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
          ScanIndexForward: !descending,
          Limit: share,
        }),
      );
      const items = page.Items ?? [];
      return { items, more: page.LastEvaluatedKey !== undefined, last: items.length ? String(items[items.length - 1]!.SK) : undefined };
    }),
  );
  const before = (a: string, b: string) => (descending ? a > b : a < b);
  let bound: string | undefined;
  for (const page of pages) if (page.more && page.last !== undefined && (bound === undefined || before(page.last, bound))) bound = page.last;
  const merged = pages
    .flatMap((page) => page.items)
    .filter((item) => item.entityType === 'Account' && (bound === undefined || !before(bound, String(item.SK))))
    .sort((a, b) => (before(String(a.SK), String(b.SK)) ? -1 : 1));
  const batch = merged.slice(0, n);
  const read = pages.reduce((sum, page) => sum + page.items.length, 0);
  return { items: await withStates(db, tableName, target, batch), read, more: pages.some((page) => page.more) || merged.length > batch.length, ...(batch.length ? { last: rowOfItem(batch[batch.length - 1]!) } : {}) };
}

const isListed = (status: string | undefined): status is ListedStatus => (LISTED_STATUSES as readonly string[]).includes(status ?? '');

/**
 * Up to `n` accounts of one project in a listed platform status (failed, removed), in row order,
 * from the status lists its PROV blocks keep (keys.accountStatusList): the list items (each names
 * at least one such row) and then only those accounts by key, never the accounts in between.
 * The lists of the blocks that start at the same row (one per shard) are read together: a page of
 * list items that stops inside such a group leaves that group to the next call.
 */
export async function listedProjectRows(
  db: DynamoDBDocumentClient,
  tableName: string,
  target: { userId: string; projectId: string; shards: number },
  status: ListedStatus,
  n: number,
  after: number | undefined,
  descending: boolean,
): Promise<{ items: Record<string, unknown>[]; read: number; more: boolean; last?: number }> {
  const shards = Math.max(1, target.shards);
  const width = STATE_BLOCK_ROWS * shards;
  if (descending && after !== undefined && after <= 1) return { items: [], read: 0, more: false };
  const groupSk = (row: number) => keys.accountStatusList(target.userId, target.projectId, status, Math.floor((row - 1) / width) * width + 1, 0).SK.replace(/#\d+$/, '');
  const prefix = keys.accountStatusListPrefix(status);
  const low = !descending && after !== undefined ? `${groupSk(after + 1)}#` : prefix;
  const high = descending && after !== undefined ? `${groupSk(after - 1)}#~` : `${prefix}~`;
  const page = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
      ExpressionAttributeValues: { ':pk': keys.accountStatesOf(target.userId, target.projectId).PK, ':low': low, ':high': high },
      ScanIndexForward: !descending,
      Limit: Math.min(n, 100) + shards + 1,
    }),
  );
  const lists = page.Items ?? [];
  let more = page.LastEvaluatedKey !== undefined;
  const lastGroup = lists.length ? Number(lists[lists.length - 1]!.fromRow) : undefined;
  const kept = more ? lists.filter((item) => Number(item.fromRow) !== lastGroup) : lists;
  const rows = kept
    .flatMap((item) => (Array.isArray(item.rows) ? item.rows.map(Number) : []))
    .filter((row) => after === undefined || (descending ? row < after : row > after))
    .sort((a, b) => (descending ? b - a : a - b));
  const take = rows.slice(0, n);
  let last: number | undefined;
  if (rows.length > n) {
    last = take[take.length - 1];
    more = true;
  } else if (kept.length) {
    const starts = kept.map((item) => Number(item.fromRow));
    last = descending ? Math.min(...starts) : Math.max(...starts) + width - 1;
  }
  const found = await itemsByKey(db, tableName, take.map((row) => keys.account(target.userId, target.projectId, row, shards)));
  // An account deleted since (a list names its row until its block is written again) is left out.
  const accounts = take.map((row) => found.get(itemKey(keys.account(target.userId, target.projectId, row, shards)))).filter((item): item is Record<string, unknown> => item !== undefined);
  return { items: await withStates(db, tableName, target, accounts), read: lists.length + found.size, more, ...(last !== undefined ? { last } : {}) };
}

/** PROV blocks one request reads to fill older projects' status lists (resumed by the next request). */
export const FILL_BLOCKS_PER_REQUEST = 100;

/**
 * Once per project, a step at a time: the status lists of the blocks written before blocks kept
 * them. Each step reads at most `budget.blocks` of the project's PROV blocks (from where the last
 * step stopped, `statusListsFillKey` on the project), puts their lists (a list a writer wrote since
 * is kept: `attribute_not_exists`), and records how far it got; the last one sets `statusListsAt`.
 * Until then the project is walked (74), so every answer is right and no request reads more than
 * its budget. A project with a provisioning run under way waits: the run's writes would race the fill.
 */
async function ensureStatusLists(db: DynamoDBDocumentClient, tableName: string, userId: string, project: Record<string, unknown>, now: Date, budget: { blocks: number }): Promise<boolean> {
  if (typeof project.statusListsAt === 'string') return true;
  if (typeof project.activeProvisioningJob === 'string' || budget.blocks <= 0) return false;
  const projectId = String(project.id);
  const { PK } = keys.accountStatesOf(userId, projectId);
  const from = typeof project.statusListsFillKey === 'string' && project.statusListsFillKey.startsWith('PROV#') ? project.statusListsFillKey : undefined;
  const page = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prov)',
      ExpressionAttributeValues: { ':pk': PK, ':prov': 'PROV#' },
      ConsistentRead: true,
      Limit: budget.blocks,
      ...(from ? { ExclusiveStartKey: { PK, SK: from } } : {}),
    }),
  );
  const blocks = page.Items ?? [];
  budget.blocks -= Math.max(1, blocks.length);
  await Promise.all(
    blocks.flatMap((block) => {
      const lists = listedRows((block.rows as Record<string, StateEntry>) ?? {});
      return LISTED_STATUSES.filter((status) => lists[status].length > 0).map(async (status) => {
        const key = keys.accountStatusList(userId, projectId, status, Number(block.fromRow), Number(block.shard));
        try {
          await db.send(
            new PutCommand({
              TableName: tableName,
              Item: { ...key, entityType: 'AccountStatusList', userId, projectId, status, shard: Number(block.shard), fromRow: Number(block.fromRow), rows: lists[status], blockVersion: Number(block.version ?? 0) },
              ConditionExpression: 'attribute_not_exists(PK)',
            }),
          );
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      });
    }),
  );
  const done = page.LastEvaluatedKey === undefined;
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.project(userId, projectId),
      UpdateExpression: done ? 'SET statusListsAt = :at REMOVE statusListsFillKey' : 'SET statusListsFillKey = :key',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: done ? { ':at': now.toISOString() } : { ':key': String(page.LastEvaluatedKey!.SK) },
    }),
  );
  return done;
}

const rowOfItem = (item: Record<string, unknown>) => Number(item.row ?? String(item.SK).slice('ACCOUNT#'.length));

export const browseAccounts = (deps: {
  db: DynamoDBDocumentClient;
  tableName: string;
  cipher: () => Promise<Cipher>;
  now?: () => Date;
  /** The Attribute filter met projects older than their value counters: their recount starts (attribute-recount.ts). */
  recountAttributes?: (userId: string, projects: readonly Record<string, unknown>[]) => Promise<void>;
}) => {
  return async (userId: string, query: DirectoryQuery): Promise<DirectoryPage & { itemsRead: number }> => {
    const now = deps.now?.() ?? new Date();
    const filters: DirectoryFilters = query;
    const showPasswords = query.showPasswords === 'true';
    const revealPasswords = async (raw: Record<string, unknown>[], views: AccountView[]) => {
      if (!showPasswords || !raw.length) return;
      const cipher = await deps.cipher();
      raw.forEach((item, n) => {
        const password = readableAccountPassword(cipher, item);
        if (password !== undefined) views[n]!.password = password;
      });
    };
    const term = searchTerm(query.q ?? '');
    const cursor = decodeCursor(query.cursor, query.sort);
    // The projects of a page's hits (a term's, or by name on a later page), read by key as the walk
    // meets them (at most one per hit), never every project of the user: the chosen ones (the
    // project-level filters) by id. `seen` holds those known already (the first page's list).
    const seen = new Map<string, Record<string, unknown> | undefined>();
    const projectsOf = async (ids: string[]) => {
      const missing = ids.filter((id) => !seen.has(id) && isIdShaped(id));
      const found = await itemsByKey(deps.db, deps.tableName, missing.map((id) => keys.project(userId, id)));
      for (const id of missing) {
        const project = found.get(itemKey(keys.project(userId, id)));
        seen.set(id, project?.entityType === 'Project' && projectMatches(project, filters) ? project : undefined);
      }
      return new Map(ids.flatMap((id) => (seen.get(id) ? [[id, seen.get(id)!] as const] : [])));
    };
    if (term) {
      // A term: the search indexes walked from the cursor (term-walk.ts), the filters on each hit;
      // the hits' projects read by key as the walk meets them, never every project of the user.
      if (filters.projectId !== undefined && (!isIdShaped(filters.projectId) || !(await itemsByKey(deps.db, deps.tableName, [keys.project(userId, filters.projectId)])).size)) throw new NotFoundError('Project not found');
      const walk = await termWalk(deps, userId, term, {
        limit: query.limit,
        budget: query.limit * READ_FACTOR,
        ...(cursor ? { cursor: checkTermCursor(userId, term, cursor.t) } : {}),
        projects: projectsOf,
        filtered: hasAccountFilter(filters),
        projectFiltered: hasProjectFilter(filters),
        accept: (item, project) => {
          const view = accountView(item, undefined, String(project.name ?? item.projectName));
          return accountMatches(view, filters) ? view : undefined;
        },
      });
      await revealPasswords(walk.raw, walk.items);
      // The badge: the hits of a walk that ended in one request; otherwise those found so far, and more.
      return { items: walk.items, count: walk.items.length, countIs: walk.next ? 'at-least' : 'exact', itemsRead: walk.read, ...(walk.next ? { nextCursor: encodeCursor({ s: query.sort, t: walk.next }) } : {}) };
    }
    // A later page (without a term or a project filter) carries the first page's count: newest
    // first it reads the user's projects from its own on, PROJECTS_PER_PAGE at a time; by project
    // the next PROJECTS_PER_PAGE of the order its first page wrote (directory-walk.ts), by key; by
    // name only its hits' projects, by key (projectsOf). None reads all of them.
    const carried = !term && !filters.projectId && cursor !== undefined && typeof cursor.n === 'number';
    const paged = carried && query.sort === 'date' && typeof cursor.p === 'string' && isIdShaped(cursor.p);
    const pagedByName = carried && query.sort === 'name';
    const pagedByProject = carried && query.sort === 'project' && isWalkId(cursor.w) && Number.isInteger(cursor.j) && cursor.j! >= 0;
    // A cursor naming a walk it does not hold continues nothing (a cursor from before walks has neither field).
    if (query.sort === 'project' && cursor && !pagedByProject && (cursor.w !== undefined || cursor.j !== undefined)) throw new ValidationError('Invalid cursor');
    let projectItems: Record<string, unknown>[];
    let olderProjects: string | undefined;
    /** By project, a later page: the part of the walk it reads (from walkFrom) and whether the walk goes on after it. */
    let walkFrom = pagedByProject ? cursor.j! : 0;
    let walkSlice: string[] = [];
    let walkGoesOn = false;
    // A later page's projects, PROJECTS_PER_PAGE at a time: by project the walk's next part (in the
    // walk's order; a project deleted since is passed), newest first the projects from `from` on
    // (`from` itself left out when `passed`; a cursor's project must be there, else the cursor
    // continues nothing).
    const nextOfWalk = async (): Promise<Record<string, unknown>[]> => {
      const slice = await readDirectoryWalk(deps.db, deps.tableName, userId, cursor!.w!, walkFrom, PROJECTS_PER_PAGE);
      walkSlice = slice.ids;
      walkGoesOn = walkFrom + slice.ids.length < slice.total;
      const found = await itemsByKey(deps.db, deps.tableName, slice.ids.map((id) => keys.project(userId, id)));
      return slice.ids.map((id) => found.get(itemKey(keys.project(userId, id)))).filter((project): project is Record<string, unknown> => project?.entityType === 'Project');
    };
    const olderFrom = async (from: string, passed: boolean, mustBeThere: boolean): Promise<Record<string, unknown>[]> => {
      const page = await deps.db.send(
        new QueryCommand({
          TableName: deps.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
          ExpressionAttributeValues: { ':pk': keys.projectsOf(userId).PK, ':low': keys.projectsOf(userId).SKPrefix, ':high': keys.project(userId, from).SK },
          ScanIndexForward: false,
          Limit: PROJECTS_PER_PAGE + (passed ? 1 : 0),
        }),
      );
      const items = page.Items ?? [];
      if (mustBeThere && items[0]?.id !== from) throw new ValidationError('Invalid cursor');
      olderProjects = page.LastEvaluatedKey && items.length ? String(items[items.length - 1]!.id) : undefined;
      return items.filter((project) => project.entityType === 'Project' && !(passed && project.id === from));
    };
    if (pagedByProject) projectItems = await nextOfWalk();
    else if (paged) projectItems = await olderFrom(cursor.p!, cursor.o === true, true);
    else if (pagedByName) projectItems = [];
    // One project: its item by key (its counters are the count), not the user's every project.
    else if (filters.projectId !== undefined) projectItems = isIdShaped(filters.projectId) ? [...(await itemsByKey(deps.db, deps.tableName, [keys.project(userId, filters.projectId)])).values()].filter((project) => project.entityType === 'Project') : [];
    else projectItems = (await queryAllUnder(deps.db, deps.tableName, keys.projectsOf(userId))).filter((project) => project.entityType === 'Project');
    if (filters.projectId !== undefined && (!isIdShaped(filters.projectId) || !projectItems.some((project) => project.id === filters.projectId))) throw new NotFoundError('Project not found');
    const chosen = projectItems.filter((project) => projectMatches(project, filters));
    // The Attribute filter: each chosen project that keeps its value counters gives its count (one read of a counter each).
    const attributeCounts =
      filters.attributeName && !paged && !pagedByName && !pagedByProject
        ? await attributeValueCounts(deps.db, deps.tableName, userId, chosen.filter((project) => project.attributeCountsKept === true).map((project) => String(project.id)), { key: filters.attributeName, value: filters.attributeValue ?? '' })
        : new Map<string, number>();
    // Projects older than the counters count 'Up to N' until their recount is done: started once, here.
    if (filters.attributeName && !paged && !pagedByProject && deps.recountAttributes) await deps.recountAttributes(userId, chosen.filter((project) => project.attributeCountsKept !== true));
    const bounds = new Map(chosen.map((project) => [String(project.id), projectBound(project, filters, attributeCounts.get(String(project.id)))]));
    const accountFiltered = hasAccountFilter(filters);
    // Sync Failed / Removed: the projects whose blocks keep status lists are read through them
    // (their lists filled a step at a time, FILL_BLOCKS_PER_REQUEST over the request's projects).
    const listedProjects = new Set<string>();
    const fill = { blocks: FILL_BLOCKS_PER_REQUEST };
    /** The projects with something to match, their status lists made ready. */
    const readyCandidates = async (projects: Record<string, unknown>[]) => {
      const withMatches = projects.filter((project) => bounds.get(String(project.id))!.count > 0);
      if (isListed(filters.platformStatus) && !(query.q ?? '').trim() && query.sort !== 'name') {
        for (const project of withMatches) if (await ensureStatusLists(deps.db, deps.tableName, userId, project, now, fill)) listedProjects.add(String(project.id));
      }
      return withMatches;
    };
    const candidates = await readyCandidates(chosen);

    const carriedCount = paged || pagedByName || pagedByProject;
    const count = carriedCount ? Math.max(0, Math.floor(cursor.n!)) : candidates.reduce((sum, project) => sum + bounds.get(String(project.id))!.count, 0);
    const countExact = carriedCount ? cursor.e === true : candidates.every((project) => bounds.get(String(project.id))!.exact);
    const budget = query.limit * READ_FACTOR;
    const views: AccountView[] = [];
    const raw: Record<string, unknown>[] = [];
    let read = 0;
    let next: Cursor | undefined;

    if (query.sort === 'name') {
      // The first page knows its projects (the list read for the count): a project with nothing to match is passed unread.
      if (!pagedByName) for (const project of projectItems) seen.set(String(project.id), candidates.includes(project) ? project : undefined);
      let c = cursor?.c ?? 0;
      if (!Number.isInteger(c) || c < 0 || c > PARTITION_ORDER.length) throw new ValidationError('Invalid cursor');
      let start: Record<string, unknown> | undefined;
      if (cursor?.k) {
        const { sk, pk, ask } = cursor.k;
        // A cursor can only go on in the caller's own index partition, at one of the caller's accounts.
        if (typeof sk !== 'string' || typeof pk !== 'string' || typeof ask !== 'string' || !pk.startsWith(`USER#${userId}#PROJECT#`) || !ask.startsWith('ACCOUNT#')) throw new ValidationError('Invalid cursor');
        start = { GSI2PK: `USER#${userId}#ACCOUNTS#${PARTITION_ORDER[c]}`, GSI2SK: sk, PK: pk, SK: ask };
      }
      outer: while (c < PARTITION_ORDER.length && (pagedByName || candidates.length > 0)) {
        if (read >= budget) {
          next = { s: 'name', c, ...(start ? { k: { sk: String(start.GSI2SK), pk: String(start.PK), ask: String(start.SK) } } : {}) };
          break;
        }
        const want = Math.min(budget - read, Math.max(1, query.limit - views.length) * (accountFiltered ? 4 : 1));
        const page = await deps.db.send(
          new QueryCommand({
            TableName: deps.tableName,
            IndexName: 'AccountsByLastName',
            KeyConditionExpression: 'GSI2PK = :pk',
            ExpressionAttributeValues: { ':pk': `USER#${userId}#ACCOUNTS#${PARTITION_ORDER[c]}` },
            Limit: want,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        const entries = page.Items ?? [];
        read += entries.length;
        const allowed = await projectsOf([...new Set(entries.map((entry) => parseAccountId(String(entry.id))?.projectId ?? ''))]);
        const wanted = entries.filter((entry) => allowed.has(parseAccountId(String(entry.id))?.projectId ?? ''));
        const full = await itemsByKey(deps.db, deps.tableName, wanted.map((entry) => ({ PK: String(entry.PK), SK: String(entry.SK) })));
        read += full.size;
        const stored = wanted.map((entry) => full.get(itemKey(entry))).filter((item): item is Record<string, unknown> => item !== undefined);
        const shards = new Map([...allowed].map(([id, project]) => [id, shardsOf(project)]));
        const noStates = new Map([...allowed].map(([id, project]) => [id, channelsWithoutStates(project)]));
        const withState = await withStatesByKey(deps.db, deps.tableName, userId, stored, shards, noStates);
        const states = new Map(withState.map((item) => [itemKey(item), item]));
        for (const entry of entries) {
          const item = states.get(itemKey(entry));
          start = { GSI2PK: entry.GSI2PK, GSI2SK: entry.GSI2SK, PK: entry.PK, SK: entry.SK };
          if (!item) continue;
          const view = accountView(item, undefined, String(allowed.get(String(item.projectId))?.name ?? item.projectName));
          if (!accountMatches(view, filters)) continue;
          views.push(view);
          raw.push(item);
          if (views.length === query.limit) {
            const last = entry === entries[entries.length - 1];
            if (!last || page.LastEvaluatedKey || c < PARTITION_ORDER.length - 1) next = { s: 'name', c, k: { sk: String(start.GSI2SK), pk: String(start.PK), ask: String(start.SK) } };
            break outer;
          }
        }
        if (!page.LastEvaluatedKey) {
          c++;
          start = undefined;
        }
      }
    } else {
      const descending = query.sort === 'date';
      // A later page by project keeps the walk's order (names may have changed since its first page).
      let order = pagedByProject
        ? candidates
        : [...candidates].sort((a, b) =>
            descending ? (String(a.id) < String(b.id) ? 1 : -1) : String(a.name ?? '').localeCompare(String(b.name ?? '')) || (String(a.id) < String(b.id) ? -1 : 1),
          );
      // By project (no project filter), a cursor names its project's place in the walk: the page's
      // order is the walk from cursor.j on, a first page's order is the walk it writes.
      const walked = query.sort === 'project' && !filters.projectId;
      const place = (id: string) => (pagedByProject ? walkFrom + walkSlice.indexOf(id) : order.findIndex((project) => project.id === id));
      const at = (id: string, r?: number): Cursor => ({ s: query.sort, p: id, ...(r !== undefined ? { r } : {}), ...(walked ? { j: place(id) } : {}) });
      let i = 0;
      let after: number | undefined;
      if (pagedByProject) {
        if (cursor.p !== undefined && (typeof cursor.p !== 'string' || (cursor.r !== undefined && (!Number.isInteger(cursor.r) || cursor.r < 0)))) throw new ValidationError('Invalid cursor');
        // The walk's part starts at the cursor's project: there (and not passed yet) it goes on
        // after the cursor's row; gone since, or no longer chosen, the next ones follow.
        if (cursor.p !== undefined && order[0]?.id === cursor.p) after = cursor.r;
      } else if (cursor) {
        if (typeof cursor.p !== 'string' || (cursor.r !== undefined && (!Number.isInteger(cursor.r) || cursor.r < 0))) throw new ValidationError('Invalid cursor');
        i = order.findIndex((project) => project.id === cursor.p);
        // A later page read from its own project on: that project (gone since, or no longer
        // chosen) is passed, the walk goes on with the older ones read after it.
        if (paged && (i < 0 || cursor.o)) i = Math.max(0, order.findIndex((project) => String(project.id) < cursor.p!));
        // Another user's project, or one the filters no longer choose, continues nothing.
        else if (i < 0) throw new ValidationError('Invalid cursor');
        else after = cursor.r;
      }
      // A later page whose projects are all walked before the page is full goes on to the next ones
      // (newest first or by project), at most as many project items as the budget (READ_FACTOR per
      // item of the page): a page is short only at the end, or when a filter matches few of what it passes.
      let projectPages = 1;
      const projectPagesMax = Math.max(1, Math.ceil(budget / PROJECTS_PER_PAGE));
      outer: for (;;) {
        while (i < order.length) {
          if (read >= budget) {
            next = at(String(order[i]!.id), after);
            break outer;
          }
          const project = order[i]!;
          const target = { userId, projectId: String(project.id), shards: shardsOf(project) };
          const listed = isListed(filters.platformStatus) && listedProjects.has(String(project.id));
          // The Attribute filter reads its index (pattern 77): each entry read is an account with the value.
          const byAttribute = !listed && filters.attributeName !== undefined && filters.attributeValue !== undefined;
          const want = Math.min(budget - read, Math.max(1, query.limit - views.length) * (accountFiltered && !listed && !byAttribute ? 4 : 1));
          const batch = listed
            ? await listedProjectRows(deps.db, deps.tableName, target, filters.platformStatus as ListedStatus, want, after, descending)
            : byAttribute
              ? await attributeProjectRows(deps.db, deps.tableName, target, { key: filters.attributeName!, value: filters.attributeValue! }, want, after, descending)
              : await projectRows(deps.db, deps.tableName, target, want, after, descending);
          read += batch.read;
          for (const [n, item] of batch.items.entries()) {
            after = rowOfItem(item);
            const view = accountView(item, undefined, String(project.name ?? item.projectName));
            if (!accountMatches(view, filters)) continue;
            views.push(view);
            raw.push(item);
            if (views.length === query.limit) {
              if (n < batch.items.length - 1 || batch.more || i < order.length - 1 || olderProjects || walkGoesOn) next = at(String(project.id), after);
              break outer;
            }
          }
          if (batch.last !== undefined) after = batch.last;
          if (!batch.more) {
            i++;
            after = undefined;
          }
        }
        if (views.length >= query.limit || read >= budget || projectPages >= projectPagesMax) break;
        let more: Record<string, unknown>[];
        if (pagedByProject && walkGoesOn) {
          walkFrom += walkSlice.length;
          more = await nextOfWalk();
        } else if (paged && olderProjects) more = await olderFrom(olderProjects, true, false);
        else break;
        projectPages++;
        for (const project of more) bounds.set(String(project.id), projectBound(project, filters));
        order = await readyCandidates(more.filter((project) => projectMatches(project, filters)));
        i = 0;
        after = undefined;
      }
      // The projects of this page are walked and older ones remain: the next page reads them.
      if (!next && views.length < query.limit && olderProjects) next = { s: query.sort, p: olderProjects, o: true };
      // By project, this page's part of the walk is passed and the walk goes on: the next page reads the next part.
      if (!next && views.length < query.limit && walkGoesOn) next = { s: query.sort, j: walkFrom + walkSlice.length };
      // A first page by project (or a cursor from before walks) writes the order its later pages read.
      if (next && walked && !pagedByProject) next.w = await writeDirectoryWalk(deps.db, deps.tableName, userId, order.map((project) => String(project.id)), now);
      else if (next && pagedByProject) next.w = cursor.w;
    }

    await revealPasswords(raw, views);
    // The count goes with the cursor (the next page reads only the projects it walks).
    if (next && !filters.projectId) Object.assign(next, { n: count, e: countExact });
    return { items: views, count, countIs: countExact ? 'exact' : 'at-most', itemsRead: read, ...(next ? { nextCursor: encodeCursor(next) } : {}) };
  };
};
