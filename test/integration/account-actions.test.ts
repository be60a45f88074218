import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { accountActionJobs } from '../../functions/account-actions/account-actions';
import { shardsOf } from '../../functions/accounts/account-partitions';
import { withStates } from '../../functions/accounts/account-states';
import { eraseAccountTraces } from '../../functions/accounts/erase-account-traces';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { issueCredentialLink } from '../../functions/credential-links/issue-credential-link';
import { ACCOUNT_ACTION_RUNNING, type AccountActionJob } from '../../shared/schemas/account-actions';
import type { CredentialLinkState } from '../../shared/schemas/credential-links';
import type { Integration } from '../../shared/schemas/integrations';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { storedHistory } from '../support/stored-history';

/**
 * Deactivate / Reactivate / Delete accounts (POST /api/projects/{id}/account-actions) through the
 * API, the provisioning queue and its worker of the local stack: without a platform (a free user),
 * and on the local SCIM directory (the users looked up there), redelivery, the project's lock.
 */
const TABLE = 'bulkonboard';
const stack = inject('stack');
const origin = () => new URL(stack.fakePlatformOrigin);
const db = testDb();
const getItem = async (Key: Record<string, string>) => (await db.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true }))).Item;

async function waitFor<T extends { status: string }>(user: ApiUser, url: string, check: (value: T) => void, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await user.json<T>(url);
    check(value);
    if (value.status === 'completed' || value.status === 'failed' || value.status === 'paused') return value;
    if (Date.now() > deadline) throw new Error(`${url} still ${value.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
// Every account is accounted for at every moment of an action.
const waitForAction = (user: ApiUser, id: string, timeoutMs?: number) => waitFor<AccountActionJob>(user, `/api/account-actions/${id}`, (job) => expect(job.done + job.failed + job.pending).toBe(job.total), timeoutMs);

async function act(user: ApiUser, projectId: string, body: Record<string, unknown>, timeoutMs?: number): Promise<AccountActionJob> {
  const started = await user.call(`/api/projects/${projectId}/account-actions`, { body });
  expect(started.status, await started.clone().text()).toBe(202);
  const { job } = (await started.json()) as { job: AccountActionJob };
  return waitForAction(user, job.id, timeoutMs);
}
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;
const projectItem = (user: ApiUser, projectId: string) => getItem(keys.project(user.sub, projectId));

/** Issues a one-time link to the account (as a send does) and answers the keys of every item it wrote. */
async function linkItemsOf(user: ApiUser, projectId: string, accountId: string) {
  const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8')));
  const row = Number(accountId.slice(projectId.length + 1));
  const account = keys.account(user.sub, projectId, row, Number((await projectItem(user, projectId))?.accountShards ?? 1));
  const sendId = timeOrderedId();
  await issueCredentialLink({ db, tableName: TABLE, cipher, appUrl: stack.urls.app }, { userId: user.sub, projectId, accountId, accountPK: account.PK, accountSK: account.SK, sendId, expiresInDays: 7 });
  const issue = keys.credentialLinkIssue(user.sub, sendId, accountId);
  const link = keys.credentialLink(String((await getItem(issue))?.tokenHash));
  return [issue, link, keys.globalReference(user.sub, link), keys.accountLink(user.sub, projectId, row, sendId)];
}

describe('account actions without a platform (a free user)', () => {
  let user: ApiUser;
  let project: Project;
  let accounts: AccountView[];

  beforeAll(async () => {
    user = await apiUser();
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Actions local', csvData: people(5, 'Actlocal') } })).project;
    accounts = await accountsOf(user, project.id);
    expect(accounts).toHaveLength(5);
  });

  it('deactivates one account (a job of one), its history says so, its one-time link stops working; reactivates it', async () => {
    const account = accounts[0]!;
    const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8')));
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(user.sub, project.id).PK } }));
    const item = Items.find((i) => i.id === account.id)!;
    const link = await issueCredentialLink({ db, tableName: TABLE, cipher, appUrl: stack.urls.app }, { userId: user.sub, projectId: project.id, accountId: account.id, accountPK: String(item.PK), accountSK: String(item.SK), sendId: timeOrderedId(), expiresInDays: 7 });
    const token = link.url.split('/credentials#')[1]!;
    const linkCall = (what: string) => fetch(`${stack.urls.app}/api/credential-links/${what}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });

    const job = await act(user, project.id, { action: 'deactivate', accountIds: [account.id] });
    expect(job).toMatchObject({ status: 'completed', action: 'deactivate', total: 1, done: 1, failed: 0, onPlatform: 0 });
    const after = await accountsOf(user, project.id);
    expect(after.find((a) => a.id === account.id)?.isActive).toBe(false);
    expect(after.filter((a) => a.id !== account.id).every((a) => a.isActive)).toBe(true);
    const history = await user.json<{ entries: { kind: string }[] }>(`/api/accounts/${account.id}/history`);
    expect(history.entries.map((e) => e.kind)).toContain('deactivated');

    // The link: its state says so, a reveal shows nothing and does not spend it.
    expect(((await (await linkCall('state')).json()) as CredentialLinkState).status).toBe('deactivated');
    const refused = await linkCall('reveal');
    expect(refused.status).toBe(410);
    expect(((await refused.json()) as { message: string }).message).toMatch(/deactivated/);

    expect(await act(user, project.id, { action: 'reactivate', accountIds: [account.id] })).toMatchObject({ status: 'completed', done: 1 });
    expect((await accountsOf(user, project.id)).find((a) => a.id === account.id)?.isActive).toBe(true);
    expect(((await (await linkCall('state')).json()) as CredentialLinkState).status).toBe('ready');

    // Each is a security event: who, what, how many.
    const { Items: events = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.securityEventsOf(user.sub).PK } }));
    expect(events.filter((e) => e.type === 'accounts_deactivated').map((e) => e.description)).toEqual([`Deactivate: account ${account.id} of project "Actions local"`]);
    expect(events.filter((e) => e.type === 'accounts_reactivated')).toHaveLength(1);
  });

  it('deletes two accounts: erased with their usernames, their one-time links and history, the counts and the plan usage go down, and the free user can add again', async () => {
    const userBefore = await getItem(keys.user(user.sub));
    const doomed = accounts.slice(1, 3);
    const kept = accounts[3]!;
    // Each has a history entry and a one-time link; so has an account that stays.
    expect(await act(user, project.id, { action: 'deactivate', accountIds: [...doomed, kept].map((a) => a.id) })).toMatchObject({ status: 'completed', done: 3 });
    const links = new Map<string, Awaited<ReturnType<typeof linkItemsOf>>>();
    for (const account of [...doomed, kept]) links.set(account.id, await linkItemsOf(user, project.id, account.id));
    const historyOf = (account: AccountView) => storedHistory(db, TABLE, user.sub, project.id, Number(account.id.slice(project.id.length + 1)));
    for (const account of [...doomed, kept]) expect(await historyOf(account)).not.toHaveLength(0);

    const job = await act(user, project.id, { action: 'delete', accountIds: doomed.map((a) => a.id) });
    expect(job).toMatchObject({ status: 'completed', total: 2, done: 2, failed: 0 });
    const left = await accountsOf(user, project.id);
    expect(left.map((a) => a.id).sort()).toEqual(accounts.filter((a) => !doomed.includes(a)).map((a) => a.id).sort());
    for (const account of doomed) expect(await getItem(keys.username(user.sub, account.username))).toBeUndefined();
    expect((await projectItem(user, project.id))?.accountCount).toBe(3);
    expect(Number((await getItem(keys.user(user.sub)))?.accountCount)).toBe(Number(userBefore?.accountCount) - 2);
    expect((await user.call(`/api/accounts/${doomed[0]!.id}/history`)).status).toBe(404);
    // Their links (the link, its reference, the send's issue record, the account's list) and history entries are gone; the kept account's stay.
    for (const account of doomed) {
      for (const key of links.get(account.id)!) expect(await getItem(key), `${key.PK} ${key.SK}`).toBeUndefined();
      expect(await historyOf(account)).toHaveLength(0);
    }
    for (const key of links.get(kept.id)!) expect(await getItem(key), `${key.PK} ${key.SK}`).toBeDefined();
    expect(await historyOf(kept)).not.toHaveLength(0);

    // An id of a deleted account names nothing now: 404, as another user's.
    expect((await user.call(`/api/projects/${project.id}/account-actions`, { body: { action: 'delete', accountIds: [doomed[0]!.id] } })).status).toBe(404);
    // The names are free again: a new project takes them.
    const again = await user.json<{ accounts: { username: string }[] }>('/api/bulk-create', { body: { projectName: 'Actions again', csvData: people(5, 'Actlocal') } });
    for (const account of doomed) expect(again.accounts.map((a) => a.username)).toContain(account.username);
  });

  it("a link issued before the account's list of links is found through its latest send and erased too", async () => {
    const account = accounts[4]!;
    const [issue, link, reference, listed] = await linkItemsOf(user, project.id, account.id);
    await db.send(new DeleteCommand({ TableName: TABLE, Key: listed! }));
    const sendId = issue!.SK.split('#')[1]!;
    await eraseAccountTraces({ db, tableName: TABLE }, user.sub, project.id, { id: account.id, row: Number(account.id.slice(project.id.length + 1)), mailSend: sendId }, 1);
    for (const key of [issue!, link!, reference!]) expect(await getItem(key), `${key.PK} ${key.SK}`).toBeUndefined();
  });

  it('redelivered start and chunks change nothing twice', async () => {
    const before = await projectItem(user, project.id);
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': keys.user(user.sub).PK, ':p': 'ACCTACTION#' }, ConsistentRead: true }));
    const deletion = Items.find((j) => j.entityType === 'AccountAction' && j.action === 'delete')!;
    const messages = [accountActionJobs.startMessage(user.sub, String(deletion.id)), ...accountActionJobs.chunks(deletion), ...accountActionJobs.chunks(deletion)];
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: stack.queueUrls.provisioning!, Entries: messages.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) })) }));
    await new Promise((r) => setTimeout(r, 3000));
    expect(await user.json<AccountActionJob>(`/api/account-actions/${String(deletion.id)}`)).toMatchObject({ status: 'completed', total: 2, done: 2, failed: 0 });
    expect((await projectItem(user, project.id))?.accountCount).toBe(before?.accountCount);
  });

  it('answers 404 for another user, 400 for bad input, 409 while another job holds the project (and holds it against them)', async () => {
    const other = await apiUser();
    const id = accounts[0]!.id;
    expect((await other.call(`/api/projects/${project.id}/account-actions`, { body: { action: 'deactivate', accountIds: [id] } })).status).toBe(404);
    const own = (await other.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Other', csvData: people(1, 'Actother') } })).project;
    expect((await other.call(`/api/projects/${own.id}/account-actions`, { body: { action: 'deactivate', accountIds: [id] } })).status).toBe(404);
    expect((await user.call(`/api/projects/${project.id}/account-actions`, { body: { action: 'deactivate', accountIds: [`${own.id}.000001`] } })).status).toBe(404);
    const job = await act(user, project.id, { action: 'deactivate', accountIds: [id] });
    expect((await other.call(`/api/account-actions/${job.id}`)).status).toBe(404);
    for (const body of [{}, { action: 'explode', accountIds: [id] }, { action: 'delete' }, { action: 'delete', accountIds: [] }, { action: 'delete', accountIds: [id], filter: 'all' }, { action: 'delete', accountIds: 'x' }]) {
      const answer = await user.call(`/api/projects/${project.id}/account-actions`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }

    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'SET activeMailSend = :s', ExpressionAttributeValues: { ':s': 'held' } }));
    const busy = await user.call(`/api/projects/${project.id}/account-actions`, { body: { action: 'deactivate', accountIds: [id] } });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { message: string }).message).toMatch(/being e-mailed/);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'REMOVE activeMailSend SET activeAccountAction = :s', ExpressionAttributeValues: { ':s': 'held' } }));
    try {
      const reset = await user.call('/api/security/reset-passwords', { body: { projectId: project.id } });
      expect(reset.status).toBe(409);
      expect(((await reset.json()) as { message: string }).message).toBe(ACCOUNT_ACTION_RUNNING);
    } finally {
      await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'REMOVE activeAccountAction' }));
    }
  });

  it('a long list (over 100 ids, not checked one by one at the start) counts an id with no account as failed; the rest are done', async () => {
    const other = await apiUser();
    const big = (await other.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Long list', csvData: people(100, 'Actlong') } })).project;
    const ids = (await accountsOf(other, big.id)).map((a) => a.id);
    expect(ids).toHaveLength(100);
    const job = await act(other, big.id, { action: 'deactivate', accountIds: [...ids, `${big.id}.000150`] });
    expect(job).toMatchObject({ status: 'completed', total: 101, done: 100, failed: 1, pending: 0 });
    // One or a few ids are checked at the start: 404.
    expect((await other.call(`/api/projects/${big.id}/account-actions`, { body: { action: 'deactivate', accountIds: [`${big.id}.000150`] } })).status).toBe(404);
  });

  it('all accounts of the project: deactivated together', async () => {
    const job = await act(user, project.id, { action: 'deactivate', filter: 'all' });
    expect(job).toMatchObject({ status: 'completed', total: 3, done: 3 });
    expect((await accountsOf(user, project.id)).every((a) => !a.isActive)).toBe(true);
  });
});

