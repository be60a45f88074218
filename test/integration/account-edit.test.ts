import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { StateBlockWriter } from '../../functions/accounts/account-state-writer';
import { ACCOUNT_ACTION_RUNNING, BULK_CREATION_RUNNING, PROVISIONING_RUNNING } from '../../functions/accounts/edit-account';
import { keys } from '../../functions/core/keys';
import { usernameYear } from '../../shared/generation/username';
import type { AccountEditResult, AccountHistoryPage } from '../../shared/schemas/account-edit';
import type { BulkCreateSummary, CreatedAccount } from '../../shared/schemas/bulk';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { SecurityEventPage } from '../../shared/schemas/security';
import { apiUser, testDb, type ApiUser } from '../support/api';

type Created = { project: Project; accounts: CreatedAccount[]; summary: BulkCreateSummary };
const TABLE = 'bulkonboard';
const tag = () => randomUUID().replaceAll('-', '').slice(0, 6);

async function createProject(user: ApiUser, rows: { firstName: string; lastName: string; email: string }[]): Promise<Created> {
  return user.json<Created>('/api/bulk-create', { method: 'POST', body: { projectName: `Edit ${tag()}`, csvData: rows } });
}
const edit = (user: ApiUser, id: string, body: unknown) => user.call(`/api/accounts/${encodeURIComponent(id)}`, { method: 'PUT', body });
const search = (user: ApiUser, q: string) => user.json<{ items: AccountView[]; count: number }>(`/api/accounts/search?q=${encodeURIComponent(q)}`);

