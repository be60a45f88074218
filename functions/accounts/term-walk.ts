import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import { withStatesByKey } from './account-states-by-key';
import { channelsWithoutStates } from './account-states';
import { itemKey, itemsByKey } from '../core/items-by-key';
import { shardsOf } from './account-partitions';
import { parseAccountId } from './account-record';

/**
 * A term with filters, beyond the search's first 50 hits (docs/data-model.md, pattern 76): the
 * four search indexes walked one after the other (first name, last name, e-mail, username), each
 * in its own order from a cursor, so every hit is reached once however many there are. An account
 * that more than one index finds is kept from the first of them only: a hit of index i whose
 * stored terms of an index before i start with the term was (or will be) counted there. Each
 * request reads at most `budget` index entries and accounts; the page can be short, with a cursor
 * that goes on from where it stopped (as the directory's other walks).
 */
const INDEXES = [
  { index: 'AccountsByFirstName', pk: 'GSI1PK', sk: 'GSI1SK' },
  { index: 'AccountsByLastName', pk: 'GSI2PK', sk: 'GSI2SK' },
  { index: 'AccountsByEmail', pk: 'GSI3PK', sk: 'GSI3SK' },
  { index: 'AccountsByUsername', pk: 'GSI4PK', sk: 'GSI4SK' },
] as const;

/** Where a term walk stopped: the index (0..3) and its last entry passed (its sort key and the account's keys). */
export interface TermCursor {
  i: number;
  sk?: string;
  pk?: string;
  ask?: string;
}

/** A cursor from a request, checked to continue this user's walk of this term (400 otherwise). */
export function checkTermCursor(userId: string, term: string, cursor: unknown): TermCursor {
  const c = cursor as TermCursor;
  if (!c || typeof c !== 'object' || !Number.isInteger(c.i) || c.i < 0 || c.i >= INDEXES.length) throw new ValidationError('Invalid cursor');
  if (c.sk === undefined && c.pk === undefined && c.ask === undefined) return { i: c.i };
  if (typeof c.sk !== 'string' || typeof c.pk !== 'string' || typeof c.ask !== 'string' || !c.sk.startsWith(term) || !c.pk.startsWith(`USER#${userId}#PROJECT#`) || !c.ask.startsWith('ACCOUNT#')) throw new ValidationError('Invalid cursor');
  return { i: c.i, sk: c.sk, pk: c.pk, ask: c.ask };
}

export async function termWalk<T>(
  deps: { db: DynamoDBDocumentClient; tableName: string },
  userId: string,
  term: string,
  options: {
    limit: number;
    budget: number;
    cursor?: TermCursor;
    /** The projects among these ids that the filters choose (read by key, once per request). */
    projects: (ids: string[]) => Promise<Map<string, Record<string, unknown>>>;
    filtered: boolean;
    /** A filter decided on the project (project, type, expiry, created range, attribute column): only the hits of chosen projects are read. Without one, every hit is read beside its project. */
    projectFiltered?: boolean;
    accept: (item: Record<string, unknown>, project: Record<string, unknown>) => T | undefined;
  },
): Promise<{ items: T[]; raw: Record<string, unknown>[]; read: number; next?: TermCursor }> {
  const partition = keys.accountSearchPartition(userId, term);
  const items: T[] = [];
  const raw: Record<string, unknown>[] = [];
  let read = 0;
  let queries = 0;
  let i = options.cursor?.i ?? 0;
  let last: TermCursor | undefined = options.cursor?.sk ? options.cursor : undefined;
  while (i < INDEXES.length) {
    if (read >= options.budget) return { items, raw, read, next: last ?? { i } };
    const { index, pk, sk } = INDEXES[i]!;
    // With an account-level filter a query asks for a quarter more than the page still needs, then
    // twice as many each time it came back short (up to 4x): a common filter (Synced) costs about
    // one query, a rare one reaches the same 4x the other walks read.
    const want = Math.max(1, Math.min(options.budget - read, Math.ceil((options.limit - items.length) * (options.filtered ? Math.min(4, 1.25 * 2 ** queries) : 1))));
    queries++;
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        IndexName: index,
        KeyConditionExpression: `${pk} = :pk AND begins_with(${sk}, :term)`,
        ExpressionAttributeValues: { ':pk': partition, ':term': term },
        Limit: want,
        ...(last?.sk ? { ExclusiveStartKey: { [pk]: partition, [sk]: last.sk, PK: last.pk, SK: last.ask } } : {}),
      }),
    );
    const entries = page.Items ?? [];
    read += entries.length;
    // With a project-level filter only the hits of projects it chooses are read (the entry's id names
    // its project); without one the hits are read beside their projects, one round trip less (hits
    // spread over many projects read as many project items: beside the accounts, not after them).
    const projectIds = [...new Set(entries.map((entry) => parseAccountId(String(entry.id))?.projectId ?? ''))];
    const readHits = (hits: typeof entries) => itemsByKey(deps.db, deps.tableName, hits.map((entry) => ({ PK: String(entry.PK), SK: String(entry.SK) })));
    const [projects, full] = options.projectFiltered === false
      ? await Promise.all([options.projects(projectIds), readHits(entries)])
      : await options.projects(projectIds).then(async (chosen) => [chosen, await readHits(entries.filter((entry) => chosen.has(parseAccountId(String(entry.id))?.projectId ?? '')))] as const);
    read += full.size;
    const shards = new Map([...projects].map(([id, project]) => [id, shardsOf(project)]));
    const noStates = new Map([...projects].map(([id, project]) => [id, channelsWithoutStates(project)]));
    const states = new Map((await withStatesByKey(deps.db, deps.tableName, userId, [...full.values()].filter((item) => projects.has(String(item.projectId))), shards, noStates)).map((item) => [itemKey(item), item]));
    for (const [n, entry] of entries.entries()) {
      last = { i, sk: String(entry[sk]), pk: String(entry.PK), ask: String(entry.SK) };
      const item = states.get(itemKey(entry));
      if (!item || !projects.has(String(item.projectId))) continue;
      // Found by an earlier index already: counted there.
      if (INDEXES.slice(0, i).some((earlier) => String(item[earlier.sk] ?? '').startsWith(term))) continue;
      const view = options.accept(item, projects.get(String(item.projectId))!);
      if (view === undefined) continue;
      items.push(view);
      raw.push(item);
      if (items.length === options.limit) {
        const end = n === entries.length - 1 && !page.LastEvaluatedKey && i === INDEXES.length - 1;
        return { items, raw, read, ...(end ? {} : { next: last }) };
      }
    }
    if (!page.LastEvaluatedKey) {
      i++;
      last = undefined;
    }
  }
  return { items, raw, read };
}
