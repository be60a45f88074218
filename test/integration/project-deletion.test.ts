import http from 'node:http';
import { BatchWriteCommand, GetCommand, QueryCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { keys } from '../../functions/core/keys';
import { timeOrderedId } from '../../functions/core/ids';
import { getProjectDeletion, planDeletion, startProjectDeletion } from '../../functions/projects/project-deletion';
import { deletionChunk } from '../../functions/projects/project-deletion-chunk';
import type { DeleteChunkMessage, ProvisioningMessage } from '../../functions/provisioning/provisioning-message';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page, Project, SubscriptionStatus } from '../../shared/schemas/project';
import type { ProjectDeletion } from '../../shared/schemas/project-deletion';
import type { NotificationList } from '../../shared/schemas/notifications';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';

/**
 * Deleting a project (DELETE /api/projects/{id}) through the API, the provisioning queue and its
 * worker: without a platform (a free user's project, erased to the last item, its usage given
 * back), and with a SCIM 2.0 provider (bin/local/scim-server.ts) behind a small proxy that can
 * refuse some removals and answer a 429/5xx storm.
 */
const TABLE = 'bulkonboard';
const origin = () => new URL(inject('stack').fakePlatformOrigin);

/** Every moment: removed + kept + pending = total. */
async function waitForDeletion(user: ApiUser, id: string): Promise<ProjectDeletion> {
  return until(
    `deletion ${id}`,
    async () => {
      const job = await user.json<ProjectDeletion>(`/api/project-deletions/${id}`);
      expect(job.removed + job.kept + job.pending).toBe(job.total);
      return job;
    },
    (job) => job.status === 'completed' || job.status === 'failed' || job.status === 'paused',
  );
}

async function deleteProject(user: ApiUser, projectId: string, query = ''): Promise<ProjectDeletion> {
  const started = await user.call(`/api/projects/${projectId}${query}`, { method: 'DELETE' });
  expect(started.status, await started.clone().text()).toBe(202);
  return waitForDeletion(user, ((await started.json()) as ProjectDeletion).id);
}

/** Every item whose key names the project. */
async function itemsNaming(projectId: string) {
  const found: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await testDb().send(new ScanCommand({ TableName: TABLE, FilterExpression: 'contains(PK, :id) OR contains(SK, :id)', ExpressionAttributeValues: { ':id': projectId }, ExclusiveStartKey: start }));
    found.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

const usernameItem = async (user: ApiUser, username: string) => (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.username(user.sub, username), ConsistentRead: true }))).Item;
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;

