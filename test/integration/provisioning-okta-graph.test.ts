import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { startFakeGraph, type FakeGraph } from '../support/fake-graph';
import { startFakeOkta, type FakeOkta } from '../support/fake-okta';

/**
 * Whole provisioning runs (bulk creation, the queue, the worker, the adapter) against loopback
 * servers that play Okta's and Microsoft Graph's documented shapes (test/support/fake-*.ts) on the
 * stack's allowed private origin: contract tests of the wiring, not proof against the live services.
 */
let user: ApiUser;
const origin = () => new URL(inject('stack').fakePlatformOrigin);

beforeAll(async () => {
  user = await apiUser();
  await upgradeToPro(user);
});

async function waitForRun(jobId: string, timeoutMs = 25_000): Promise<ProvisioningJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await user.json<ProvisioningJob>(`/api/provisioning-jobs/${jobId}`);
    // Every account of the run is accounted for at every moment.
    expect(job.synced + job.failed + job.pending).toBe(job.total);
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'paused') return job;
    if (Date.now() > deadline) throw new Error(`run ${jobId} still ${job.status}: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function provisionedProject(body: Record<string, unknown>) {
  const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', { body });
  expect(created.summary.provisioningJobId).toBeTruthy();
  const run = await waitForRun(created.summary.provisioningJobId!);
  const accounts = (await user.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=100`)).items;
  const list = await user.json<Project[] | { items: Project[] }>('/api/projects');
  const project = (Array.isArray(list) ? list : list.items).find((p) => p.id === created.project.id)!;
  expect(project.syncedCount + project.syncFailedCount + project.syncPendingCount).toBe(project.accountCount);
  return { run, accounts, project };
}

describe('provisioning to Okta (a loopback server playing its documented shapes)', () => {
  let okta: FakeOkta;
  let integration: Integration;
  beforeAll(async () => {
    okta = await startFakeOkta({ host: origin().hostname, port: Number(origin().port) });
    const response = await user.call('/api/integrations', {
      body: { name: 'Okta org', platform: 'okta', baseUrl: okta.origin, authMethod: 'api_key', authConfig: { apiKey: okta.token }, apiConfig: { provisioning: { oktaLogin: 'email' } } },
    });
    expect(response.status).toBe(201);
    integration = (await response.json()) as Integration;
  });
  afterAll(() => okta?.stop());

  it('creates every account once (SSWS), links the same person, fails a login held by another with the reason, waits out X-Rate-Limit-Reset', async () => {
    const csv = people(6, 'Okta');
    const same = okta.seed({ login: csv[0]!.email.toUpperCase(), email: csv[0]!.email, firstName: 'Okta0', lastName: 'Tester' });
    okta.seed({ login: csv[1]!.email, email: 'someone.else@example.org', firstName: 'Some', lastName: 'One' });
    okta.limits.rateLimited = 2;
    okta.limits.resetInSeconds = 1;

    const { run, accounts, project } = await provisionedProject({ projectName: 'Okta run', csvData: csv, apiIntegrationId: integration.id, createExternalAccounts: true });
    expect(run).toMatchObject({ status: 'completed', total: 6, synced: 5, failed: 1, pending: 0 });
    expect(project).toMatchObject({ syncedCount: 5, syncFailedCount: 1, syncPendingCount: 0 });

    const byEmail = new Map(accounts.map((a) => [a.email, a]));
    expect(byEmail.get(csv[0]!.email)).toMatchObject({ externalStatus: 'success', externalAccountId: same });
    expect(byEmail.get(csv[1]!.email)).toMatchObject({ externalStatus: 'failed', externalError: `The login "${csv[1]!.email}" is already taken on Okta by another person (someone.else@example.org).` });
    for (const person of csv.slice(2)) {
      const account = byEmail.get(person.email)!;
      const onOkta = okta.users.get(account.externalAccountId!);
      expect(onOkta).toMatchObject({ status: 'ACTIVE', profile: { login: person.email, email: person.email, firstName: person.firstName, lastName: 'Tester' } });
    }
    // 2 seeded + 4 created, nobody twice; the two 429s were waited out and sent again.
    expect(okta.users.size).toBe(6);
    const posts = okta.received.filter((r) => r.method === 'POST' && r.url === '/api/v1/users?activate=true');
    expect(posts.length).toBe(6 + 2);
    expect(posts.every((r) => r.authorization === `SSWS ${okta.token}`)).toBe(true);
    // The generated password went to Okta, and nowhere in what the API answers.
    expect(posts.every((r) => typeof (r.body as { credentials?: { password?: { value?: unknown } } }).credentials?.password?.value === 'string')).toBe(true);
  });

  it('Undo on platform deactivates then deletes the synced accounts on Okta (an account an earlier undo left deactivated too), kept here as removed', async () => {
    const { project, accounts } = await provisionedProject({ projectName: 'Okta undo', csvData: people(3, 'Oktaundo'), apiIntegrationId: integration.id, createExternalAccounts: true });
    const ids = accounts.map((a) => a.externalAccountId!);
    expect(ids.every((id) => okta.users.get(id)?.status === 'ACTIVE')).toBe(true);
    // Deactivated on Okta by an undo that stopped there: Okta refuses a second deactivation; the delete still goes.
    okta.users.get(ids[0]!)!.status = 'DEPROVISIONED';

    okta.received.length = 0;
    const undo = await user.json<ProvisioningJob>(`/api/projects/${project.id}/provision`, { method: 'POST', body: { integrationId: integration.id, mode: 'undo' } });
    expect(await waitForRun(undo.id)).toMatchObject({ status: 'completed', total: 3, synced: 3, failed: 0 });
    expect(ids.some((id) => okta.users.has(id))).toBe(false);
    for (const id of ids.slice(1)) {
      expect(okta.received.filter((r) => r.url.startsWith(`/api/v1/users/${id}`)).map((r) => `${r.method} ${r.url}`)).toEqual([`POST /api/v1/users/${id}/lifecycle/deactivate`, `DELETE /api/v1/users/${id}`]);
    }
    const after = (await user.json<Page<AccountView>>(`/api/projects/${project.id}/accounts?limit=100`)).items;
    expect(after.map((a) => a.externalStatus)).toEqual(['removed', 'removed', 'removed']);
  });
});

