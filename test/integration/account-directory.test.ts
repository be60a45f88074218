import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountItem } from '../../functions/accounts/account-item';
import { StateBlockConflict, StateBlockWriter } from '../../functions/accounts/account-state-writer';
import { provStatusLists } from '../../functions/accounts/account-status-list-writes';
import { browseAccounts } from '../../functions/accounts/browse-accounts';
import { directoryQuerySchema } from '../../shared/schemas/account-directory';
import { keys } from '../../functions/core/keys';
import type { DirectoryPage } from '../../shared/schemas/account-directory';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { Project } from '../../shared/schemas/project';
import { apiUser, exportDownloadUrl, testDb, type ApiUser } from '../support/api';
import { until } from '../support/until';
import type { ExportView } from '../../shared/exports';

const TABLE = 'bulkonboard';
const tag = () => randomUUID().replaceAll('-', '').slice(0, 6);

/**
 * A project of `count` accounts over `shards` partitions written straight to the table (an import
 * of that size would take a job), with its counters as the writers keep them; rows `failed` Sync
 * Failed and `synced` Synced in its PROV state blocks, `mailed` sent in its MAIL blocks.
 */
async function storedProject(
  userId: string,
  options: { idPrefix: string; name: string; count: number; shards: number; failed: number[]; synced: number[]; mailed: number[]; deactivated?: number[]; expired?: number[]; expirationDate?: string; accountType?: 'Standard User' | 'Training Account' },
) {
  const db = testDb();
  // Ids are time-ordered (UUID v7): a fixed old prefix makes these older than any project created now.
  const projectId = `${options.idPrefix}-${randomUUID().slice(9)}`;
  const createdAt = new Date().toISOString();
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: {
        ...keys.project(userId, projectId),
        entityType: 'Project',
        id: projectId,
        userId,
        name: options.name,
        accountType: options.accountType ?? 'Standard User',
        status: 'active',
        accountCount: options.count,
        failedCount: 0,
        accountShards: options.shards,
        syncedCount: options.synced.length,
        syncFailedCount: options.failed.length,
        emailSentCount: options.mailed.length,
        ...(options.expirationDate ? { expirationDate: options.expirationDate } : {}),
        createdAt,
        updatedAt: createdAt,
      },
    }),
  );
  const items = Array.from({ length: options.count }, (_, i) =>
    accountItem(
      {
        id: keys.accountId(projectId, i + 1),
        userId,
        projectId,
        projectName: options.name,
        row: i + 1,
        firstName: `Dir${i + 1}`,
        lastName: `${options.name}${String(i + 1).padStart(3, '0')}`,
        email: `dir.${i + 1}.${projectId.slice(-6)}@example.com`,
        username: `dir${i + 1}${projectId.slice(-6)}`,
        passwordCiphertext: 'not-read-here',
        accountType: options.accountType ?? 'Standard User',
        isActive: !(options.deactivated ?? []).includes(i + 1) && !(options.expired ?? []).includes(i + 1),
        externalStatus: 'pending',
        createdAt,
      },
      options.shards,
    ),
  );
  // Deactivated by the project's expiry (as an account action's entry leaves it: shown 'Expired').
  for (const item of items) if ((options.expired ?? []).includes(Number(item.row))) item.expiredAt = '2020-02-01T00:00:00.000Z';
  for (let i = 0; i < items.length; i += 25) await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  const target = { userId, projectId, shards: options.shards };
  const prov = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV', provStatusLists);
  await prov.load(1, options.count);
  for (const row of options.failed) prov.set(row, { externalStatus: 'failed', externalError: 'Refused by the platform', provisionRun: 'run1' });
  for (const row of options.synced) prov.set(row, { externalStatus: 'success', externalAccountId: `ext-${row}`, provisionRun: 'run1' });
  const mail = new StateBlockWriter({ db, tableName: TABLE }, target, 'MAIL');
  await mail.load(1, options.count);
  for (const row of options.mailed) mail.set(row, { emailStatus: 'sent', emailMessageId: `m-${row}` });
  await Promise.all([prov.flush(), mail.flush()]);
  return { projectId, ids: items.map((item) => String(item.id)) };
}