describe('account actions on the local SCIM directory', () => {
  let user: ApiUser;
  let scim: ScimServer;
  let integration: Integration;
  const token = 'actions-test-scim-token';

  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
    scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token });
    const created = await user.call('/api/integrations', {
      body: { name: 'SCIM for actions', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    expect(created.status).toBe(201);
    integration = (await created.json()) as Integration;
  });
  afterAll(() => scim?.stop());

  it('deactivates, reactivates and deletes one and many there first, then here', async () => {
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Actions SCIM', csvData: people(4, 'Actscim'), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    const project = created.project;
    expect(await waitFor<ProvisioningJob>(user, `/api/provisioning-jobs/${created.summary.provisioningJobId!}`, () => undefined)).toMatchObject({ status: 'completed', synced: 4 });
    const accounts = await accountsOf(user, project.id);
    const onScim = (username: string) => scim.users().find((u) => u.userName === username);

    const many = accounts.slice(0, 3);
    expect(await act(user, project.id, { action: 'deactivate', accountIds: many.map((a) => a.id) })).toMatchObject({ status: 'completed', total: 3, done: 3, onPlatform: 3, failed: 0, integrationName: 'SCIM for actions' });
    for (const a of many) expect(onScim(a.username)?.active).toBe(false);
    expect(onScim(accounts[3]!.username)?.active).toBe(true);
    expect((await accountsOf(user, project.id)).filter((a) => !a.isActive).map((a) => a.id).sort()).toEqual(many.map((a) => a.id).sort());
    const history = await user.json<{ entries: { kind: string; detail?: string }[] }>(`/api/accounts/${many[0]!.id}/history`);
    expect(history.entries.find((e) => e.kind === 'deactivated')?.detail).toBe('Inactive on the SCIM provider (active false).');

    expect(await act(user, project.id, { action: 'reactivate', accountIds: [many[0]!.id] })).toMatchObject({ status: 'completed', done: 1, onPlatform: 1 });
    expect(onScim(many[0]!.username)?.active).toBe(true);

    const before = await projectItem(user, project.id);
    expect(await act(user, project.id, { action: 'delete', accountIds: [many[1]!.id, accounts[3]!.id] })).toMatchObject({ status: 'completed', done: 2, onPlatform: 2 });
    expect(onScim(many[1]!.username)).toBeUndefined();
    expect(onScim(accounts[3]!.username)).toBeUndefined();
    expect(await projectItem(user, project.id)).toMatchObject({ accountCount: Number(before?.accountCount) - 2, syncedCount: Number(before?.syncedCount) - 2 });

    // An account the platform no longer has: a deactivation is done (said so); a reactivation fails with the platform's words, the account left as it was.
    const gone = many[2]!;
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(user.sub, project.id).PK } }));
    expect(Items.some((i) => i.id === gone.id)).toBe(true);
    await fetch(`${scim.url}/Users/${onScim(gone.username)!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    const refused = await act(user, project.id, { action: 'reactivate', accountIds: [gone.id] });
    expect(refused).toMatchObject({ status: 'completed', done: 0, failed: 1 });
    expect(refused.failures).toEqual([{ accountId: gone.id, username: gone.username, reason: expect.stringMatching(/^Sync Failed: .*nothing to reactivate/) }]);
    expect((await accountsOf(user, project.id)).find((a) => a.id === gone.id)).toMatchObject({ isActive: false, actionError: expect.stringMatching(/^Sync Failed: /) });
  });

  it('sends an edit made here to the platform (update): the names, e-mail and a regenerated username there, the "not yet updated" mark gone', async () => {
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Actions update', csvData: people(2, 'Actupd'), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    expect(await waitFor<ProvisioningJob>(user, `/api/provisioning-jobs/${created.summary.provisioningJobId!}`, () => undefined)).toMatchObject({ status: 'completed', synced: 2 });
    const [account, other] = await accountsOf(user, created.project.id);
    const externalId = account!.externalAccountId!;
    const edited = await user.call(`/api/accounts/${account!.id}`, { method: 'PUT', body: { firstName: 'Renata', lastName: 'Updated', email: 'renata.updated@example.com', regenerateUsername: true } });
    expect(edited.status, await edited.clone().text()).toBe(200);
    const here = (await accountsOf(user, created.project.id)).find((a) => a.id === account!.id)!;
    expect(here.platformChange?.text).toBe('Changed here: not yet updated on SCIM for actions');
    expect(here.username).not.toBe(account!.username);

    expect(await act(user, created.project.id, { action: 'update', accountIds: [account!.id] })).toMatchObject({ status: 'completed', total: 1, done: 1, onPlatform: 1, failed: 0 });
    const there = (await (await fetch(`${scim.url}/Users/${externalId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { userName: string; name?: { givenName?: string; familyName?: string } };
    expect(there).toMatchObject({ userName: here.username, name: expect.objectContaining({ givenName: 'Renata', familyName: 'Updated' }) });
    expect(scim.users().find((u) => u.id === externalId)?.emails).toContain('renata.updated@example.com');
    const after = (await accountsOf(user, created.project.id)).find((a) => a.id === account!.id)!;
    expect(after.platformChange).toBeUndefined();
    const history = await user.json<{ entries: { kind: string }[] }>(`/api/accounts/${account!.id}/history`);
    expect(history.entries[0]?.kind).toBe('updated_on_platform');
    // The other account was not touched there.
    expect(scim.users().find((u) => u.id === other!.externalAccountId)?.userName).toBe(other!.username);
    const { events } = await user.json<{ events: { type: string }[] }>('/api/security/events');
    expect(events.some((e) => e.type === 'accounts_updated_on_platform')).toBe(true);
  });
});

