import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { accountItem } from '../../functions/accounts/account-item';
import { browseAccounts, PROJECTS_PER_PAGE } from '../../functions/accounts/browse-accounts';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { directoryQuerySchema, type DirectoryPage } from '../../shared/schemas/account-directory';
import { apiUser, testDb, type ApiUser } from '../support/api';

const TABLE = 'bulkonboard';

/**
 * The Account Database for a user with many projects: a later page newest first carries the first
 * page's count and reads the user's projects from its own on, a page of them at a time, not every
 * project item of the user; the listing is still whole, in order, each account once.
 */
describe('GET /api/accounts across many projects', () => {
  let user: ApiUser;
  const PROJECTS = PROJECTS_PER_PAGE * 2 + 5;
  const ids: string[] = [];
  /** Per project (oldest first): its id, name and accounts' ids (rows 1, 2). */
  const projects: { id: string; name: string; accounts: string[] }[] = [];

  beforeAll(async () => {
    user = await apiUser();
    const items: Record<string, unknown>[] = [];
    // Oldest first: project p is created p minutes after the first; two accounts each.
    for (let p = 0; p < PROJECTS; p++) {
      const at = new Date(Date.now() - (PROJECTS - p) * 60_000);
      const projectId = timeOrderedId(at);
      items.push({ ...keys.project(user.sub, projectId), entityType: 'Project', id: projectId, userId: user.sub, name: `Many ${p}`, accountType: 'Standard User', status: 'active', accountCount: 2, failedCount: 0, createdAt: at.toISOString(), updatedAt: at.toISOString() });
      projects.push({ id: projectId, name: `Many ${p}`, accounts: [keys.accountId(projectId, 1), keys.accountId(projectId, 2)] });
      for (const row of [1, 2]) {
        const id = keys.accountId(projectId, row);
        items.push(accountItem({ id, userId: user.sub, projectId, projectName: `Many ${p}`, row, firstName: `Many${p}`, lastName: `Row${row}`, email: `many.${p}.${row}.${randomUUID().slice(0, 6)}@example.com`, username: `many${p}r${row}${randomUUID().slice(0, 4)}`, passwordCiphertext: 'x', accountType: 'Standard User', isActive: true, externalStatus: 'pending', createdAt: at.toISOString() }));
        // Newest first: the newest project's row 2, then its row 1, then the next older project's.
        ids.unshift(id);
      }
    }
    for (let i = 0; i < items.length; i += 25) await testDb().send(new BatchWriteCommand({ RequestItems: { [TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  });

  it('lists every account newest first, page after page, each once, the count the same on every page', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await user.json<DirectoryPage>(`/api/accounts?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page).toMatchObject({ count: PROJECTS * 2, countIs: 'exact' });
      seen.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor;
      expect(++pages).toBeLessThan(40);
    } while (cursor);
    expect(seen).toEqual(ids);
    // Another user's cursor continues nothing of theirs.
    const first = await user.json<DirectoryPage>('/api/accounts?limit=7');
    const other = await apiUser();
    expect((await other.call(`/api/accounts?cursor=${first.nextCursor}`)).status).toBe(400);
  });

  it('reads at most a page of project items on a later page, and with a term only the projects of its hits', async () => {
    const { dynamodb } = inject('stack').urls;
    const counted = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), { marshallOptions: { removeUndefinedValues: true } });
    let projectItems = 0;
    counted.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const output = result.output as { Items?: Record<string, unknown>[]; Responses?: Record<string, Record<string, unknown>[]> };
        projectItems += [...(output.Items ?? []), ...Object.values(output.Responses ?? {}).flat()].filter((item) => item.entityType === 'Project').length;
        return result;
      },
      { step: 'initialize', name: 'countProjectItems' },
    );
    const browse = browseAccounts({ db: counted, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    const first = await browse(user.sub, directoryQuerySchema.parse({ limit: '7' }));
    expect(projectItems).toBe(PROJECTS);
    projectItems = 0;
    const second = await browse(user.sub, directoryQuerySchema.parse({ limit: '7', cursor: first.nextCursor }));
    expect(second.items).toHaveLength(7);
    expect(second.count).toBe(PROJECTS * 2);
    expect(projectItems).toBeLessThanOrEqual(PROJECTS_PER_PAGE + 1);

    // A term: only the projects of the hits the page reads, by key.
    projectItems = 0;
    const found = await browse(user.sub, directoryQuerySchema.parse({ limit: '7', q: 'many' }));
    expect(found.items).toHaveLength(7);
    expect(projectItems).toBeLessThanOrEqual(7);
    projectItems = 0;
    const more = await browse(user.sub, directoryQuerySchema.parse({ limit: '7', q: 'many', cursor: found.nextCursor }));
    expect(more.items.map((a) => a.id).filter((id) => found.items.some((a) => a.id === id))).toEqual([]);
    expect(projectItems).toBeLessThanOrEqual(7);
  });

  it('by project: every account in name order, each once, the count on every page; a later page reads its part of the first page\'s order and the next projects, not every project', async () => {
    const counted = countingDb();
    const browse = browseAccounts({ db: counted.db, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    // By name as the listing compares them, then the project's id; rows ascending within a project.
    const byName = () => [...projects].sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
    const walk = async () => {
      const seen: string[] = [];
      const reads: { projects: number; walkParts: number }[] = [];
      let cursor: string | undefined;
      do {
        counted.reset();
        const page = await browse(user.sub, directoryQuerySchema.parse({ limit: '7', sort: 'project', ...(cursor ? { cursor } : {}) }));
        expect(page).toMatchObject({ count: PROJECTS * 2, countIs: 'exact' });
        seen.push(...page.items.map((a) => a.id));
        reads.push({ projects: counted.read('Project'), walkParts: counted.read('DirectoryWalkPart') });
        cursor = page.nextCursor;
        expect(reads.length).toBeLessThan(40);
      } while (cursor);
      return { seen, reads };
    };
    const { seen, reads } = await walk();
    expect(seen).toEqual(byName().flatMap((project) => project.accounts));
    // The first page reads every project (the count); each later one at most a page of them and one or two parts of the order.
    expect(reads[0]).toEqual({ projects: PROJECTS, walkParts: 0 });
    for (const read of reads.slice(1)) {
      expect(read.projects).toBeLessThanOrEqual(PROJECTS_PER_PAGE);
      expect(read.walkParts).toBeGreaterThanOrEqual(1);
      expect(read.walkParts).toBeLessThanOrEqual(2);
    }

    // A project renamed takes its new place in a listing started after the edit; the listing stays whole.
    const renamed = byName()[PROJECTS - 1]!;
    expect((await user.call(`/api/projects/${renamed.id}`, { method: 'PUT', body: { name: 'Aardvark intake', accountType: 'Standard User' } })).status).toBe(200);
    renamed.name = 'Aardvark intake';
    const again = await walk();
    expect(again.seen).toEqual(byName().flatMap((project) => project.accounts));
    expect(again.seen.slice(0, 2)).toEqual(renamed.accounts);

    // The project a cursor stopped in, renamed before the next page: the listing goes on in its first page's order, each account once.
    const first = await user.json<DirectoryPage>('/api/accounts?limit=3&sort=project');
    const stoppedIn = (JSON.parse(Buffer.from(first.nextCursor!, 'base64url').toString('utf8')) as { p: string }).p;
    const before = byName();
    expect((await user.call(`/api/projects/${stoppedIn}`, { method: 'PUT', body: { name: 'Zz renamed', accountType: 'Standard User' } })).status).toBe(200);
    projects.find((project) => project.id === stoppedIn)!.name = 'Zz renamed';
    const rest: string[] = [...first.items.map((a) => a.id)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await user.json<DirectoryPage>(`/api/accounts?limit=3&sort=project&cursor=${cursor}`);
      rest.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor;
    }
    expect(rest).toEqual(before.flatMap((project) => project.accounts));

    // Another user's cursor finds no order of theirs: 400, nothing of the first user's.
    const other = await apiUser();
    expect((await other.call(`/api/accounts?limit=3&sort=project&cursor=${first.nextCursor}`)).status).toBe(400);
    // A cursor naming no walk of the caller's (forged, or its place out of shape) continues nothing: 400, no read of every project.
    const parsed = JSON.parse(Buffer.from(first.nextCursor!, 'base64url').toString('utf8')) as Record<string, unknown>;
    for (const forged of [{ ...parsed, w: 'not-a-walk' }, { ...parsed, j: -1 }, { ...parsed, j: 1.5 }]) {
      expect((await user.call(`/api/accounts?limit=3&sort=project&cursor=${Buffer.from(JSON.stringify(forged)).toString('base64url')}`)).status).toBe(400);
    }
  });
  it('a later page whose projects hold fewer accounts than the page goes on to the next projects: every page but the last is full (by project and newest first)', async () => {
    const counted = countingDb();
    const browse = browseAccounts({ db: counted.db, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    for (const sort of ['project', 'date'] as const) {
      const sizes: number[] = [];
      const projectReads: number[] = [];
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        counted.reset();
        // 51 a page: a later page's first PROJECTS_PER_PAGE projects hold at most 50 of these accounts.
        const page = await browse(user.sub, directoryQuerySchema.parse({ limit: '51', sort, ...(cursor ? { cursor } : {}) }));
        sizes.push(page.items.length);
        projectReads.push(counted.read('Project'));
        seen.push(...page.items.map((a) => a.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(sizes, sort).toEqual([51, 51, PROJECTS * 2 - 102]);
      expect(new Set(seen).size).toBe(PROJECTS * 2);
      // The second page read a page of projects and part of the next, not every project.
      expect(projectReads[1]!).toBeGreaterThan(PROJECTS_PER_PAGE);
      expect(projectReads[1]!).toBeLessThanOrEqual(2 * PROJECTS_PER_PAGE + 1);
    }
  });
});

/** The app's client on the local DynamoDB, counting the items of each kind (entityType) it reads. */
function countingDb() {
  const { dynamodb } = inject('stack').urls;
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), { marshallOptions: { removeUndefinedValues: true } });
  const read = new Map<string, number>();
  db.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = result.output as { Items?: Record<string, unknown>[]; Responses?: Record<string, Record<string, unknown>[]> };
      for (const item of [...(output.Items ?? []), ...Object.values(output.Responses ?? {}).flat()]) read.set(String(item.entityType), (read.get(String(item.entityType)) ?? 0) + 1);
      return result;
    },
    { step: 'initialize', name: 'countItems' },
  );
  return { db, read: (entityType: string) => read.get(entityType) ?? 0, reset: () => read.clear() };
}