describe('PUT /api/accounts/{id} (edit an account)', () => {
  let alice: ApiUser;
  let created: Created;
  beforeAll(async () => {
    alice = await apiUser();
    const t = tag();
    created = await createProject(alice, [
      { firstName: `Ann${t}`, lastName: 'Lee', email: `ann.${t}@example.com` },
      { firstName: `Bob${t}`, lastName: 'Stone', email: `bob.${t}@example.com` },
      { firstName: `Cid${t}`, lastName: 'Hill', email: `cid.${t}@example.com` },
    ]);
  });

  it('refuses bad fields with the bulk creator’s messages, and changes nothing', async () => {
    const account = created.accounts[0]!;
    const cases: [unknown, string][] = [
      [{ firstName: '', lastName: 'Lee', email: 'a@example.com' }, 'First name is required'],
      [{ firstName: 'Ann', lastName: '   ', email: 'a@example.com' }, 'Last name is required'],
      [{ firstName: 'Ann', lastName: 'Lee', email: 'not-an-email' }, 'Valid email is required'],
      [{ firstName: 'A'.repeat(101), lastName: 'Lee', email: 'a@example.com' }, 'First name must be at most 100 characters'],
      [{ firstName: 'Ann', lastName: 'Lee\u0007', email: 'a@example.com' }, 'Last name cannot contain line breaks or control characters'],
      [{ firstName: 'Ann', lastName: 'Lee', email: 'a@example.com', regenerateUsername: 'yes' }, 'regenerateUsername must be true or false'],
    ];
    for (const [body, message] of cases) {
      const response = await edit(alice, account.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const answer = (await response.json()) as { message: string; details: { path: string; message: string }[] };
      expect(answer.details.map((d) => d.message)).toContain(message);
    }
    const [stored] = (await search(alice, account.email)).items;
    expect(stored).toMatchObject({ firstName: account.firstName, lastName: account.lastName, email: account.email, username: account.username });
  });

  it('changes the names and e-mail, keeps the username, and search and export read the new values only', async () => {
    const account = created.accounts[0]!;
    const t = tag();
    const response = await edit(alice, account.id, { firstName: `Anna${t}`, lastName: 'Leigh', email: `anna.${t}@example.com` });
    expect(response.status, await response.clone().text()).toBe(200);
    const result = (await response.json()) as AccountEditResult;
    expect(result.account).toMatchObject({ id: account.id, firstName: `Anna${t}`, lastName: 'Leigh', email: `anna.${t}@example.com`, username: account.username });
    expect(result.changes.map((c) => c.field)).toEqual(['firstName', 'lastName', 'email']);
    expect(result.credentialsSentToOldAddress).toBe(false);
    expect(result.account.platformChange).toBeUndefined();

    expect((await search(alice, `Anna${t}`)).items.map((a) => a.id)).toEqual([account.id]);
    expect((await search(alice, `anna.${t}`)).items.map((a) => a.id)).toEqual([account.id]);
    // The old last name is gone from the index (the old first name still begins the kept username).
    expect((await search(alice, 'Lee')).count).toBe(0);
    expect((await search(alice, 'Leigh')).items.map((a) => a.id)).toEqual([account.id]);
    expect((await search(alice, account.email)).count).toBe(0);
    expect((await search(alice, account.username)).items.map((a) => a.id)).toEqual([account.id]);

    const page = await alice.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts`);
    expect(page.items.find((a) => a.id === account.id)).toMatchObject({ firstName: `Anna${t}`, email: `anna.${t}@example.com` });
    const csv = await (await alice.call(`/api/projects/${created.project.id}/export`)).text();
    expect(csv).toContain(`anna.${t}@example.com`);
    expect(csv).not.toContain(account.email);

    // The same values again: nothing to change, nothing written.
    const again = (await (await edit(alice, account.id, { firstName: `Anna${t}`, lastName: 'Leigh', email: `anna.${t}@example.com` })).json()) as AccountEditResult;
    expect(again.changes).toEqual([]);

    const events = await alice.json<SecurityEventPage>('/api/security/events?limit=20');
    expect(events.events.filter((e) => e.type === 'account_edited').map((e) => e.description)).toContain(`Account ${account.username} (${account.id}) edited: First name, Last name, E-mail`);
  });

  it('regenerates the username from the new name on request, releasing the old one; two edits at once get two different names', async () => {
    const [, bob, cid] = created.accounts;
    const t = tag();
    const year = usernameYear(new Date());
    const base = `dana${t}fox${year}`;
    const [first, second] = await Promise.all(
      [bob!, cid!].map(async (account) => {
        const response = await edit(alice, account.id, { firstName: `Dana${t}`, lastName: 'Fox', email: account.email, regenerateUsername: true });
        expect(response.status, await response.clone().text()).toBe(200);
        return (await response.json()) as AccountEditResult;
      }),
    );
    expect([first!.account.username, second!.account.username].sort()).toEqual([base, `${base}-2`]);
    const db = testDb();
    for (const result of [first!, second!]) {
      const claim = await db.send(new GetCommand({ TableName: TABLE, Key: keys.username(alice.sub, result.account.username), ConsistentRead: true }));
      expect(claim.Item?.accountId).toBe(result.account.id);
    }
    // The old names are free again, and searching by them finds nothing.
    for (const old of [bob!, cid!]) {
      expect((await db.send(new GetCommand({ TableName: TABLE, Key: keys.username(alice.sub, old.username), ConsistentRead: true }))).Item).toBeUndefined();
      expect((await search(alice, old.username)).count).toBe(0);
    }
    expect((await search(alice, base)).count).toBe(2);

    // While a bulk creation holds the user's lock (and hands out names), no name is claimed here.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.user(alice.sub), UpdateExpression: 'SET bulkLock = :lock', ExpressionAttributeValues: { ':lock': { owner: 'job', until: Date.now() + 60_000, since: Date.now() } } }));
    const locked = await edit(alice, first!.account.id, { firstName: `Eve${t}`, lastName: 'Fox', email: first!.account.email, regenerateUsername: true });
    expect(locked.status).toBe(409);
    expect(((await locked.json()) as { message: string }).message).toBe(BULK_CREATION_RUNNING);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.user(alice.sub), UpdateExpression: 'REMOVE bulkLock' }));
    expect((await search(alice, `Eve${t}`)).count).toBe(0);

    // Regenerating again with the same name keeps the account's own name.
    const same = (await (await edit(alice, first!.account.id, { firstName: `Dana${t}`, lastName: 'Fox', email: first!.account.email, regenerateUsername: true })).json()) as AccountEditResult;
    expect(same.changes).toEqual([]);
    expect(same.account.username).toBe(first!.account.username);
  });

  it('gives back a name a large import held in its username block', async () => {
    const user = await apiUser();
    const t = tag();
    const { project, accounts } = await createProject(user, [{ firstName: `Ivy${t}`, lastName: 'Block', email: `ivy.${t}@example.com` }]);
    const account = accounts[0]!;
    const db = testDb();
    // As a job's chunk records its names: a block in the names' partition instead of name items.
    const block = { ...keys.usernameBlock(user.sub, account.username, project.id, 0, 0), entityType: 'UsernameBlock', projectId: project.id, jobId: project.id, chunk: 0, names: [`${account.username}-7`, account.username, `${account.username}-9`] };
    await db.send(new DeleteCommand({ TableName: TABLE, Key: keys.username(user.sub, account.username) }));
    await db.send(new PutCommand({ TableName: TABLE, Item: block }));

    const response = await edit(user, account.id, { firstName: `Ivo${t}`, lastName: 'Block', email: account.email, regenerateUsername: true });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as AccountEditResult).account.username).toBe(`ivo${t}block${usernameYear(new Date())}`);
    const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: { PK: block.PK, SK: block.SK }, ConsistentRead: true }));
    expect(Item?.names).toEqual([`${account.username}-7`, `${account.username}-9`]);
  });

  it('refuses an edit while a provisioning run of the project is under way (the run could send either version)', async () => {
    const account = created.accounts[2]!;
    const db = testDb();
    const project = keys.project(alice.sub, created.project.id);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: project, UpdateExpression: 'SET activeProvisioningJob = :run', ExpressionAttributeValues: { ':run': 'run-1' } }));
    const refused = await edit(alice, account.id, { firstName: 'During', lastName: 'Run', email: account.email });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toBe(PROVISIONING_RUNNING);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: project, UpdateExpression: 'REMOVE activeProvisioningJob' }));
    expect((await search(alice, 'During')).count).toBe(0);
    // The same while an account action (e.g. an update sending the accounts' values to the platform) holds the project.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: project, UpdateExpression: 'SET activeAccountAction = :job', ExpressionAttributeValues: { ':job': 'action-1' } }));
    const duringAction = await edit(alice, account.id, { firstName: 'During', lastName: 'Action', email: account.email });
    expect(duringAction.status).toBe(409);
    expect(((await duringAction.json()) as { message: string }).message).toBe(ACCOUNT_ACTION_RUNNING);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: project, UpdateExpression: 'REMOVE activeAccountAction' }));
    expect((await search(alice, 'During')).count).toBe(0);
  });

  it('answers 404 for another user’s account and for ids that name nothing, and changes nothing', async () => {
    const mallory = await apiUser();
    const account = created.accounts[2]!;
    for (const id of [account.id, `${created.project.id}.999999`, 'nonsense', `${created.project.id}.000000`]) {
      expect((await edit(mallory, id, { firstName: 'Mal', lastName: 'Lory', email: 'mal@example.com' })).status, id).toBe(404);
      expect((await mallory.call(`/api/accounts/${encodeURIComponent(id)}/history`)).status, id).toBe(404);
    }
    expect((await edit(alice, `${created.project.id}.999999`, { firstName: 'X', lastName: 'Y', email: 'x@example.com' })).status).toBe(404);
    const [stored] = (await alice.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts`)).items.filter((a) => a.id === account.id);
    expect(stored!.firstName).not.toBe('Mal');
  });
});

