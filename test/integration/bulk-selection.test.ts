import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { passwordResets } from '../../functions/security/reset-passwords';
import { credentialSends, planOf } from '../../functions/mail/credential-sends';
import { keys } from '../../functions/core/keys';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import type { Integration } from '../../shared/schemas/integrations';
import type { MailSend } from '../../shared/schemas/mail-send';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { PasswordResetJob } from '../../shared/schemas/reset-passwords';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';

/**
 * The project page's bulk bar over a selection (listed accounts or a filter: 'failed' = the
 * platform sync failed, 'unsent' = never e-mailed): Reset password and Send credentials, and the
 * account actions' filters, through the API, the queues and their workers of the local stack, on
 * the local SCIM directory. Each filter is evaluated once per account when its chunk reaches it
 * (functions/account-jobs/selection.ts); the counts add up; other users' ids answer 404.
 */
const TABLE = 'bulkonboard';
const stack = inject('stack');
const origin = () => new URL(stack.fakePlatformOrigin);
const db = testDb();

interface StoredMail {
  destination: { to: string[] };
}
const mailStore = async (): Promise<StoredMail[]> => ((await (await fetch(`${stack.urls.ses}/store`)).json()) as { emails: StoredMail[] }).emails;
const mailsTo = async (address: string) => (await mailStore()).filter((m) => m.destination.to.includes(address)).length;

async function waitFor<T extends { status: string }>(user: ApiUser, url: string, check: (value: T) => void, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await user.json<T>(url);
    check(value);
    if (value.status === 'completed' || value.status === 'failed') return value;
    if (Date.now() > deadline) throw new Error(`${url} still ${value.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
// Every account is accounted for at every moment: done + failed + skipped + pending = total.
const addsUp = (job: { total: number; done: number; failed: number; pending: number; skipped?: number }) => expect(job.done + job.failed + (job.skipped ?? 0) + job.pending).toBe(job.total);
const sendAddsUp = (send: MailSend) => expect(send.queued + send.sent + send.failed + send.suppressed + (send.skipped ?? 0) + send.pending).toBe(send.total);

/** Puts the messages on the queue again (as a redelivery would) and waits until its workers took every copy. */
async function redeliver(queueUrl: string, messages: unknown[]): Promise<void> {
  const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  try {
    for (let i = 0; i < messages.length; i += 10) {
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: messages.slice(i, i + 10).map((m, n) => ({ Id: String(n), MessageBody: JSON.stringify(m) })) }));
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }));
      const left = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'].reduce((sum, name) => sum + Number(attrs.Attributes?.[name as 'ApproximateNumberOfMessages'] ?? 0), 0);
      if (left === 0) return;
      if (Date.now() > deadline) throw new Error(`still ${left} messages on the queue`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    sqs.destroy();
  }
}

async function reset(user: ApiUser, body: Record<string, unknown>): Promise<PasswordResetJob> {
  const started = await user.call('/api/security/reset-passwords', { body });
  expect(started.status, await started.clone().text()).toBe(202);
  return waitFor<PasswordResetJob>(user, `/api/security/reset-passwords/${((await started.json()) as PasswordResetJob).id}`, addsUp);
}
async function send(user: ApiUser, projectId: string, body: Record<string, unknown>): Promise<MailSend> {
  const started = await user.call(`/api/projects/${projectId}/send-credentials`, { body: { scope: 'selection', ...body } });
  expect(started.status, await started.clone().text()).toBe(202);
  return waitFor<MailSend>(user, `/api/mail-sends/${((await started.json()) as MailSend).id}`, sendAddsUp);
}
async function act(user: ApiUser, projectId: string, body: Record<string, unknown>): Promise<AccountActionJob> {
  const started = await user.call(`/api/projects/${projectId}/account-actions`, { body });
  expect(started.status, await started.clone().text()).toBe(202);
  return waitFor<AccountActionJob>(user, `/api/account-actions/${((await started.json()) as { job: AccountActionJob }).job.id}`, addsUp);
}
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500&showPasswords=true`)).items;
const events = async (user: ApiUser, type: string) =>
  ((await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.securityEventsOf(user.sub).PK } }))).Items ?? []).filter((e) => e.type === type).map((e) => String(e.description));

