import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { salesforceUsername } from '../../functions/provisioning/adapters/salesforce';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { SALESFORCE_TEST_VERSION, startFakeSalesforce, type FakeSalesforce } from '../support/fake-salesforce';

/**
 * Provisioning to Salesforce through the API and the queue worker, against the contract fake of
 * Salesforce's REST API (test/support/fake-salesforce.ts: its documented shapes, not the live
 * service) on the stack's allowed private origin.
 */
let user: ApiUser;
let salesforce: FakeSalesforce;
const settings = { usernameDomain: 'acme.example', profileId: '00e5g000001AbCdEFG' };

beforeAll(async () => {
  user = await apiUser();
  await upgradeToPro(user);
  const origin = new URL(inject('stack').fakePlatformOrigin);
  salesforce = await startFakeSalesforce({ port: Number(origin.port), host: origin.hostname });
});
afterAll(() => salesforce?.stop());

async function waitForRun(jobId: string): Promise<ProvisioningJob> {
  const deadline = Date.now() + 25_000;
  for (;;) {
    const job = await user.json<ProvisioningJob>(`/api/provisioning-jobs/${jobId}`);
    expect(job.synced + job.failed + job.pending).toBe(job.total);
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'paused') return job;
    if (Date.now() > deadline) throw new Error(`run ${jobId} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const integrationBody = (apiConfig: object) => ({
  name: 'Salesforce org',
  platform: 'salesforce',
  baseUrl: salesforce.origin,
  authMethod: 'oauth2',
  authConfig: { clientId: 'connected-app', clientSecret: 'right-secret' },
  apiConfig,
});

describe('provisioning to Salesforce (contract fake) through the API', () => {
  it('needs the Salesforce settings before a run starts, with what to set', async () => {
    const bare = (await (await user.call('/api/integrations', { body: integrationBody({}) })).json()) as Integration;
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'No settings', csvData: people(1, 'Bare') } });
    const started = await user.call(`/api/projects/${created.project.id}/provision`, { body: { integrationId: bare.id } });
    expect(started.status).toBe(400);
    expect(JSON.stringify(await started.json())).toContain('the profile id for new users and the domain of their user names');
  });

  it('creates the Users in a collection, sets each generated password, and fails a user name another org holds', async () => {
    const response = await user.call('/api/integrations', { body: integrationBody({ provisioning: { salesforce: settings } }) });
    expect(response.status).toBe(201);
    const integration = (await response.json()) as Integration;
    const tested = await user.json<Integration>(`/api/integrations/${integration.id}/test`, { method: 'POST' });
    expect(tested.lastTestStatus).toBe('success');

    const created = await user.json<{ project: Project; accounts: AccountView[] }>('/api/bulk-create', { body: { projectName: 'Salesforce', csvData: people(5, 'Sf') } });
    const elsewhere = created.accounts[3]!;
    salesforce.state.elsewhere.add(salesforceUsername(elsewhere.username, settings));
    const started = await user.call(`/api/projects/${created.project.id}/provision`, { body: { integrationId: integration.id } });
    expect(started.status).toBe(202);
    const run = await waitForRun(((await started.json()) as ProvisioningJob).id);
    expect(run).toMatchObject({ status: 'completed', total: 5, synced: 4, failed: 1, pending: 0 });

    const collections = salesforce.state.received.filter((r) => r.method === 'POST' && r.path === `${SALESFORCE_TEST_VERSION}/composite/sobjects`);
    expect(collections.length).toBeGreaterThanOrEqual(1);
    expect(collections.flatMap((c) => (c.body as { records: unknown[] }).records)).toHaveLength(5);
    const accounts = (await user.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=10&showPasswords=true`)).items;
    for (const account of accounts) {
      const onOrg = salesforce.state.users.get(salesforceUsername(account.username, settings));
      if (account.id === elsewhere.id) {
        expect(account.externalStatus).toBe('failed');
        expect(account.externalError).toContain('already taken in another Salesforce organization');
        expect(onOrg).toBeUndefined();
        continue;
      }
      expect(account.externalStatus).toBe('success');
      expect(onOrg).toMatchObject({ Id: account.externalAccountId, Email: account.email, password: account.password, IsActive: true });
    }

    // Undo on platform deactivates the synced Users (Salesforce does not delete Users); kept here as removed.
    const undo = await user.json<ProvisioningJob>(`/api/projects/${created.project.id}/provision`, { method: 'POST', body: { integrationId: integration.id, mode: 'undo' } });
    expect(await waitForRun(undo.id)).toMatchObject({ status: 'completed', total: 4, synced: 4, failed: 0 });
    const after = (await user.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=10`)).items;
    for (const account of after.filter((a) => a.id !== elsewhere.id)) {
      expect(account.externalStatus).toBe('removed');
      expect(salesforce.state.users.get(salesforceUsername(account.username, settings))?.IsActive).toBe(false);
    }
    const patches = salesforce.state.received.filter((r) => r.method === 'PATCH');
    expect(patches.map((p) => p.body)).toEqual(Array.from({ length: 4 }, () => ({ IsActive: false })));
  });
});
