import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CreateQueueCommand, DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { recordOf } from '../../functions/integrations/integration-record';
import { adapterFactory, pacingOf } from '../../functions/provisioning/adapters';
import { provisionChunk, type ProvisionDeps } from '../../functions/provisioning/provision-accounts';
import { planRun, readJob, startProvisioning } from '../../functions/provisioning/provisioning-jobs';
import { sqsProvisioningQueue } from '../../functions/provisioning/sqs-provisioning-queue';
import { dynamoPlanReader } from '../../functions/usage/plan-store';
import { chunkPlan } from '../../functions/provisioning/provisioning-jobs';
import { accountActionJobs } from '../../functions/account-actions/account-actions';
import { GROUP_CLAIM_MS, resolveRunGroups } from '../../functions/provisioning/run-groups';
import type { GroupOperations } from '../../functions/provisioning/provisioning-port';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProjectDeletion } from '../../shared/schemas/project-deletion';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { startSlapd, type Slapd } from '../support/slapd';
import { until } from '../support/until';

/**
 * A project's platform groups (issue 28 item 5) through the API, the provisioning queue and its
 * worker of the local stack, on the real local SCIM directory (scimmy's Groups): the project's
 * Edit (Pro, validation in words, another user's 404), a missing group without permission failing
 * the accounts in words, groups created when allowed and joined by every account, a redelivered
 * run adding nobody twice, Delete taking the account out of the groups (Deactivate keeping them);
 * and on slapd, a groupOfNames created and joined, then left on Delete.
 */
const stack = inject('stack');
const origin = () => new URL(stack.fakePlatformOrigin);
const token = 'groups-test-scim-token';