describe('the bulk bar over a selection, on the local SCIM directory', () => {
  let user: ApiUser;
  let scim: ScimServer;
  let integration: Integration;
  let project: Project;
  let accounts: AccountView[];
  const token = 'selection-test-scim-token';
  const tag = `Sel${Date.now() % 100_000}`;
  const everyone = people(6, tag);
  // Rows 2 and 5: their user names are held by someone else on the directory, so their sync fails.
  const taken = [everyone[1]!, everyone[4]!];
  const isTaken = (a: AccountView) => taken.some((p) => p.email === a.email);

  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
    scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token });
    const created = await user.call('/api/integrations', {
      body: { name: 'SCIM for selections', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    expect(created.status).toBe(201);
    integration = (await created.json()) as Integration;
    for (const person of taken) {
      const answer = await fetch(`${scim.url}/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: baseUsername(person.firstName, person.lastName, usernameYear(new Date())), emails: [{ value: `someone.else.${person.email}`, primary: true }], active: true }),
      });
      expect(answer.status).toBe(201);
    }
    const bulk = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Selections', csvData: everyone, apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    project = bulk.project;
    expect(await waitFor<ProvisioningJob>(user, `/api/provisioning-jobs/${bulk.summary.provisioningJobId!}`, () => undefined)).toMatchObject({ status: 'completed', synced: 4, failed: 2 });
    accounts = await accountsOf(user, project.id);
    expect(accounts.filter((a) => a.externalStatus === 'failed').map((a) => a.email).sort()).toEqual(taken.map((p) => p.email).sort());
  });
  afterAll(() => scim?.stop());

  it("sends credentials to the listed accounts, then to the 'unsent' filter: each account holder gets exactly one e-mail", async () => {
    const picked = [accounts[0]!, accounts[3]!];
    const first = await send(user, project.id, { accountIds: picked.map((a) => a.id) });
    expect(first).toMatchObject({ status: 'completed', scope: 'selection', total: 2, sent: 2, failed: 0, pending: 0 });
    for (const a of accounts) expect(await mailsTo(a.email), a.email).toBe(picked.includes(a) ? 1 : 0);
    expect(await events(user, 'credentials_sent')).toEqual([`Send credentials: 2 accounts of project "Selections"`]);

    const rest = await send(user, project.id, { filter: 'unsent' });
    expect(rest).toMatchObject({ status: 'completed', filter: 'unsent', total: 4, sent: 4, pending: 0 });
    expect(rest.skipped).toBeUndefined();
    for (const a of accounts) expect(await mailsTo(a.email), a.email).toBe(1);
    // Nobody left never e-mailed: the filter takes no account now.
    const none = await user.call(`/api/projects/${project.id}/send-credentials`, { body: { scope: 'selection', filter: 'unsent' } });
    expect(none.status).toBe(409);
    expect(await none.json()).toMatchObject({ message: 'Every account of this project has been e-mailed already.' });

    // The 'failed' filter (sync failed): exactly those two, once more each.
    expect(await send(user, project.id, { filter: 'failed' })).toMatchObject({ status: 'completed', total: 2, sent: 2 });
    for (const a of accounts) expect(await mailsTo(a.email), a.email).toBe(isTaken(a) ? 2 : 1);
  });

  it('a redelivered start and chunks of a send over a selection e-mail nobody twice', async () => {
    const before = await Promise.all(accounts.map((a) => mailsTo(a.email)));
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': keys.user(user.sub).PK, ':p': 'MAILSEND#' }, ConsistentRead: true }));
    const sends = Items.filter((j) => j.entityType === 'MailSend' && j.scope === 'selection');
    expect(sends.map((j) => (Array.isArray(j.rows) ? 'rows' : String(j.filter))).sort()).toEqual(['failed', 'rows', 'unsent']);
    const messages = sends.flatMap((send) => [credentialSends.startMessage(user.sub, String(send.id)), ...planOf(send), ...planOf(send)]);
    await redeliver(stack.queueUrls.mail!, messages);
    for (const send of sends) {
      const view = await user.json<MailSend>(`/api/mail-sends/${String(send.id)}`);
      expect(view).toMatchObject({ status: 'completed', total: Number(send.total), sent: Number(send.total), pending: 0, queued: 0 });
    }
    expect(await Promise.all(accounts.map((a) => mailsTo(a.email)))).toEqual(before);
  });

  it("resets the passwords of the listed accounts, then of the 'failed' filter: only those change", async () => {
    const before = await accountsOf(user, project.id);
    const picked = before.find((a) => a.externalStatus === 'success')!;
    const one = await reset(user, { projectId: project.id, accountIds: [picked.id] });
    expect(one).toMatchObject({ status: 'completed', total: 1, done: 1, updatedOnPlatform: 1, failed: 0, pending: 0 });
    const afterOne = await accountsOf(user, project.id);
    for (const a of afterOne) expect(a.password !== before.find((b) => b.id === a.id)!.password, a.username).toBe(a.id === picked.id);
    expect(scim.passwordMatches(picked.username, afterOne.find((a) => a.id === picked.id)!.password!)).toBe(true);

    const failed = await reset(user, { projectId: project.id, filter: 'failed' });
    // Not on the platform: new passwords here only.
    expect(failed).toMatchObject({ status: 'completed', total: 2, done: 2, updatedOnPlatform: 0, failed: 0, pending: 0 });
    const afterFailed = await accountsOf(user, project.id);
    for (const a of afterFailed) expect(a.password !== afterOne.find((b) => b.id === a.id)!.password, a.username).toBe(isTaken(a));
    expect(await events(user, 'account_passwords_reset')).toEqual(
      expect.arrayContaining([`Passwords reset for account ${picked.id} of project "Selections", on SCIM for selections too`, `Passwords reset for the 2 accounts whose sync failed of project "Selections", on SCIM for selections too`]),
    );
  });

  it('a redelivered start and chunks of a filtered reset reset nobody twice', async () => {
    const before = await accountsOf(user, project.id);
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': keys.user(user.sub).PK, ':p': 'PWRESET#' }, ConsistentRead: true }));
    const job = Items.find((j) => j.entityType === 'PasswordReset' && j.filter === 'failed')!;
    const messages = [passwordResets.startMessage(user.sub, String(job.id)), ...passwordResets.chunks(job), ...passwordResets.chunks(job)];
    await redeliver(stack.queueUrls.provisioning!, messages);
    expect(await user.json<PasswordResetJob>(`/api/security/reset-passwords/${String(job.id)}`)).toMatchObject({ status: 'completed', total: 2, done: 2, failed: 0, pending: 0 });
    expect((await accountsOf(user, project.id)).map((a) => a.password)).toEqual(before.map((a) => a.password));
  });

  it("deactivates the 'failed' filter: exactly those; an account that no longer matches when reached is skipped and the counts add up", async () => {
    // One of the two is no longer Sync Failed by the time the chunk reaches it (as if its sync
    // had been retried): the job counted it at the start, skips it, and says so.
    const [stillFailed, noLonger] = accounts.filter(isTaken);
    const key = keys.project(user.sub, project.id);
    const { Items: blocks = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountStatesOf(user.sub, project.id).PK }, ConsistentRead: true }));
    const prov = blocks.find((b) => b.channel === 'PROV')!;
    const row = Number(noLonger!.id.split('.').pop());
    await db.send(new UpdateCommand({ TableName: TABLE, Key: { PK: prov.PK, SK: prov.SK }, UpdateExpression: 'SET #rows.#row.externalStatus = :pending', ExpressionAttributeNames: { '#rows': 'rows', '#row': String(row) }, ExpressionAttributeValues: { ':pending': 'pending' } }));
    const job = await act(user, project.id, { action: 'deactivate', filter: 'failed' });
    expect(job).toMatchObject({ status: 'completed', total: 2, done: 1, failed: 0, skipped: 1, pending: 0 });
    const after = await accountsOf(user, project.id);
    expect(after.filter((a) => !a.isActive).map((a) => a.id)).toEqual([stillFailed!.id]);
    expect(scim.users().every((u) => u.active !== false)).toBe(true);
    expect(await events(user, 'accounts_deactivated')).toEqual([`Deactivate: the 2 accounts whose sync failed of project "Selections", on SCIM for selections first`]);
    // Put back as it was for the other tests.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: { PK: prov.PK, SK: prov.SK }, UpdateExpression: 'SET #rows.#row.externalStatus = :failed', ExpressionAttributeNames: { '#rows': 'rows', '#row': String(row) }, ExpressionAttributeValues: { ':failed': 'failed' } }));
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item?.activeAccountAction).toBeUndefined();
  });

  it("the page's own views as filters: 'deactivated' counted on request, and sent to exactly those", async () => {
    const deactivated = (await accountsOf(user, project.id)).filter((a) => !a.isActive);
    expect(deactivated).toHaveLength(1);
    expect(await user.json(`/api/projects/${project.id}/account-selection?filter=deactivated`)).toEqual({ filter: 'deactivated', count: 1 });
    expect(await user.json(`/api/projects/${project.id}/account-selection?filter=active`)).toEqual({ filter: 'active', count: 5 });
    expect(await user.json(`/api/projects/${project.id}/account-selection?filter=failed`)).toEqual({ filter: 'failed', count: 2 });
    expect((await user.call(`/api/projects/${project.id}/account-selection?filter=sometimes`)).status).toBe(400);
    expect((await user.call(`/api/projects/${project.id}/account-selection`)).status).toBe(400);
    const other = await apiUser();
    expect((await other.call(`/api/projects/${project.id}/account-selection?filter=deactivated`)).status).toBe(404);

    const before = await Promise.all(accounts.map((a) => mailsTo(a.email)));
    expect(await send(user, project.id, { filter: 'deactivated' })).toMatchObject({ status: 'completed', filter: 'deactivated', total: 1, sent: 1, pending: 0 });
    const after = await Promise.all(accounts.map((a) => mailsTo(a.email)));
    accounts.forEach((a, i) => expect(after[i]! - before[i]!, a.email).toBe(a.id === deactivated[0]!.id ? 1 : 0));
    expect(await act(user, project.id, { action: 'reactivate', filter: 'deactivated' })).toMatchObject({ status: 'completed', total: 1, done: 1 });
    expect((await accountsOf(user, project.id)).every((a) => a.isActive)).toBe(true);
    const none = await user.call(`/api/projects/${project.id}/account-actions`, { body: { action: 'reactivate', filter: 'deactivated' } });
    expect(none.status).toBe(409);
    expect(await none.json()).toMatchObject({ message: 'No account of this project is deactivated.' });
  });

  it('answers 404 for ids not of the project (another user, another project), 400 for bad input, 409 while another job holds the project', async () => {
    const other = await apiUser();
    await upgradeToPro(other);
    const own = (await other.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Other', csvData: people(1, `${tag}other`) } })).project;
    const mine = accounts[0]!.id;
    const foreign = `${own.id}.000001`;
    // Another user's project, or ids of it in mine.
    expect((await other.call('/api/security/reset-passwords', { body: { projectId: project.id, accountIds: [mine] } })).status).toBe(404);
    expect((await other.call(`/api/projects/${project.id}/send-credentials`, { body: { scope: 'selection', accountIds: [mine] } })).status).toBe(404);
    expect((await other.call('/api/security/reset-passwords', { body: { projectId: own.id, accountIds: [mine] } })).status).toBe(404);
    expect((await other.call(`/api/projects/${own.id}/send-credentials`, { body: { scope: 'selection', accountIds: [mine] } })).status).toBe(404);
    expect((await user.call('/api/security/reset-passwords', { body: { projectId: project.id, accountIds: [mine, foreign] } })).status).toBe(404);
    expect((await user.call(`/api/projects/${project.id}/send-credentials`, { body: { scope: 'selection', accountIds: [foreign] } })).status).toBe(404);
    expect((await user.call(`/api/projects/${project.id}/send-credentials`, { body: { scope: 'selection', accountIds: [`${project.id}.000999`] } })).status).toBe(404);
    for (const body of [{ projectId: project.id, accountIds: [] }, { projectId: project.id, filter: 'nope' }, { projectId: project.id, accountIds: [mine], filter: 'failed' }, { projectId: project.id, accountIds: 'x' }]) {
      const answer = await user.call('/api/security/reset-passwords', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    for (const body of [{ scope: 'selection' }, { scope: 'selection', accountIds: [mine], filter: 'all' }, { scope: 'all', accountIds: [mine] }, { scope: 'selection', filter: 'sometimes' }]) {
      const answer = await user.call(`/api/projects/${project.id}/send-credentials`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    const key = keys.project(user.sub, project.id);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'SET activeAccountAction = :x', ExpressionAttributeValues: { ':x': 'someone' } }));
    try {
      expect((await user.call('/api/security/reset-passwords', { body: { projectId: project.id, accountIds: [mine] } })).status).toBe(409);
      expect((await user.call(`/api/projects/${project.id}/send-credentials`, { body: { scope: 'selection', filter: 'failed' } })).status).toBe(409);
    } finally {
      await db.send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'REMOVE activeAccountAction' }));
    }
  });
});