describe('GET /api/accounts/{id}/history', () => {
  it('lists created, provisioned, e-mailed, delivered and edited, newest first and paged; a provisioned account says the platform does not have the edit yet', async () => {
    const user = await apiUser();
    const t = tag();
    const created = await createProject(user, [{ firstName: `Hal${t}`, lastName: 'Story', email: `hal.${t}@example.com` }]);
    const account = created.accounts[0]!;
    const projectId = created.project.id;
    const db = testDb();
    const base = Date.parse(account.createdAt);
    // Moments between the creation and the edit below (milliseconds after the creation).
    const at = (ms: number) => new Date(base + ms).toISOString();

    // What a provisioning run and a credentials send record (their state blocks), as they write them.
    const runId = `0190a0b0-0000-7000-8000-${Date.now().toString().padStart(12, '0').slice(-12)}`;
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.provisioningJob(user.sub, runId), entityType: 'ProvisioningJob', id: runId, integrationName: 'Local SCIM directory' } }));
    const target = { userId: user.sub, projectId, shards: 1 };
    const prov = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    await prov.load(1, 1);
    prov.set(1, { externalStatus: 'success', externalAccountId: 'scim-42', provisionedAt: at(1), provisionRun: runId });
    const mail = new StateBlockWriter({ db, tableName: TABLE }, target, 'MAIL');
    await mail.load(1, 1);
    mail.set(1, { emailStatus: 'delivered', emailMessageId: 'ses-1', emailSentAt: at(2), emailStatusAt: at(3) });
    await Promise.all([prov.flush(), mail.flush()]);

    const response = await edit(user, account.id, { firstName: `Hal${t}`, lastName: 'Storey', email: `hal.new.${t}@example.com` });
    expect(response.status, await response.clone().text()).toBe(200);
    const result = (await response.json()) as AccountEditResult;
    expect(result.credentialsSentToOldAddress).toBe(true);
    // Its e-mail status is that of the e-mail to the old address, and says so.
    expect(result.account).toMatchObject({ emailStatus: 'delivered', emailSentToPreviousAddress: true });
    expect(result.account.platformChange).toMatchObject({ platform: 'Local SCIM directory', fields: ['lastName', 'email'], text: 'Changed here: not yet updated on Local SCIM directory' });
    // Lists show it too.
    const listed = (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts`)).items[0]!;
    expect(listed.platformChange?.text).toBe('Changed here: not yet updated on Local SCIM directory');
    expect(listed.emailSentToPreviousAddress).toBe(true);

    const history = await user.json<AccountHistoryPage>(`/api/accounts/${account.id}/history`);
    expect(history.entries.map((e) => e.kind)).toEqual(['edited', 'delivered', 'emailed', 'provisioned', 'created']);
    expect(history.entries[0]).toMatchObject({
      title: 'Edited',
      detail: 'Changed here: not yet updated on Local SCIM directory',
      changes: [
        { field: 'lastName', from: 'Story', to: 'Storey' },
        { field: 'email', from: `hal.${t}@example.com`, to: `hal.new.${t}@example.com` },
      ],
    });
    expect(history.entries[3]).toMatchObject({ title: 'Synced on Local SCIM directory', detail: 'Platform id scim-42', at: at(1) });
    expect(history.entries[4]).toMatchObject({ title: 'Created', detail: `Imported into ${created.project.name} by the import that created the project` });
    expect(history.nextCursor).toBeUndefined();

    // Paged: two at a time, same order, nothing twice.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page: AccountHistoryPage = await user.json<AccountHistoryPage>(`/api/accounts/${account.id}/history?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries.map((e) => e.kind));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['edited', 'delivered', 'emailed', 'provisioned', 'created']);

    expect((await user.call(`/api/accounts/${account.id}/history?limit=0`)).status).toBe(400);
    expect((await user.call(`/api/accounts/${account.id}/history?cursor=bm9wZQ`)).status).toBe(400);

    // The entry is stored beside the project's accounts (erased with the project).
    const { Items } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountHistoryOf(user.sub, projectId, 1).PK } }));
    expect(Items?.map((i) => i.kind)).toEqual(['edited']);
    expect(keys.projectPartitions(user.sub, projectId)).toContain(Items![0]!.PK);
  });
});