const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;
const runOf = (user: ApiUser, id: string) => until('the provisioning run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${id}`), (r) => r.status === 'completed' || r.status === 'failed' || r.status === 'paused');
const edit = (user: ApiUser, project: Project, changes: Record<string, unknown>) =>
  user.call(`/api/projects/${project.id}`, { method: 'PUT', body: { name: project.name, accountType: project.accountType, ...changes } });

describe('project groups on the local SCIM directory', () => {
  let user: ApiUser;
  let scim: ScimServer;
  let integration: Integration;
  let project: Project;

  beforeAll(async () => {
    scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token });
    user = await apiUser();
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Groups SCIM', csvData: people(3, 'Grp') } })).project;
  });
  afterAll(() => scim?.stop());

  it('a free user cannot name groups (the upgrade message); clearing them is allowed', async () => {
    const refused = await edit(user, project, { groups: ['Staff'] });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toMatch(/API Integrations/);
    expect((await edit(user, project, { groups: [] })).status).toBe(200);
    const created = await user.call('/api/bulk-create', { body: { projectName: 'Grouped at creation', csvData: people(1, 'Grpfree'), groups: ['Staff'] } });
    expect(created.status).toBe(403);
  });

  it('checks group names in words (400), never a 500', async () => {
    await upgradeToPro(user);
    const cases: [unknown, string][] = [
      [Array.from({ length: 11 }, (_, i) => `G${i}`), 'A project can join at most 10 groups'],
      [['Staff', 'staff'], 'Each group can be named only once'],
      [['  '], 'A group name cannot be empty'],
      [['x'.repeat(121)], 'A group name must be at most 120 characters'],
      [['bad\u0007name'], 'A group name cannot contain control characters'],
      ['Staff', 'Groups must be a list of group names'],
      [[42], 'Group names must be text'],
    ];
    for (const [groups, message] of cases) {
      const answer = await edit(user, project, { groups });
      expect(answer.status, JSON.stringify(groups)).toBe(400);
      expect(JSON.stringify(await answer.json())).toContain(message);
    }
    expect((await edit(user, project, { createGroups: 'yes' })).status).toBe(400);
    // At creation too, with the same rules.
    const refused = await user.call('/api/bulk-create', { body: { projectName: 'Grouped at creation', csvData: people(1, 'Grpnew'), groups: ['A', 'a'] } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('Each group can be named only once');
    const { project: made } = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Grouped at creation', csvData: people(1, 'Grpnew'), groups: ['Sales'], createGroups: true } });
    expect(made).toMatchObject({ groups: ['Sales'], createGroups: true });
  });

  it("another user's project answers 404", async () => {
    const other = await apiUser();
    await upgradeToPro(other);
    expect((await edit(other, project, { groups: ['Staff'] })).status).toBe(404);
    expect((await user.json<Project[]>('/api/projects')).find((p) => p.id === project.id)).toBeDefined();
  });

  it('a missing group without permission fails each account in words, nothing created; allowed, the groups are created and joined once', async () => {
    // 'Staff' exists on the directory; 'New Hires' does not.
    const made = await fetch(`${scim.url}/Groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Staff', members: [] }),
    });
    expect(made.status).toBe(201);
    const saved = await edit(user, project, { groups: ['Staff', 'New Hires'] });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ groups: ['Staff', 'New Hires'] });
    expect((await user.json<Project[]>('/api/projects')).find((p) => p.id === project.id)).toMatchObject({ groups: ['Staff', 'New Hires'] });

    integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'SCIM for groups', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const first = await user.json<ProvisioningJob>(`/api/projects/${project.id}/provision`, { body: { integrationId: integration.id, mode: 'provision' } });
    expect(await runOf(user, first.id)).toMatchObject({ status: 'completed', synced: 0, failed: 3 });
    for (const account of await accountsOf(user, project.id)) {
      expect(account.externalStatus).toBe('failed');
      expect(account.externalError).toContain(`The group "New Hires" does not exist on SCIM for groups, and this project does not create missing groups`);
    }
    expect(scim.users()).toHaveLength(0);
    expect(scim.groups().map((g) => g.displayName)).toEqual(['Staff']);

    const allowed = await edit(user, project, { groups: ['Staff', 'New Hires'], createGroups: true });
    expect(await allowed.json()).toMatchObject({ groups: ['Staff', 'New Hires'], createGroups: true });
    const retry = await user.json<ProvisioningJob>(`/api/projects/${project.id}/provision`, { body: { integrationId: integration.id, mode: 'retry' } });
    expect(await runOf(user, retry.id)).toMatchObject({ status: 'completed', synced: 3, failed: 0 });
    const ids = (await accountsOf(user, project.id)).map((a) => a.externalAccountId!).sort();
    expect(ids).toHaveLength(3);
    const groups = () => new Map(scim.groups().map((g) => [g.displayName, [...g.members].sort()]));
    expect(groups()).toEqual(new Map([['Staff', ids], ['New Hires', ids]]));

    // The run's chunks delivered again: nothing changes, nobody added twice, no group made twice.
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const messages = chunkPlan(user.sub, retry.id, 1, 3);
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: stack.queueUrls.provisioning!, Entries: messages.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) })) }));
    const requests = scim.stats().requests;
    await new Promise((r) => setTimeout(r, 3000));
    expect(await user.json<ProvisioningJob>(`/api/provisioning-jobs/${retry.id}`)).toMatchObject({ status: 'completed', synced: 3, failed: 0 });
    expect(scim.stats().requests).toBe(requests);
    expect(groups()).toEqual(new Map([['Staff', ids], ['New Hires', ids]]));
  });

  it('Deactivate keeps the memberships; Delete takes the account out of the groups first', async () => {
    const [kept, gone] = await accountsOf(user, project.id);
    const act = async (body: Record<string, unknown>) => {
      const { job } = await user.json<{ job: AccountActionJob }>(`/api/projects/${project.id}/account-actions`, { body });
      return until('the action', () => user.json<AccountActionJob>(`/api/account-actions/${job.id}`), (j) => j.status === 'completed' || j.status === 'failed');
    };
    expect(await act({ action: 'deactivate', accountIds: [kept!.id] })).toMatchObject({ status: 'completed', done: 1, failed: 0 });
    expect(scim.groups().every((g) => g.members.includes(kept!.externalAccountId!))).toBe(true);
    expect(await act({ action: 'delete', accountIds: [gone!.id] })).toMatchObject({ status: 'completed', done: 1, failed: 0 });
    expect(scim.users().find((u) => u.id === gone!.externalAccountId)).toBeUndefined();
    for (const group of scim.groups()) {
      expect(group.members).not.toContain(gone!.externalAccountId);
      expect(group.members).toContain(kept!.externalAccountId);
    }
  });

  it("the project's deletion takes its accounts out of the groups before deleting them there", async () => {
    const left = (await accountsOf(user, project.id)).map((a) => a.externalAccountId!);
    expect(left).toHaveLength(2);
    const started = await user.call(`/api/projects/${project.id}`, { method: 'DELETE' });
    expect(started.status, await started.clone().text()).toBe(202);
    const { id } = (await started.json()) as ProjectDeletion;
    expect(await until('the deletion', () => user.json<ProjectDeletion>(`/api/project-deletions/${id}`), (d) => d.status === 'completed' || d.status === 'failed')).toMatchObject({ status: 'completed', kept: 0 });
    expect(scim.users()).toHaveLength(0);
    expect(scim.groups().map((g) => [g.displayName, g.members])).toEqual([
      ['Staff', []],
      ['New Hires', []],
    ]);
  });
});

describe("a provisioned project's groups changed: its Synced accounts join and leave (the groups action)", () => {
  let user: ApiUser;
  let scim: ScimServer;
  let project: Project;
  const act = async (who: ApiUser, projectId: string, body: Record<string, unknown>) => who.call(`/api/projects/${projectId}/account-actions`, { body });
  const finished = (id: string) => until('the groups action', () => user.json<AccountActionJob>(`/api/account-actions/${id}`), (j) => j.status === 'completed' || j.status === 'failed');
  const groups = () => new Map(scim.groups().map((g) => [g.displayName, [...g.members].sort()]));

  beforeAll(async () => {
    scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token });
    user = await apiUser();
    await upgradeToPro(user);
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Groups edited', csvData: people(3, 'Grpedit'), groups: ['Staff', 'Interns'], createGroups: true } })).project;
  });
  afterAll(() => scim?.stop());

  it('nothing starts while no account is on the platform', async () => {
    const refused = await act(user, project.id, { action: 'groups', filter: 'all' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toBe('No account of this project is on a platform.');
  });

  it('the Synced accounts join the added group and leave the removed one, once; redelivery changes nothing; another user gets 404', async () => {
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'SCIM for edited groups', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const run = await user.json<ProvisioningJob>(`/api/projects/${project.id}/provision`, { body: { integrationId: integration.id, mode: 'provision' } });
    expect(await runOf(user, run.id)).toMatchObject({ status: 'completed', synced: 3, failed: 0 });
    const ids = (await accountsOf(user, project.id)).map((a) => a.externalAccountId!).sort();
    expect(groups()).toEqual(new Map([['Staff', ids], ['Interns', ids]]));

    // The Edit: 'Interns' removed, 'Volunteers' added (created: the project allows it).
    expect((await edit(user, project, { groups: ['Staff', 'Volunteers'], createGroups: true })).status).toBe(200);
    expect(groups()).toEqual(new Map([['Staff', ids], ['Interns', ids]]));
    const other = await apiUser();
    await upgradeToPro(other);
    expect((await act(other, project.id, { action: 'groups', filter: 'all' })).status).toBe(404);

    const started = await act(user, project.id, { action: 'groups', filter: 'all' });
    expect(started.status, await started.clone().text()).toBe(202);
    const { job } = (await started.json()) as { job: AccountActionJob };
    expect(job).toMatchObject({ action: 'groups', total: 3 });
    expect((await other.call(`/api/account-actions/${job.id}`)).status).toBe(404);
    expect(await finished(job.id)).toMatchObject({ status: 'completed', total: 3, done: 3, onPlatform: 3, failed: 0, pending: 0 });
    expect(groups()).toEqual(new Map([['Staff', ids], ['Interns', []], ['Volunteers', ids]]));
    // Every Synced account left 'Interns': the project no longer keeps it to leave.
    const projectItem = async () => (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, project.id), ConsistentRead: true }))).Item!;
    await until('the left group forgotten', async () => (await projectItem()).groupsLeft, (left) => left === undefined);

    // Its start and chunks delivered again: no request to the directory, the counts as they were.
    const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: accountActionJobs.key(user.sub, job.id), ConsistentRead: true }));
    const messages = [accountActionJobs.startMessage(user.sub, job.id), ...accountActionJobs.chunks(Item!), ...accountActionJobs.chunks(Item!)];
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const requests = scim.stats().requests;
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: stack.queueUrls.provisioning!, Entries: messages.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) })) }));
    await new Promise((r) => setTimeout(r, 3000));
    expect(await user.json<AccountActionJob>(`/api/account-actions/${job.id}`)).toMatchObject({ status: 'completed', total: 3, done: 3, failed: 0 });
    expect(scim.stats().requests).toBe(requests);
    expect(groups()).toEqual(new Map([['Staff', ids], ['Interns', []], ['Volunteers', ids]]));
  });

  it('a missing group the project does not create fails each account in words; the other groups still change', async () => {
    expect((await edit(user, project, { groups: ['Staff', 'Contractors'], createGroups: false })).status).toBe(200);
    const { job } = await user.json<{ job: AccountActionJob }>(`/api/projects/${project.id}/account-actions`, { body: { action: 'groups', filter: 'all' } });
    const ended = await finished(job.id);
    expect(ended).toMatchObject({ status: 'completed', total: 3, done: 0, failed: 3 });
    expect(ended.failures?.[0]?.reason).toContain('The group "Contractors" does not exist on SCIM for edited groups');
    const ids = (await accountsOf(user, project.id)).map((a) => a.externalAccountId!).sort();
    expect(groups()).toEqual(new Map([['Staff', ids], ['Interns', []], ['Volunteers', []]]));
  });
});

describe('project groups on an LDAP directory (slapd, groupOfNames)', () => {
  let slapd: Slapd;
  let admin: Client;
  beforeAll(async () => {
    slapd = await startSlapd({ port: Number(new URL(stack.fakeDirectoryOrigin).port) });
    admin = new Client({ url: slapd.url });
    await admin.bind(slapd.rootDn, slapd.rootPassword);
  });
  afterAll(async () => {
    await admin?.unbind();
    await slapd?.stop();
  });
  const membersOf = async (dn: string) => {
    const { searchEntries } = await admin.search(dn, { scope: 'base', attributes: ['member'] });
    const member = searchEntries[0]?.member;
    return (Array.isArray(member) ? member : [member]).map(String).sort();
  };

  it('creates the group when allowed, adds each entry on provisioning and takes it out on Delete', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const baseDn = `ou=People,${slapd.suffix}`;
    const integration = await user.json<Integration>('/api/integrations', {
      body: {
        name: 'Corp directory',
        platform: 'active_directory',
        baseUrl: slapd.url,
        authMethod: 'basic_auth',
        authConfig: { username: slapd.rootDn, password: slapd.rootPassword },
        apiConfig: { provisioning: { ldap: { baseDn, directory: 'openldap' } } },
      },
    });
    const { project } = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Directory groups', csvData: people(2, 'Ldapgrp') } });
    expect((await edit(user, project, { groups: ['Engineers'], createGroups: true })).status).toBe(200);
    const run = await user.json<ProvisioningJob>(`/api/projects/${project.id}/provision`, { body: { integrationId: integration.id, mode: 'provision' } });
    expect(await runOf(user, run.id)).toMatchObject({ status: 'completed', synced: 2, failed: 0 });
    const [one, two] = await accountsOf(user, project.id);
    const group = `cn=Engineers,${baseDn}`;
    expect(await membersOf(group)).toEqual([slapd.rootDn, one!.externalAccountId!, two!.externalAccountId!].sort());

    const { job } = await user.json<{ job: AccountActionJob }>(`/api/projects/${project.id}/account-actions`, { body: { action: 'delete', accountIds: [one!.id] } });
    expect(await until('the delete', () => user.json<AccountActionJob>(`/api/account-actions/${job.id}`), (j) => j.status === 'completed' || j.status === 'failed')).toMatchObject({ status: 'completed', done: 1 });
    expect(await membersOf(group)).toEqual([slapd.rootDn, two!.externalAccountId!].sort());
    expect((await admin.search(baseDn, { scope: 'one', filter: `(uid=${one!.username})` })).searchEntries).toHaveLength(0);
  });
});

describe("a run's groups are resolved once, on DynamoDB Local", () => {
  const db = testDb();
  const deps = (at = Date.now()) => ({ db, tableName: 'bulkonboard', now: () => new Date(at) });
  /** A platform whose groups are all missing: each create takes a moment, counted. */
  const platform = () => {
    const created: string[] = [];
    const groups: GroupOperations = {
      find: async () => undefined,
      create: async (name) => {
        created.push(name);
        await new Promise((r) => setTimeout(r, 300));
        return { id: `id-${name}`, name };
      },
      addMember: async () => ({ kind: 'done', detail: '' }),
      removeMember: async () => ({ kind: 'done', detail: '' }),
    };
    return { created, groups };
  };
  const runItem = async (n: string, extra: Record<string, unknown> = {}) => {
    const key = { PK: `USER#groups-test-${n}-${Date.now()}`, SK: 'PROVJOB#run' };
    const job = { ...key, groups: ['Staff', 'Interns'], createGroups: true, ...extra };
    await db.send(new PutCommand({ TableName: 'bulkonboard', Item: job }));
    return { key, job };
  };

  it('two deliveries at once: one creates each group, the other waits and then reads what it recorded', async () => {
    const { key, job } = await runItem('once');
    const { created, groups } = platform();
    const words = (claimant: string) => ({ platform: 'SCIM', claimant });
    const [a, b] = await Promise.all([resolveRunGroups(deps(), key, job, groups, words('a')), resolveRunGroups(deps(), key, job, groups, words('b'))]);
    expect(created).toEqual(['Staff', 'Interns']);
    const targets = [
      { name: 'Staff', group: { id: 'id-Staff', name: 'Staff' } },
      { name: 'Interns', group: { id: 'id-Interns', name: 'Interns' } },
    ];
    expect([a, b]).toContainEqual({ targets });
    expect([a, b]).toContainEqual({ later: 3000 });
    // The waiting delivery, again (its copy of the run read before): the recorded groups, nothing created.
    expect(await resolveRunGroups(deps(), key, job, groups, words('b'))).toEqual({ targets });
    expect(created).toHaveLength(2);
  });

  it("a claim whose delivery died is taken over once it lapses; a missing group without the switch is recorded in words", async () => {
    const { key, job } = await runItem('lapsed', { createGroups: false, groupClaim: 'dead', groupClaimUntil: Date.now() + GROUP_CLAIM_MS });
    const { created, groups } = platform();
    expect(await resolveRunGroups(deps(), key, job, groups, { platform: 'SCIM', claimant: 'c' })).toEqual({ later: 3000 });
    const resolved = await resolveRunGroups(deps(Date.now() + GROUP_CLAIM_MS + 1000), key, job, groups, { platform: 'SCIM', claimant: 'c' });
    expect(created).toEqual([]);
    expect(resolved).toEqual({
      targets: ['Staff', 'Interns'].map((name) => ({
        name,
        error: `The group "${name}" does not exist on SCIM, and this project does not create missing groups: create it there, or turn on 'Create groups that do not exist' in the project's Edit, then retry.`,
      })),
    });
  });
});

describe("a group join that fails, through the run's worker (the stack's SCIM directory)", () => {
  it('a passing failure (500) is retried and the account synced; a refusal fails it with the words, its platform id kept', async () => {
    const db = testDb();
    const TABLE = 'bulkonboard';
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    // A queue no worker reads: the run's own messages stay there; the chunk is delivered here.
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `groups-join-test-${Date.now()}` }))).QueueUrl!;
    try {
      const user = await apiUser();
      await upgradeToPro(user);
      const tag = String(Date.now());
      const integration = await user.json<Integration>('/api/integrations', {
        body: { name: `Join directory ${tag}`, platform: 'custom', baseUrl: stack.scim.url, authMethod: 'bearer_token', authConfig: { token: stack.scim.token }, apiConfig: {} },
      });
      const { project } = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: `Joins ${tag}`, csvData: people(3, `Join${tag}`), groups: [`Joiners ${tag}`], createGroups: true } });
      const queue = sqsProvisioningQueue(sqs, queueUrl);
      const integrationOf = async (userId: string, id: string) => {
        const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.integration(userId, id), ConsistentRead: true }));
        return Item ? recordOf(Item) : undefined;
      };
      const run = await startProvisioning({ db, tableName: TABLE, queue, now: () => new Date(), newId: timeOrderedId, plan: dynamoPlanReader(db, TABLE), integration: integrationOf })(user.sub, project.id, { integrationId: integration.id, mode: 'provision' });
      await planRun({ db, tableName: TABLE, queue, now: () => new Date() })(user.sub, run.id);
      const job = (await readJob({ db, tableName: TABLE }, user.sub, run.id))!;
      expect(job).toMatchObject({ groups: [`Joiners ${tag}`], createGroups: true });
      const [message] = chunkPlan(user.sub, run.id, Number(job.shards), Number(job.maxRow));
      const accounts = (await user.json<Page<AccountView>>(`/api/projects/${project.id}/accounts?limit=10`)).items;
      const [flaky, refused] = [accounts[0]!.username, accounts[1]!.username];
      const factory = adapterFactory({ allowedOrigins: [new URL(stack.scim.url).origin] });
      const usernames = new Map<string, string>();
      let flakyFailures = 0;
      const adapterFor: ProvisionDeps['adapterFor'] = (record, credentials, policy) => {
        const real = factory(record, credentials, policy);
        return {
          ...real,
          create: async (list) => {
            const outcomes = await real.create(list);
            outcomes.forEach((o, i) => 'externalId' in o && usernames.set(o.externalId, list[i]!.username));
            return outcomes;
          },
          groups: {
            ...real.groups,
            addMember: async (group, externalId) => {
              const who = usernames.get(externalId);
              if (who === flaky && flakyFailures++ === 0) return { kind: 'failed', retryable: true, message: 'HTTP 500: Internal error' };
              if (who === refused) return { kind: 'failed', retryable: false, message: 'HTTP 403: This group is managed elsewhere' };
              return real.groups.addMember(group, externalId);
            },
          },
        };
      };
      const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8')));
      const deps: ProvisionDeps = { db, tableName: TABLE, queue, now: () => new Date(), cipher: async () => cipher, integration: integrationOf, adapterFor, pacingOf, sleep: async () => undefined };
      await provisionChunk(deps)(message!);

      expect(await user.json(`/api/provisioning-jobs/${run.id}`)).toMatchObject({ status: 'completed', total: 3, synced: 2, failed: 1 });
      expect(flakyFailures).toBe(2);
      const after = (await user.json<Page<AccountView>>(`/api/projects/${project.id}/accounts?limit=10`)).items;
      const failed = after.find((a) => a.username === refused)!;
      expect(failed).toMatchObject({ externalStatus: 'failed', externalError: `Created on Join directory ${tag}, but not added to the group "Joiners ${tag}": HTTP 403: This group is managed elsewhere` });
      expect(failed.externalAccountId).toBeTruthy();
      const answer = await fetch(`${stack.scim.url}/Groups?filter=${encodeURIComponent(`displayName eq "Joiners ${tag}"`)}`, { headers: { authorization: `Bearer ${stack.scim.token}` } });
      const [group] = ((await answer.json()) as { Resources: { members?: { value: string }[] }[] }).Resources;
      expect((group?.members ?? []).map((m) => m.value).sort()).toEqual(after.filter((a) => a.username !== refused).map((a) => a.externalAccountId).sort());
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    }
  });
});
