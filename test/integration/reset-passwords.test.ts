import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { keys } from '../../functions/core/keys';
import { resetChunks } from '../../functions/security/reset-passwords';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { PasswordResetJob } from '../../shared/schemas/reset-passwords';
import type { MailSend } from '../../shared/schemas/mail-send';
import { PASSWORD_CHANGE_NOTICE } from '../../shared/schemas/email-templates';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { startFakeGraph, type FakeGraph } from '../support/fake-graph';
import { startFakeOkta, type FakeOkta } from '../support/fake-okta';
import { startSlapd, type Slapd } from '../support/slapd';

/**
 * Reset Passwords through the API, the provisioning queue and its worker, against real
 * directories: a SCIM 2.0 provider (bin/local/scim-server.ts, scimmy) and slapd. And Require
 * password change reaching the platforms that have it (Okta, Entra ID: loopback contract servers).
 */
let user: ApiUser;
const origin = () => new URL(inject('stack').fakePlatformOrigin);
const TABLE = 'bulkonboard';

beforeAll(async () => {
  user = await apiUser();
  await upgradeToPro(user);
});

async function waitFor<T extends { status: string }>(path: string, check: (value: T) => void, timeoutMs = 25_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await user.json<T>(path);
    check(value);
    if (value.status === 'completed' || value.status === 'failed' || value.status === 'paused') return value;
    if (Date.now() > deadline) throw new Error(`${path} still ${value.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const waitForRun = (id: string) => waitFor<ProvisioningJob>(`/api/provisioning-jobs/${id}`, (job) => expect(job.synced + job.failed + job.pending).toBe(job.total));
// Every account is accounted for at every moment of a reset.
const waitForReset = (id: string) => waitFor<PasswordResetJob>(`/api/security/reset-passwords/${id}`, (job) => expect(job.done + job.failed + job.pending).toBe(job.total));

const accountsOf = async (projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=100&showPasswords=true`)).items;
const accountItem = async (projectId: string, row: number) =>
  (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.account(user.sub, projectId, row), ConsistentRead: true }))).Item!;
const rowOf = (account: AccountView) => Number(account.id.split('.').pop());

async function resetProject(projectId: string): Promise<PasswordResetJob> {
  const started = await user.call('/api/security/reset-passwords', { body: { projectId } });
  expect(started.status).toBe(202);
  const job = (await started.json()) as PasswordResetJob;
  expect(job).toMatchObject({ projectId, status: 'queued', done: 0, failed: 0 });
  return waitForReset(job.id);
}