describe('a free user deletes a project (no platform)', () => {
  let user: ApiUser;
  beforeAll(async () => {
    user = await apiUser();
  });

  it('erases every item of the project and its accounts, gives the usage back, and a 4th project can be made at once', async () => {
    const projects: Project[] = [];
    for (const n of [1, 2, 3]) projects.push((await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: `Free ${n}`, csvData: people(40, `Free${n}x`), ...(n === 2 ? { expirationDate: '2099-12-31' } : {}) } })).project);
    const doomed = projects[1]!;
    const usernames = (await accountsOf(user, doomed.id)).map((a) => a.username);
    expect(usernames).toHaveLength(40);
    // The limit holds before: a 4th project is refused.
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Free 4', csvData: people(2, 'Free4x') } })).status).toBe(403);
    const before = await user.json<SubscriptionStatus>('/api/subscription/status');

    const job = await deleteProject(user, doomed.id);
    expect(job).toMatchObject({ status: 'completed', total: 40, removed: 40, kept: 0, pending: 0, removedOnPlatform: 0, removeFromPlatform: false, projectDeleted: true });

    expect(await itemsNaming(doomed.id)).toEqual([]);
    for (const username of usernames) expect(await usernameItem(user, username)).toBeUndefined();
    expect((await user.call(`/api/projects/${doomed.id}/accounts`)).status).toBe(404);
    expect((await user.json<Project[]>('/api/projects')).map((p) => p.id).sort()).toEqual([projects[0]!.id, projects[2]!.id].sort());
    // The other projects are whole.
    expect(await accountsOf(user, projects[0]!.id)).toHaveLength(40);

    const after = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(after.usage.projectsUsed).toBe(before.usage.projectsUsed - 1);
    expect(after.usage.accountsUsed).toBe(before.usage.accountsUsed - 40);
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Free 4', csvData: people(2, 'Free4x') } })).ok).toBe(true);
    // Analytics: no longer an active project (as a completed one: out of its date's item).
    const stat = async (key: { PK: string; SK: string }) => (await testDb().send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item;
    expect(await stat(keys.statsExpiry(user.sub, '2099-12-31'))).toMatchObject({ projects: 0 });
    expect(await stat(keys.statsTotal(user.sub))).toMatchObject({ completedProjects: 1 });

    // Who, what, how many; and the bell.
    const { Items: events } = await testDb().send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.securityEventsOf(user.sub).PK } }));
    expect(events?.filter((e) => e.type === 'project_deleted')).toEqual([expect.objectContaining({ description: 'Project "Free 2" deleted with its 40 accounts' })]);
    // Written by the call that completed the job, right after it: waited for.
    const bell = await until('the bell', () => user.json<NotificationList>('/api/notifications'), (list) => list.notifications.some((n) => n.kind === 'project-deleted'));
    expect(bell.notifications).toContainEqual(expect.objectContaining({ kind: 'project-deleted', title: 'Project "Free 2" deleted', body: '40 accounts deleted.', link: '/projects' }));
  });

  it("refuses another job's project with a clear 409, and a project being deleted takes no other job and is not deleted twice", async () => {
    const other = await apiUser();
    await upgradeToPro(other);
    const { project } = await other.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Locked', csvData: people(3, 'Locked') } });
    const key = keys.project(other.sub, project.id);
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'SET activeProvisioningJob = :job', ExpressionAttributeValues: { ':job': timeOrderedId() } }));
    const refused = await other.call(`/api/projects/${project.id}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toBe('This project is being provisioned. Wait for that run to finish (or stop it), then delete the project.');

    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'REMOVE activeProvisioningJob SET activeProjectDeletion = :job', ExpressionAttributeValues: { ':job': timeOrderedId() } }));
    const twice = await other.call(`/api/projects/${project.id}`, { method: 'DELETE' });
    expect(twice.status).toBe(409);
    expect(((await twice.json()) as { message: string }).message).toBe('This project is being deleted already.');
    // It takes no other job meanwhile.
    const reset = await other.call('/api/security/reset-passwords', { body: { projectId: project.id } });
    expect(reset.status).toBe(409);
    expect(((await reset.json()) as { message: string }).message).toBe('This project is being deleted.');
    const listed = (await other.json<Project[]>('/api/projects')).find((p) => p.id === project.id);
    expect(listed).toMatchObject({ deletionActive: true });
    // Nor new people, nor an edit, nor Complete.
    const added = await other.call('/api/bulk-create', { body: { projectName: 'ignored', projectId: project.id, csvData: people(1, 'Late') } });
    expect(added.status).toBe(409);
    expect(((await added.json()) as { message: string }).message).toBe('This project is being deleted.');
    for (const [path, body] of [[`/api/projects/${project.id}`, { name: 'Renamed', accountType: project.accountType }], [`/api/projects/${project.id}/status`, { status: 'completed' }]] as const) {
      const changed = await other.call(path, { method: 'PUT', body });
      expect(changed.status).toBe(409);
      expect(((await changed.json()) as { message: string }).message).toBe('This project is being deleted.');
    }
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'REMOVE activeProjectDeletion' }));
    // While people are being added or imported (the user's creation lock), a deletion would miss them: 409.
    const userKey = keys.user(other.sub);
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: userKey, UpdateExpression: 'SET bulkLock = :lock', ExpressionAttributeValues: { ':lock': { owner: timeOrderedId(), until: Date.now() + 600_000, since: Date.now() } } }));
    const adding = await other.call(`/api/projects/${project.id}`, { method: 'DELETE' });
    expect(adding.status).toBe(409);
    expect(((await adding.json()) as { message: string }).message).toBe('People are being added or imported into your projects. Wait for that to finish, then delete the project.');
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: userKey, UpdateExpression: 'REMOVE bulkLock' }));
    expect((await other.call(`/api/projects/${project.id}?removeFromPlatform=maybe`, { method: 'DELETE' })).status).toBe(400);
    expect((await other.call('/api/projects/not-a-project', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('a deletion that dies half-way', () => {
  let user: ApiUser;
  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
  });

  /** The table, but from the n-th batch write on every one throws (a worker killed between two erase batches). */
  const dyingAt = (db: DynamoDBDocumentClient, n: number): DynamoDBDocumentClient => {
    let writes = 0;
    return new Proxy(db, {
      get(target, prop, receiver) {
        if (prop !== 'send') return Reflect.get(target, prop, receiver) as unknown;
        return async (command: unknown) => {
          if (command instanceof BatchWriteCommand && ++writes >= n) throw new Error('worker killed');
          return target.send(command as never);
        };
      },
    });
  };

  it('resumes on the next delivery to the same end: every account erased once, the counts add up', async () => {
    const { project } = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Dies', csvData: people(120, 'Dies') } });
    const queued: ProvisioningMessage[] = [];
    const deps = { db: testDb(), tableName: TABLE, queue: { send: async (messages: readonly ProvisioningMessage[]) => void queued.push(...messages) }, now: () => new Date() };
    const chunkDeps = { ...deps, cipher: () => Promise.reject(new Error('no platform here')), integration: async () => undefined, adapterFor: () => { throw new Error('no platform here'); }, pacingOf: () => ({ concurrency: 1 }) };
    const job = await startProjectDeletion({ ...deps, newId: timeOrderedId, events: { db: deps.db, tableName: TABLE }, integrationName: async () => undefined })(user.sub, project.id, true, { ipAddress: '127.0.0.1', userAgent: 'test' });
    await planDeletion(deps)(user.sub, job.id);
    const first = queued.find((m): m is DeleteChunkMessage => m.type === 'delete-chunk' && m.chunk === 0)!;
    // The worker dies after its first erase batch (25 keys: 13 accounts, 12 username items): those are gone, the rest not; nothing is counted on the job yet.
    await expect(deletionChunk({ ...chunkDeps, db: dyingAt(testDb(), 2) })(first)).rejects.toThrow('worker killed');
    const midway = await getProjectDeletion(deps)(user.sub, job.id);
    expect(midway).toMatchObject({ status: 'running', removed: 0, kept: 0 });
    await until('the first batch', async () => (await accountsOf(user, project.id)).length, (left) => left === 120 - 13);

    // Deliveries go on (the same chunk again first), as SQS would.
    const run = deletionChunk(chunkDeps);
    const pending: DeleteChunkMessage[] = [first, ...queued.filter((m): m is DeleteChunkMessage => m.type === 'delete-chunk' && m.chunk !== 0)];
    queued.length = 0;
    for (let i = 0; pending.length && i < 50; i++) {
      await run(pending.shift()!);
      pending.push(...queued.filter((m): m is DeleteChunkMessage => m.type === 'delete-chunk'));
      queued.length = 0;
    }
    const end = await getProjectDeletion(deps)(user.sub, job.id);
    expect(end).toMatchObject({ status: 'completed', total: 120, removed: 120, kept: 0, pending: 0, projectDeleted: true });
    expect(await itemsNaming(project.id)).toEqual([]);
    const { Item: profile } = await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.user(user.sub), ConsistentRead: true }));
    expect(profile).toMatchObject({ accountCount: 0, projectCount: 0 });
  });
});

describe('deleting a project provisioned to a SCIM 2.0 provider', () => {
  let user: ApiUser;
  let scim: ScimServer;
  let proxy: http.Server;
  let integration: Integration;
  const token = 'deletion-test-scim-token';
  /** What the proxy does to DELETE /Users/{id}: refuse these ids (400), or answer a storm first. */
  const refused = new Set<string>();
  let storm = 0;
  let deletes = 0;

  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
    scim = await startScimServer({ port: 0, token });
    const upstream = new URL(scim.url);
    proxy = http.createServer((req, res) => {
      const id = req.url?.split('?')[0]?.split('/').pop() ?? '';
      if (req.method === 'DELETE') {
        deletes++;
        if (refused.has(id)) {
          res.writeHead(400, { 'content-type': 'application/scim+json' });
          res.end(JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '400', detail: 'This user is under legal hold and cannot be deleted' }));
          return;
        }
        if (storm > 0) {
          storm--;
          const limited = storm % 2 === 0;
          res.writeHead(limited ? 429 : 503, { 'content-type': 'application/scim+json', ...(limited ? { 'retry-after': '1' } : {}) });
          res.end(JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: limited ? '429' : '503', detail: 'Try again later' }));
          return;
        }
      }
      const forwarded = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(Number(origin().port), origin().hostname, resolve));
    const created = await user.call('/api/integrations', {
      body: { name: 'SCIM for deletions', platform: 'custom', baseUrl: `${origin().origin}/scim/v2`, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    expect(created.status).toBe(201);
    integration = (await created.json()) as Integration;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await scim?.stop();
  });

  async function provisioned(name: string, count: number): Promise<{ project: Project; usernames: string[] }> {
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: name, csvData: people(count, name.replace(/\W/g, '')), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    const run = await until('the provisioning run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${created.summary.provisioningJobId!}`), (j) => j.status === 'completed' || j.status === 'failed');
    expect(run).toMatchObject({ status: 'completed', synced: count });
    return { project: created.project, usernames: (await accountsOf(user, created.project.id)).map((a) => a.username) };
  }
  const onScim = (usernames: string[]) => scim.users().filter((u) => usernames.includes(u.userName));

  it('removes every account on the platform first, through a 429/5xx storm, then erases it here: no account left in a wrong state', async () => {
    const { project, usernames } = await provisioned('Scim storm', 12);
    expect(onScim(usernames)).toHaveLength(12);
    const syncedThere = async () => Number((await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.statsTotal(user.sub), ConsistentRead: true }))).Item?.synced_custom ?? 0);
    const syncedBefore = await syncedThere();
    storm = 10;
    deletes = 0;
    const job = await deleteProject(user, project.id);
    expect(job).toMatchObject({ status: 'completed', total: 12, removed: 12, removedOnPlatform: 12, kept: 0, removeFromPlatform: true, integrationName: 'SCIM for deletions', projectDeleted: true });
    expect(storm).toBe(0);
    expect(deletes).toBeGreaterThanOrEqual(22);
    expect(onScim(usernames)).toEqual([]);
    expect(await itemsNaming(project.id)).toEqual([]);
    expect(await syncedThere()).toBe(syncedBefore - 12);
  });

  it("keeps the accounts the platform refused to remove, with its words; the counts add up; a deletion without the platform ends it", async () => {
    const { project, usernames } = await provisioned('Scim refusal', 5);
    const held = onScim(usernames).slice(0, 2);
    for (const u of held) refused.add(u.id);
    const job = await deleteProject(user, project.id);
    expect(job).toMatchObject({ status: 'completed', total: 5, removed: 3, removedOnPlatform: 3, kept: 2, pending: 0, projectDeleted: false });
    expect(job.keptAccounts?.map((a) => a.username).sort()).toEqual(held.map((u) => u.userName).sort());
    for (const kept of job.keptAccounts!) expect(kept.reason).toMatch(/^Not removed from SCIM for deletions: .*legal hold/);
    // The project stays with just those accounts, here and there.
    const left = await accountsOf(user, project.id);
    expect(left.map((a) => a.username).sort()).toEqual(held.map((u) => u.userName).sort());
    expect(onScim(usernames).map((u) => u.userName).sort()).toEqual(held.map((u) => u.userName).sort());
    const listed = (await user.json<Project[]>('/api/projects')).find((p) => p.id === project.id);
    expect(listed).toMatchObject({ accountCount: 2, syncedCount: 2, deletionId: job.id });
    expect(listed?.deletionActive).toBeUndefined();

    // Delete again without the platform: those two go here (and stay there).
    const second = await deleteProject(user, project.id, '?removeFromPlatform=false');
    expect(second).toMatchObject({ status: 'completed', total: 2, removed: 2, removedOnPlatform: 0, kept: 0, projectDeleted: true });
    expect(onScim(usernames)).toHaveLength(2);
    expect(await itemsNaming(project.id)).toEqual([]);
    refused.clear();
  });
});