const list = (user: ApiUser, params: Record<string, string | number>) =>
  user.json<DirectoryPage>(`/api/accounts?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);

/** Every page of a listing, following nextCursor. */
async function everyPage(user: ApiUser, params: Record<string, string | number>) {
  const pages: DirectoryPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(user, { ...params, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.nextCursor;
    expect(pages.length).toBeLessThan(200);
  } while (cursor);
  return { pages, ids: pages.flatMap((page) => page.items.map((item) => item.id)) };
}

describe('GET /api/accounts (the Account Database without a term)', () => {
  let alice: ApiUser;
  let small: { project: Project; accounts: CreatedAccount[] };
  let big: { projectId: string; ids: string[] };
  let training: { projectId: string; ids: string[] };
  const failed = [3, 7, 8, 22, 40];
  const synced = [1, 2, 4, 5, 6];
  const mailed = [1, 3, 9];

  beforeAll(async () => {
    alice = await apiUser();
    // Oldest: an expired training project (ids are time-ordered: this one sorts first by creation).
    training = await storedProject(alice.sub, { idPrefix: '01900000', name: 'Zeta', count: 4, shards: 1, failed: [], synced: [], mailed: [], expirationDate: '2020-01-31', accountType: 'Training Account', deactivated: [2], expired: [1, 3] });
    big = await storedProject(alice.sub, { idPrefix: '01910000', name: 'Alpha', count: 40, shards: 3, failed, synced, mailed, expirationDate: '2999-06-30' });
    small = await alice.json('/api/bulk-create', {
      method: 'POST',
      body: { projectName: `Mid ${tag()}`, csvData: [1, 2, 3].map((n) => ({ firstName: `Small${n}`, lastName: `Mid${n}`, email: `small${n}.${tag()}@example.com` })) },
    });
  });

  it('lists every account without a term, newest first, paged across projects and shards, each once; the count is exact', async () => {
    const { pages, ids } = await everyPage(alice, { limit: 7 });
    const rowsDown = (projectIds: string[]) => [...projectIds].reverse();
    expect(ids).toEqual([...rowsDown(small.accounts.map((a) => a.id)), ...rowsDown(big.ids), ...rowsDown(training.ids)]);
    for (const page of pages) {
      expect(page.count).toBe(47);
      expect(page.countIs).toBe('exact');
      expect(page.items.length).toBeLessThanOrEqual(7);
    }
    expect(pages.at(-1)!.nextCursor).toBeUndefined();
    expect(pages[0]!.items[0]).toMatchObject({ projectName: small.project.name, externalStatus: 'pending' });
  });

  it('filters to the failed accounts (their state blocks), alone and combined with the project, with an exact count', async () => {
    const failedIds = [...failed].reverse().map((row) => keys.accountId(big.projectId, row));
    const all = await everyPage(alice, { platformStatus: 'failed', limit: 2 });
    expect(all.ids).toEqual(failedIds);
    expect(all.pages[0]).toMatchObject({ count: 5, countIs: 'exact' });
    expect(all.pages[0]!.items[0]).toMatchObject({ externalStatus: 'failed', externalError: 'Refused by the platform' });
    const inProject = await list(alice, { platformStatus: 'failed', projectId: big.projectId, limit: 25 });
    expect(inProject.items.map((a) => a.id)).toEqual(failedIds);
    expect(inProject.count).toBe(5);
    // Another project of the user has none: nothing, count 0, and none of its accounts is read.
    expect(await list(alice, { platformStatus: 'failed', projectId: small.project.id })).toMatchObject({ items: [], count: 0, countIs: 'exact' });
    const pending = await everyPage(alice, { platformStatus: 'pending', projectId: big.projectId, limit: 25 });
    expect(pending.ids.length).toBe(30);
    expect(pending.pages[0]!.count).toBe(30);
  });

  it('combines e-mail status, account type, expiry, created range and active state; counts are exact where a counter keeps them, an upper bound otherwise', async () => {
    const sent = await everyPage(alice, { emailStatus: 'sent', limit: 25 });
    expect(sent.ids).toEqual([9, 3, 1].map((row) => keys.accountId(big.projectId, row)));
    expect(sent.pages[0]).toMatchObject({ count: 3, countIs: 'exact' });
    const notSent = await list(alice, { emailStatus: 'not_sent', limit: 1 });
    expect(notSent).toMatchObject({ count: 44, countIs: 'exact' });

    // Sync Failed and e-mailed: only row 3; no counter keeps the pair: at most min(5, 3).
    const both = await list(alice, { platformStatus: 'failed', emailStatus: 'sent' });
    expect(both.items.map((a) => a.id)).toEqual([keys.accountId(big.projectId, 3)]);
    expect(both).toMatchObject({ count: 3, countIs: 'at-most' });

    const trainingOnly = await list(alice, { accountType: 'Training Account' });
    expect(trainingOnly.items.map((a) => a.id)).toEqual([...training.ids].reverse());
    expect(trainingOnly.count).toBe(4);
    // A project older than its deactivated / expired counters: found by the accounts' states, counted as a bound.
    const expired = await list(alice, { state: 'expired' });
    expect(expired.items.map((a) => a.id)).toEqual([training.ids[2], training.ids[0]]);
    const deactivated = await list(alice, { state: 'deactivated' });
    expect(deactivated.items.map((a) => a.id)).toEqual([training.ids[2], training.ids[1], training.ids[0]]);
    expect(deactivated.countIs).toBe('at-most');
    const active = await everyPage(alice, { state: 'active', limit: 25 });
    expect(active.ids).not.toContain(training.ids[0]);
    expect(active.ids).toContain(training.ids[3]);
    expect(active.ids.length).toBe(44);

    expect((await list(alice, { expiresFrom: '2999-01-01', expiresTo: '2999-12-31', limit: 100 })).items.length).toBe(40);
    expect((await list(alice, { expiresTo: '2021-01-01' })).items.length).toBe(4);
    const todayUtc = new Date().toISOString().slice(0, 10);
    expect((await list(alice, { createdFrom: todayUtc, createdTo: todayUtc, limit: 100 })).items.length).toBe(47);
    expect(await list(alice, { createdTo: '2020-01-01' })).toMatchObject({ items: [], count: 0 });
  });

  it('sorts by last name across projects, and by project name, paged', async () => {
    const byName = await everyPage(alice, { sort: 'name', limit: 9 });
    const names = byName.pages.flatMap((page) => page.items.map((a) => a.lastName.toLowerCase()));
    expect(names.length).toBe(47);
    expect(names).toEqual([...names].sort());
    // A later page by name carries the first page's count (it reads no list of projects).
    for (const page of byName.pages) expect(page).toMatchObject({ count: 47, countIs: 'exact' });
    const byNameFailed = await everyPage(alice, { sort: 'name', platformStatus: 'failed', limit: 2 });
    expect(byNameFailed.ids).toEqual(failed.map((row) => keys.accountId(big.projectId, row)));
    for (const page of byNameFailed.pages) expect(page).toMatchObject({ count: failed.length, countIs: 'exact' });
    const byNameTraining = await everyPage(alice, { sort: 'name', accountType: 'Training Account', limit: 1 });
    expect(byNameTraining.ids).toEqual(training.ids);

    const byProject = await everyPage(alice, { sort: 'project', limit: 10 });
    expect(byProject.ids).toEqual([...big.ids, ...small.accounts.map((a) => a.id), ...training.ids]);
  });

  it('combines the search term with the filters', async () => {
    const found = await list(alice, { q: 'Alpha00', platformStatus: 'failed' });
    expect(found.items.map((a) => a.id).sort()).toEqual([3, 7, 8].map((row) => keys.accountId(big.projectId, row)).sort());
    expect(found).toMatchObject({ count: 3, countIs: 'exact' });
  });

  it("reads of a term's hits only their own entries of the state blocks, not the blocks' other accounts", async () => {
    const db = testDb();
    const blocks: Record<string, unknown>[] = [];
    db.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const output = (result.output ?? {}) as { Responses?: Record<string, Record<string, unknown>[]> };
        for (const item of Object.values(output.Responses ?? {}).flat()) if (item.channel !== undefined && item.rows !== undefined) blocks.push(item);
        return result;
      },
      { step: 'initialize', name: 'keptBlocks' },
    );
    const browse = browseAccounts({ db, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    const page = await browse(alice.sub, directoryQuerySchema.parse({ q: 'Alpha00', limit: '25' }));
    const hits = page.items.map((a) => Number(a.id.split('.')[1]));
    expect(hits.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(page.items.find((a) => a.id === keys.accountId(big.projectId, 3))).toMatchObject({ externalStatus: 'failed', emailStatus: 'sent' });
    expect(page.items.find((a) => a.id === keys.accountId(big.projectId, 4))).toMatchObject({ externalStatus: 'success' });
    // The PROV blocks also hold rows 22 and 40 (failed) of the same shards: not read.
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) for (const row of Object.keys(block.rows as object)) expect(hits).toContain(Number(row));
  });

  it("reads a later page by name, and a page of one project, without the user's every project item", async () => {
    const db = testDb();
    let projectItems = 0;
    db.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const output = (result.output ?? {}) as { Items?: Record<string, unknown>[]; Responses?: Record<string, Record<string, unknown>[]> };
        for (const item of [...(output.Items ?? []), ...Object.values(output.Responses ?? {}).flat()]) if (item.entityType === 'Project') projectItems++;
        return result;
      },
      { step: 'initialize', name: 'countedProjects' },
    );
    const browse = browseAccounts({ db, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    const first = await browse(alice.sub, directoryQuerySchema.parse({ sort: 'name', limit: '5' }));
    // The first page reads every project item: the count is their counters' sum (pattern 73).
    expect(projectItems).toBe(3);
    projectItems = 0;
    const second = await browse(alice.sub, directoryQuerySchema.parse({ sort: 'name', limit: '5', cursor: first.nextCursor }));
    // Its hits are all of 'Alpha' (Alpha006..Alpha010): that project alone, by key.
    expect(second.items.map((a) => a.lastName)).toEqual(['Alpha006', 'Alpha007', 'Alpha008', 'Alpha009', 'Alpha010']);
    expect(second).toMatchObject({ count: 47, countIs: 'exact' });
    expect(projectItems).toBe(1);
    projectItems = 0;
    const one = await browse(alice.sub, directoryQuerySchema.parse({ projectId: big.projectId, platformStatus: 'failed', limit: '25' }));
    expect(one).toMatchObject({ count: failed.length, countIs: 'exact' });
    expect(projectItems).toBe(1);
  });

  it('shows passwords only when asked, and refuses bad input with a 400, never a 500', async () => {
    const shown = await list(alice, { projectId: small.project.id, showPasswords: 'true' });
    expect(shown.items.every((a) => typeof a.password === 'string' && a.password.length > 0)).toBe(true);
    expect((await list(alice, { projectId: small.project.id })).items.every((a) => a.password === undefined)).toBe(true);
    for (const query of ['sort=size', 'limit=0', 'limit=1000', 'limit=abc', 'platformStatus=green', 'emailStatus=x', 'state=gone', 'createdFrom=2024-13-45', 'createdFrom=2025-02-01&createdTo=2025-01-01', 'accountType=Root', 'cursor=!!!', 'cursor=eyJzIjoiZGF0ZSIsInAiOiJub3BlIn0']) {
      const response = await alice.call(`/api/accounts?${query}`);
      expect(response.status, query).toBe(400);
    }
    // A cursor of one sort cannot continue another.
    const page = await list(alice, { limit: 1 });
    expect((await alice.call(`/api/accounts?sort=name&cursor=${page.nextCursor}`)).status).toBe(400);
    expect((await alice.call('/api/accounts?projectId=no%23such')).status).toBe(404);
  });

  it('Export All: the accounts the filters select, through the Export Center, with passwords; plan and tenant checked', async () => {
    const response = await alice.call('/api/exports/directory', { body: { format: 'csv', projectId: small.project.id, platformStatus: 'pending', q: 'small' } });
    expect(response.status, await response.clone().text()).toBe(202);
    const started = (await response.json()) as ExportView;
    expect(started).toMatchObject({ kind: 'directory', projectName: 'Account Database', format: 'csv', status: 'pending' });
    const done = await until(
      'the directory export',
      async () => (await alice.json<ExportView[]>('/api/exports/history')).find((entry) => entry.id === started.id),
      (entry) => entry?.status === 'completed' || entry?.status === 'failed',
    );
    expect(done).toMatchObject({ status: 'completed', rowCount: 3 });
    const csv = await (await fetch(await exportDownloadUrl(alice, started.id))).text();
    for (const account of small.accounts) expect(csv).toContain(`${account.email},${account.username},${account.plainPassword}`);
    expect(csv).not.toContain('Alpha0');

    // Excel is Pro; a bad format or range is a 400; another user's project is not found.
    expect((await alice.call('/api/exports/directory', { body: { format: 'xlsx' } })).status).toBe(403);
    expect((await alice.call('/api/exports/directory', { body: { format: 'pdf' } })).status).toBe(400);
    expect((await alice.call('/api/exports/directory', { body: { createdFrom: '2025-02-01', createdTo: '2025-01-01' } })).status).toBe(400);
    const dave = await apiUser();
    expect((await dave.call('/api/exports/directory', { body: { projectId: small.project.id } })).status).toBe(404);
    expect((await dave.call('/api/exports/directory', { body: { projectId: 'x'.repeat(5000) } })).status).toBe(404);
  });

  it('keeps another user’s accounts, projects and cursors out', async () => {
    const bob = await apiUser();
    expect(await list(bob, {})).toMatchObject({ items: [], count: 0 });
    expect((await bob.call(`/api/accounts?projectId=${big.projectId}`)).status).toBe(404);
    const alicePage = await list(alice, { limit: 2 });
    expect((await bob.call(`/api/accounts?cursor=${alicePage.nextCursor}`)).status).toBe(400);
    const aliceByName = await list(alice, { sort: 'name', limit: 2 });
    const bobByName = await bob.call(`/api/accounts?sort=name&cursor=${aliceByName.nextCursor}`);
    expect(bobByName.status).toBe(400);
    // Bob's own project with the same filters shows his only.
    const bobs = await storedProject(bob.sub, { idPrefix: '01910000', name: 'Alpha', count: 2, shards: 1, failed: [1], synced: [], mailed: [] });
    expect((await list(bob, { platformStatus: 'failed' })).items.map((a) => a.id)).toEqual([keys.accountId(bobs.projectId, 1)]);
  });

  it('reads the failed accounts through the status lists their blocks keep: a page reads about what it shows, whatever the project holds; a retried account leaves the list', async () => {
    const db = testDb();
    const browse = browseAccounts({ db, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    const page = await browse(alice.sub, directoryQuerySchema.parse({ platformStatus: 'failed', projectId: big.projectId, limit: '2' }));
    expect(page.items.map((a) => a.id)).toEqual([40, 22].map((row) => keys.accountId(big.projectId, row)));
    // The 40 accounts are not passed over: the list items (one per block with a failure) and the two accounts.
    expect(page.itemsRead).toBeLessThanOrEqual(2 + 3 + 1 + 3);
    const { Items: lists } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :list)', ExpressionAttributeValues: { ':pk': keys.accountStatesOf(alice.sub, big.projectId).PK, ':list': 'LIST#failed#' } }));
    expect(lists!.flatMap((item) => item.rows as number[]).sort((a, b) => a - b)).toEqual(failed);

    // A retry that syncs row 40: its block's list no longer names it, in the same write.
    const prov = new StateBlockWriter({ db, tableName: TABLE }, { userId: alice.sub, projectId: big.projectId, shards: 3 }, 'PROV', provStatusLists);
    await prov.load(1, 40);
    prov.set(40, { externalStatus: 'success', externalAccountId: 'ext-40', provisionRun: 'run2' });
    await prov.flush();
    const after = await browse(alice.sub, directoryQuerySchema.parse({ platformStatus: 'failed', projectId: big.projectId, limit: '25' }));
    expect(after.items.map((a) => a.id)).toEqual([22, 8, 7, 3].map((row) => keys.accountId(big.projectId, row)));
    const { Item: block40 } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.accountStatusList(alice.sub, big.projectId, 'failed', 1, 40 % 3) }));
    expect(block40?.rows).not.toContain(40);

    // A delivery whose lease lapsed (it read the block before that write) writes neither the block nor its list.
    const late = new StateBlockWriter({ db, tableName: TABLE }, { userId: alice.sub, projectId: big.projectId, shards: 3 }, 'PROV', provStatusLists);
    const current = new StateBlockWriter({ db, tableName: TABLE }, { userId: alice.sub, projectId: big.projectId, shards: 3 }, 'PROV', provStatusLists);
    await Promise.all([late.load(1, 40), current.load(1, 40)]);
    current.set(10, { externalStatus: 'failed', externalError: 'Refused', provisionRun: 'run3' });
    await current.flush();
    late.set(13, { externalStatus: 'failed', externalError: 'Refused', provisionRun: 'run2' });
    await expect(late.flush()).rejects.toBeInstanceOf(StateBlockConflict);
    const { Item: list1 } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.accountStatusList(alice.sub, big.projectId, 'failed', 1, 1) }));
    expect(list1?.rows).toEqual([7, 10, 22]);
  });

  it('fills the lists of blocks written before they existed a bounded step per request, answering right meanwhile, then reads through them', async () => {
    const db = testDb();
    const carol = await apiUser();
    const old = await storedProject(carol.sub, { idPrefix: '01910000', name: 'Old', count: 160, shards: 1, failed: [], synced: [], mailed: [] });
    // 160 blocks as the writer left them before the lists (none beside them): rows 5 and 7,955 failed.
    const blocks = Array.from({ length: 160 }, (_, i) => {
      const fromRow = i * 50 + 1;
      const failedRow = i === 0 ? 5 : i === 159 ? 7955 : undefined;
      return {
        ...keys.accountStateBlock(carol.sub, old.projectId, 'PROV', fromRow, 0),
        entityType: 'AccountStates',
        userId: carol.sub,
        projectId: old.projectId,
        channel: 'PROV',
        shard: 0,
        fromRow,
        rows: { [String(fromRow + 1)]: { externalStatus: 'success' }, ...(failedRow ? { [String(failedRow)]: { externalStatus: 'failed', externalError: 'No' } } : {}) },
        version: 1,
      };
    });
    for (let i = 0; i < blocks.length; i += 25) await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: blocks.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    // The two failed accounts (row 5 exists already; 7,955 is added past the project's 160).
    const { Item: five } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.account(carol.sub, old.projectId, 5) }));
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...five, ...keys.account(carol.sub, old.projectId, 7955), id: keys.accountId(old.projectId, 7955), row: 7955, email: 'late@example.com' } }));
    const { Item: stored } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(carol.sub, old.projectId) }));
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...stored, accountCount: 161, syncFailedCount: 2, syncedCount: 160 } }));

    const expected = [7955, 5].map((row) => keys.accountId(old.projectId, row));
    // First request: 100 of the 160 blocks filled; the project is walked meanwhile, and the answer is the same.
    const first = await everyPage(carol, { platformStatus: 'failed' });
    expect(first.ids).toEqual(expected);
    expect(first.pages[0]).toMatchObject({ count: 2, countIs: 'exact' });
    const project = async () => (await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(carol.sub, old.projectId), ConsistentRead: true }))).Item!;
    expect((await project()).statusListsAt).toBeUndefined();
    expect((await project()).statusListsFillKey).toBe(keys.accountStateBlock(carol.sub, old.projectId, 'PROV', 4951, 0).SK);
    // The next request goes on from there and finishes.
    expect((await everyPage(carol, { platformStatus: 'failed' })).ids).toEqual(expected);
    expect((await project()).statusListsAt).toBeDefined();
    expect((await project()).statusListsFillKey).toBeUndefined();
    const { Item: lastList } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.accountStatusList(carol.sub, old.projectId, 'failed', 7951, 0) }));
    expect(lastList?.rows).toEqual([7955]);
    const browse = browseAccounts({ db, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    const listed = await browse(carol.sub, directoryQuerySchema.parse({ platformStatus: 'failed' }));
    expect(listed.items.map((a) => a.id)).toEqual(expected);
    // Through the lists now: 2 list items and 2 accounts, not the 161 accounts.
    expect(listed.itemsRead).toBe(4);
  });
});