describe('a bulk deactivation through a storm of 429s and 500s on the local SCIM directory', () => {
  const token = 'actions-storm-scim-token';
  const COUNT = 300;
  let user: ApiUser;
  let dir: string;

  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
    dir = mkdtempSync(path.join(tmpdir(), 'actions-storm-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves 0 accounts in a wrong state (here and there) and records each once', async () => {
    const dataFile = path.join(dir, 'scim.json');
    // Provisioned on a calm directory; then the same directory (its store file) answers a share of the requests with 429 or 500.
    let scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token, dataFile });
    let integration: Integration;
    let project: Project;
    try {
      integration = await user.json<Integration>('/api/integrations', {
        body: { name: 'SCIM storm', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
      });
      const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
        body: { projectName: 'Actions storm', csvData: people(COUNT, 'Actstorm'), apiIntegrationId: integration.id, createExternalAccounts: true },
      });
      project = created.project;
      expect(await waitFor<ProvisioningJob>(user, `/api/provisioning-jobs/${created.summary.provisioningJobId!}`, () => undefined, 120_000)).toMatchObject({ status: 'completed', synced: COUNT });
    } finally {
      await scim.stop();
    }
    scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token, dataFile, faults: { rate429: 0.1, rate500: 0.1, retryAfterSeconds: 1 } });
    try {
      const { Items: items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(user.sub, project.id).PK }, ConsistentRead: true }));
      expect(items).toHaveLength(COUNT);
      const job = await act(user, project.id, { action: 'deactivate', accountIds: items.map((i) => String(i.id)) }, 240_000);
      expect(job).toMatchObject({ status: 'completed', total: COUNT });
      expect(job.done + job.failed).toBe(COUNT);
      expect(scim.stats().faults429 + scim.stats().faults500).toBeGreaterThan(0);

      const { Items: stored = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(user.sub, project.id).PK }, ConsistentRead: true }));
      // Read as every reader reads them: with their states (an action's outcome, isActive included, lives in the ACT state blocks).
      const after = await withStates(db, TABLE, { userId: user.sub, projectId: project.id, shards: shardsOf(await projectItem(user, project.id)) }, stored, { consistent: true });
      const there = new Map(scim.users().map((u) => [u.userName, u.active]));
      expect(there.size).toBe(COUNT);
      // Here as there: every account deactivated on the directory is deactivated here, every one refused is active in both.
      const wrong = after.filter((a) => (a.isActive !== false) !== there.get(String(a.username)));
      expect(wrong).toEqual([]);
      expect(after.filter((a) => a.isActive === false)).toHaveLength(job.done);
      const entries = (await storedHistory(db, TABLE, user.sub, project.id)).filter((h) => h.kind === 'deactivated');
      expect(entries).toHaveLength(job.done);
      expect(new Set(entries.map((h) => h.row)).size).toBe(job.done);
    } finally {
      await scim.stop();
    }
  });
});