describe('Reset Passwords of accounts provisioned to a SCIM 2.0 provider', () => {
  let scim: ScimServer;
  let integration: Integration;
  let project: Project;
  const token = 'reset-test-scim-token';

  beforeAll(async () => {
    scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token });
    const created = await user.call('/api/integrations', {
      body: { name: 'SCIM for resets', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    expect(created.status).toBe(201);
    integration = (await created.json()) as Integration;
  });
  afterAll(() => scim?.stop());

  it('gives every account a new password, stored encrypted, and changes it on the platform; the old one no longer works there', async () => {
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Reset SCIM', csvData: people(3, 'Resetscim'), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    project = created.project;
    expect(await waitForRun(created.summary.provisioningJobId!)).toMatchObject({ status: 'completed', synced: 3 });
    const before = await accountsOf(project.id);
    for (const account of before) expect(scim.passwordMatches(account.username, account.password!)).toBe(true);

    const job = await resetProject(project.id);
    expect(job).toMatchObject({ status: 'completed', total: 3, done: 3, updatedOnPlatform: 3, failed: 0, pending: 0, integrationName: 'SCIM for resets' });

    const after = await accountsOf(project.id);
    for (const account of after) {
      const old = before.find((a) => a.id === account.id)!;
      expect(account.password).not.toBe(old.password);
      // The project's generator rules (defaults here: 12 characters).
      expect(account.password).toHaveLength(12);
      expect(scim.passwordMatches(account.username, account.password!)).toBe(true);
      expect(scim.passwordMatches(account.username, old.password!)).toBe(false);
      const item = await accountItem(project.id, rowOf(account));
      // Stored encrypted, only: no clear password, no second copy left behind.
      expect(JSON.stringify(item)).not.toContain(account.password);
      expect(item.passwordCiphertext).toMatch(/^v\d/);
      expect(item.resetPasswordCiphertext).toBeUndefined();
      expect(item).toMatchObject({ passwordResetRun: job.id, passwordResetStatus: 'updated' });
    }

    // Recorded as a high-severity security event, with the alert in the bell.
    const { Items: events } = await testDb().send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.securityEventsOf(user.sub).PK } }),
    );
    expect(events?.filter((e) => e.type === 'account_passwords_reset')).toEqual([
      expect.objectContaining({ severity: 'high', description: 'Passwords reset for the 3 accounts of project "Reset SCIM"' }),
    ]);
    // The project is free again: a provisioning start or a credential send may follow.
    const { Item: projectItem } = await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), ConsistentRead: true }));
    expect(projectItem?.activePasswordReset).toBeUndefined();
  });

  it('a redelivered start and chunks do not reset anyone twice; a second reset resets again', async () => {
    const stack = inject('stack');
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const before = await accountsOf(project.id);
    const { Items: jobs } = await testDb().send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': keys.user(user.sub).PK, ':p': 'PWRESET#' }, ConsistentRead: true }),
    );
    const job = jobs!.find((j) => j.entityType === 'PasswordReset')!;
    const messages = [{ type: 'reset-start', userId: user.sub, jobId: job.id }, ...resetChunks(user.sub, String(job.id), Number(job.shards), Number(job.maxRow))];
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: stack.queueUrls.provisioning!, Entries: messages.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) })) }));
    await new Promise((r) => setTimeout(r, 3000));
    expect(await user.json<PasswordResetJob>(`/api/security/reset-passwords/${String(job.id)}`)).toMatchObject({ status: 'completed', total: 3, done: 3, failed: 0, pending: 0 });
    expect((await accountsOf(project.id)).map((a) => a.password)).toEqual(before.map((a) => a.password));

    // A second reset is a new job: new passwords again.
    const second = await user.call('/api/security/reset-passwords', { body: { projectId: project.id } });
    const { id } = (await second.json()) as PasswordResetJob;
    const done = await waitForReset(id);
    expect(done).toMatchObject({ status: 'completed', done: 3, updatedOnPlatform: 3 });
    const final = await accountsOf(project.id);
    for (const account of final) {
      expect(account.password).not.toBe(before.find((a) => a.id === account.id)!.password);
      expect(scim.passwordMatches(account.username, account.password!)).toBe(true);
    }
  });

  it('refuses while something else works on the project (409), another project (404) and a missing project (400)', async () => {
    const key = keys.project(user.sub, project.id);
    for (const [attribute, message] of [
      ['activeMailSend', 'Credentials of this project are being e-mailed. Wait for that send to finish, then reset its passwords.'],
      ['activeProvisioningJob', 'This project is being provisioned. Wait for that run to finish, then reset its passwords.'],
      ['activePasswordReset', 'The passwords of this project are being reset already. Wait for that to finish.'],
    ] as const) {
      await testDb().send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'SET #a = :x', ExpressionAttributeNames: { '#a': attribute }, ExpressionAttributeValues: { ':x': 'someone' } }));
      const refused = await user.call('/api/security/reset-passwords', { body: { projectId: project.id } });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ message });
      await testDb().send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'REMOVE #a', ExpressionAttributeNames: { '#a': attribute } }));
    }
    // While a reset holds the project, a credential send and a provisioning run wait for it.
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'SET activePasswordReset = :x', ExpressionAttributeValues: { ':x': 'someone' } }));
    const send = await user.call(`/api/projects/${project.id}/send-credentials`, { body: { scope: 'all' } });
    expect(send.status).toBe(409);
    expect(await send.json()).toMatchObject({ message: 'The passwords of this project are being reset. Send the credentials once the reset has finished.' });
    const provision = await user.call(`/api/projects/${project.id}/provision`, { body: { integrationId: integration.id, mode: 'retry' } });
    expect(provision.status).toBe(409);
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'REMOVE activePasswordReset' }));

    const missing = await user.call('/api/security/reset-passwords', { body: { projectId: '01HZZZZZZZZZZZZZZZZZZZZZZZ' } });
    expect(missing.status).toBe(404);
    const empty = await user.call('/api/security/reset-passwords', { body: {} });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(await empty.json())).toContain('Choose a project');
    expect((await user.call('/api/security/reset-passwords/not-an-id')).status).toBe(404);
  });

  it('an account the platform refuses keeps its previous password, here and there, with the reason; the others are reset', async () => {
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Reset partly', csvData: people(3, 'Resetpart'), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    await waitForRun(created.summary.provisioningJobId!);
    const before = await accountsOf(created.project.id);
    // One account's user was removed on the platform since it was provisioned.
    const gone = before[1]!;
    const scimUser = scim.users().find((u) => u.userName.toLowerCase() === gone.username.toLowerCase())!;
    await fetch(`${scim.url}/Users/${scimUser.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });

    const job = await resetProject(created.project.id);
    expect(job).toMatchObject({ status: 'completed', total: 3, done: 2, updatedOnPlatform: 2, failed: 1, pending: 0 });
    expect(job.failures).toEqual([{ username: gone.username, email: gone.email, reason: expect.stringContaining('no longer on the platform') }]);
    const after = await accountsOf(created.project.id);
    expect(after.find((a) => a.id === gone.id)!.password).toBe(gone.password);
    for (const account of after.filter((a) => a.id !== gone.id)) expect(scim.passwordMatches(account.username, account.password!)).toBe(true);
  });

  it('accounts on no platform get new passwords here only', async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reset local', csvData: people(2, 'Resetlocal') } });
    const before = await accountsOf(created.project.id);
    const job = await resetProject(created.project.id);
    expect(job).toMatchObject({ status: 'completed', total: 2, done: 2, updatedOnPlatform: 0, failed: 0 });
    expect(job.integrationName).toBeUndefined();
    const after = await accountsOf(created.project.id);
    after.forEach((account, i) => expect(account.password).not.toBe(before[i]!.password));
  });
});

describe('Reset Passwords on an LDAP directory (slapd): the person binds with the new password', () => {
  let slapd: Slapd;
  let admin: Client;
  beforeAll(async () => {
    slapd = await startSlapd({ port: Number(new URL(inject('stack').fakeDirectoryOrigin).port) });
    admin = new Client({ url: slapd.url });
    await admin.bind(slapd.rootDn, slapd.rootPassword);
  });
  afterAll(async () => {
    await admin?.unbind();
    await slapd?.stop();
  });

  it('resets a provisioned project: bind with the new password works, the old one is refused', async () => {
    const baseDn = `ou=People,${slapd.suffix}`;
    const integration = await user.json<Integration>('/api/integrations', {
      body: {
        name: 'Directory for resets',
        platform: 'active_directory',
        baseUrl: slapd.url,
        authMethod: 'basic_auth',
        authConfig: { username: slapd.rootDn, password: slapd.rootPassword },
        apiConfig: { provisioning: { ldap: { baseDn, directory: 'openldap' } } },
      },
    });
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Reset LDAP', csvData: people(2, 'Resetldap'), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    expect(await waitForRun(created.summary.provisioningJobId!)).toMatchObject({ synced: 2 });
    const before = await accountsOf(created.project.id);
    expect(await resetProject(created.project.id)).toMatchObject({ status: 'completed', done: 2, updatedOnPlatform: 2, failed: 0 });
    for (const account of await accountsOf(created.project.id)) {
      const old = before.find((a) => a.id === account.id)!;
      const asPerson = new Client({ url: slapd.url });
      await expect(asPerson.bind(account.externalAccountId!, account.password!)).resolves.toBeUndefined();
      await asPerson.unbind();
      const withOld = new Client({ url: slapd.url });
      await expect(withOld.bind(account.externalAccountId!, old.password!)).rejects.toThrow();
    }
  });
});

describe('Require password change reaches the platforms that have it', () => {
  const setRequire = (on: boolean) => user.json('/api/security/settings', { method: 'PUT', body: { requirePasswordChange: on } });
  afterAll(() => setRequire(false));

  it('Okta: created with nextLogin=changePassword (password expired); the run says it was applied', async () => {
    const okta: FakeOkta = await startFakeOkta({ host: origin().hostname, port: Number(origin().port) });
    try {
      const integration = await user.json<Integration>('/api/integrations', { body: { name: 'Okta must change', platform: 'okta', baseUrl: okta.origin, authMethod: 'api_key', authConfig: { apiKey: okta.token } } });
      await setRequire(true);
      const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
        body: { projectName: 'Okta must change', csvData: people(2, 'Oktamust'), apiIntegrationId: integration.id, createExternalAccounts: true },
      });
      const run = await waitForRun(created.summary.provisioningJobId!);
      expect(run).toMatchObject({ status: 'completed', synced: 2, passwordChange: { applied: true, detail: expect.stringContaining('nextLogin=changePassword') } });
      const posts = okta.received.filter((r) => r.method === 'POST' && r.url.startsWith('/api/v1/users?'));
      expect(posts.map((r) => r.url)).toEqual(['/api/v1/users?activate=true&nextLogin=changePassword', '/api/v1/users?activate=true&nextLogin=changePassword']);
      expect([...okta.users.values()].map((u) => u.status)).toEqual(['PASSWORD_EXPIRED', 'PASSWORD_EXPIRED']);

      // Setting off: created active, and the run carries no password-change note.
      await setRequire(false);
      const plain = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
        body: { projectName: 'Okta plain', csvData: people(1, 'Oktaplain'), apiIntegrationId: integration.id, createExternalAccounts: true },
      });
      const plainRun = await waitForRun(plain.summary.provisioningJobId!);
      expect(plainRun.passwordChange).toBeUndefined();
      expect(okta.received.filter((r) => r.method === 'POST').at(-1)!.url).toBe('/api/v1/users?activate=true');
    } finally {
      await okta.stop();
    }
  });

  it('Entra ID: forceChangePasswordNextSignIn true when on, false when off', async () => {
    const graph: FakeGraph = await startFakeGraph({ host: origin().hostname, port: Number(origin().port) });
    try {
      const integration = await user.json<Integration>('/api/integrations', {
        body: {
          name: 'Entra must change',
          platform: 'active_directory',
          baseUrl: graph.baseUrl,
          authMethod: 'oauth2',
          authConfig: { clientId: graph.oauth.clientId, clientSecret: graph.oauth.clientSecret, tokenUrl: graph.oauth.tokenUrl },
          apiConfig: { provisioning: { entraDomain: graph.domain, requestsPerMinute: 600 } },
        },
      });
      // Two people: one $batch of two POST /users.
      const profiles = () =>
        graph.received.filter((r) => r.url === '/v1.0/$batch').flatMap((r) => (r.body as { requests: { body: { passwordProfile: unknown } }[] }).requests.map((q) => q.body.passwordProfile));
      for (const on of [true, false]) {
        graph.received.length = 0;
        await setRequire(on);
        const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
          body: { projectName: `Entra ${String(on)}`, csvData: people(2, `Entra${String(on)}`), apiIntegrationId: integration.id, createExternalAccounts: true },
        });
        const run = await waitForRun(created.summary.provisioningJobId!);
        expect(run).toMatchObject({ status: 'completed', synced: 2 });
        expect(profiles()).toEqual([expect.objectContaining({ forceChangePasswordNextSignIn: on }), expect.objectContaining({ forceChangePasswordNextSignIn: on })]);
      }
    } finally {
      await graph.stop();
    }
  });
});

describe('the credential e-mail after a reset, and with Require password change', () => {
  const setRequire = (on: boolean) => user.json('/api/security/settings', { method: 'PUT', body: { requirePasswordChange: on } });
  afterAll(() => setRequire(false));
  const mailsTo = async (address: string) => {
    const response = await fetch(`${inject('stack').urls.ses}/store`);
    return ((await response.json()) as { emails: { destination: { to: string[] }; body: { html?: string; text?: string } }[] }).emails.filter((m) => m.destination.to.includes(address));
  };
  const sendAll = async (projectId: string) => {
    const started = await user.json<MailSend>(`/api/projects/${projectId}/send-credentials`, { method: 'POST', body: { scope: 'all' } });
    const send = await waitFor<MailSend>(`/api/mail-sends/${started.id}`, () => undefined);
    expect(send).toMatchObject({ status: 'completed', sent: 1 });
  };

  it('carries the new password once resent, and says a new one will be asked for only while the setting is on', async () => {
    await setRequire(true);
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reset and resend', csvData: people(1, 'Resetmail') } });
    const [account] = await accountsOf(created.project.id);
    await sendAll(created.project.id);
    const first = (await mailsTo(account!.email)).at(-1)!;
    expect(first.body.text).toContain(account!.password);
    expect(first.body.text).toContain(PASSWORD_CHANGE_NOTICE);

    await setRequire(false);
    await resetProject(created.project.id);
    const [reset] = await accountsOf(created.project.id);
    expect(reset!.password).not.toBe(account!.password);
    await sendAll(created.project.id);
    const second = (await mailsTo(account!.email)).at(-1)!;
    expect(second.body.text).toContain(reset!.password);
    expect(second.body.text).not.toContain(account!.password);
    expect(second.body.text).not.toContain(PASSWORD_CHANGE_NOTICE);
  });
});