describe('provisioning to Microsoft Entra ID (a loopback server playing Microsoft Graph\'s documented shapes)', () => {
  let graph: FakeGraph;
  let integration: Integration;
  beforeAll(async () => {
    graph = await startFakeGraph({ host: origin().hostname, port: Number(origin().port) });
    const response = await user.call('/api/integrations', {
      body: {
        name: 'Entra tenant',
        platform: 'active_directory',
        baseUrl: graph.baseUrl,
        authMethod: 'oauth2',
        authConfig: { clientId: graph.oauth.clientId, clientSecret: graph.oauth.clientSecret, tokenUrl: graph.oauth.tokenUrl },
        // A faster pace than Graph's default keeps the test short; the $batch grouping is the same.
        apiConfig: { provisioning: { entraDomain: graph.domain.toUpperCase(), requestsPerMinute: 600 } },
      },
    });
    expect(response.status).toBe(201);
    integration = (await response.json()) as Integration;
    expect(integration.apiConfig.provisioning?.entraDomain).toBe(graph.domain);
  });
  afterAll(() => graph?.stop());

  it('creates 25 accounts in $batch requests of at most 20; only the sub-requests Graph throttled are sent again, after their Retry-After, and end Synced, nobody twice', async () => {
    graph.limits.throttleSubRequests = 2;
    graph.limits.retryAfterSeconds = 1;
    const { run, accounts } = await provisionedProject({ projectName: 'Entra run', csvData: people(25, 'Entra'), apiIntegrationId: integration.id, createExternalAccounts: true });
    expect(run).toMatchObject({ status: 'completed', total: 25, synced: 25, failed: 0, pending: 0 });

    expect(graph.users.size).toBe(25);
    for (const account of accounts) {
      expect(account.externalStatus).toBe('success');
      expect(graph.users.get(account.externalAccountId!)).toMatchObject({ userPrincipalName: `${account.username}@${graph.domain}`, mail: account.email, accountEnabled: true });
    }
    const batches = graph.received.filter((r) => r.url === '/v1.0/$batch');
    expect(batches.every((r) => (r.body as { requests: unknown[] }).requests.length <= 20)).toBe(true);
    const sent = graph.received.flatMap((r) => (r.url === '/v1.0/$batch' ? (r.body as { requests: { body: { userPrincipalName: string } }[] }).requests.map((q) => q.body) : r.url === '/v1.0/users' && r.method === 'POST' ? [r.body as { userPrincipalName: string }] : []));
    // 25 people, 2 of them twice (throttled, then alone).
    expect(sent).toHaveLength(27);
    expect(graph.tokenRequests[0]?.get('scope')).toBe(`${graph.origin}/.default`);
  });

  it('Undo on platform disables the synced accounts in Entra ID (PATCH accountEnabled=false), kept here as removed', async () => {
    const { project, accounts } = await provisionedProject({ projectName: 'Entra undo', csvData: people(2, 'Entraundo'), apiIntegrationId: integration.id, createExternalAccounts: true });
    const undo = await user.json<ProvisioningJob>(`/api/projects/${project.id}/provision`, { method: 'POST', body: { integrationId: integration.id, mode: 'undo' } });
    expect(await waitForRun(undo.id)).toMatchObject({ status: 'completed', total: 2, synced: 2, failed: 0 });
    for (const account of accounts) {
      expect(graph.users.get(account.externalAccountId!)).toMatchObject({ accountEnabled: false });
      expect(graph.received.filter((r) => r.method === 'PATCH' && r.url === `/v1.0/users/${account.externalAccountId}`).map((r) => r.body)).toEqual([{ accountEnabled: false }]);
    }
    const after = (await user.json<Page<AccountView>>(`/api/projects/${project.id}/accounts?limit=100`)).items;
    expect(after.map((a) => a.externalStatus)).toEqual(['removed', 'removed']);
  });

  it('refuses to start without the verified domain, with the reason', async () => {
    const response = await user.call('/api/integrations', {
      body: { name: 'No domain', platform: 'active_directory', baseUrl: graph.baseUrl, authMethod: 'oauth2', authConfig: { clientId: 'a', clientSecret: 'b', tokenUrl: graph.oauth.tokenUrl }, apiConfig: {} },
    });
    const noDomain = (await response.json()) as Integration;
    const refused = await user.call('/api/bulk-create', { body: { projectName: 'No domain', csvData: people(1, 'Nodomain'), apiIntegrationId: noDomain.id, createExternalAccounts: true } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('verified domain');
  });
});
