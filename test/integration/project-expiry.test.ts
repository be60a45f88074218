import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { dynamoBulkStore } from '../../functions/bulk/bulk-store';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { backfillExpiryIndex, EXPIRY_BACKFILL } from '../../functions/schedules/backfill-expiry-index';
import { sweepExpiredProjects, type SweepResult } from '../../functions/schedules/sweep-expired-projects';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import type { Integration } from '../../shared/schemas/integrations';
import type { NotificationList } from '../../shared/schemas/notifications';
import { PROJECT_EXPIRED_MESSAGE, type AccountView, type DashboardStats, type Page, type Project } from '../../shared/schemas/project';
import type { Analytics } from '../../shared/schemas/analytics';
import { dayOf } from '../../functions/analytics/counters';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';
import { accountActionFinished, sweepAt } from '../support/expiry';

/**
 * Expiry (docs/lifecycle.md, "Expiry"): the sweep the hourly schedule runs, called here with the
 * clock moved (an injected `now`, never a wait for real time) against the local stack's table and
 * queues; the stack's provisioning workers deactivate the accounts, here and on the local SCIM
 * directory. Each test uses dates of its own year, later than the previous test's, so a sweep at
 * one test's time finds no later test's project due.
 */
const TABLE = 'bulkonboard';
const stack = inject('stack');
const db = testDb();
const startedFor = (result: SweepResult, project: { id: string }) => result.started.filter((s) => s.projectId === project.id);

const projectItem = async (user: ApiUser, projectId: string) => (await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(user.sub, projectId), ConsistentRead: true }))).Item;
const projectOf = async (user: ApiUser, projectId: string) => (await user.json<Project[]>('/api/projects')).find((p) => p.id === projectId)!;
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;
const create = async (user: ApiUser, name: string, expirationDate: string, count = 3, extra: Record<string, unknown> = {}) =>
  (await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', { body: { projectName: name, expirationDate, csvData: people(count, name.replace(/\W/g, '')), ...extra } }));
const edit = (user: ApiUser, project: Project, expirationDate: string) =>
  user.call(`/api/projects/${project.id}`, { method: 'PUT', body: { name: project.name, accountType: project.accountType, expirationDate } });

const finished = accountActionFinished;
/** The entries of the expiry index that name a project. */
async function indexed(projectId: string): Promise<string[]> {
  const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, IndexName: 'ProjectsByExpiry', KeyConditionExpression: 'ExpiryPK = :pk', ExpressionAttributeValues: { ':pk': 'EXPIRY' } }));
  return Items.map((i) => String(i.ExpirySK)).filter((sk) => sk.endsWith(`#${projectId}`));
}

describe('expiry without a platform (a free user, UTC)', () => {
  let user: ApiUser;
  let project: Project;

  beforeAll(async () => {
    user = await apiUser();
    project = (await create(user, 'Expiry local', '2030-03-10')).project;
  });

  it('fires when the date arrives: the accounts deactivated and shown Expired, the project Expired, the bell and a security event; a second sweep starts nothing', async () => {
    expect(await indexed(project.id)).toEqual([`2030-03-10#${user.sub}#${project.id}`]);
    // The day before (even late at night, UTC): not due.
    expect(startedFor(await sweepAt('2030-03-09T23:59:00Z'), project)).toEqual([]);
    expect((await projectOf(user, project.id)).expiredAt).toBeUndefined();

    // Two sweeps at once (a redelivered invocation): one expiry.
    const [first, second] = await Promise.all([sweepAt('2030-03-10T00:05:00Z'), sweepAt('2030-03-10T00:05:00Z')]);
    const started = [...startedFor(first, project), ...startedFor(second, project)];
    expect(started).toHaveLength(1);
    expect(await indexed(project.id)).toEqual([]);
    const job = await finished(user, started[0]!.jobId!);
    expect(job).toMatchObject({ status: 'completed', action: 'deactivate', origin: 'expiry', total: 3, done: 3, failed: 0, onPlatform: 0 });

    expect((await projectOf(user, project.id)).expiredAt).toBe('2030-03-10T00:05:00.000Z');
    const accounts = await accountsOf(user, project.id);
    expect(accounts.map((a) => [a.isActive, a.expiredAt])).toEqual(accounts.map(() => [false, expect.any(String)]));
    const history = await user.json<{ entries: { kind: string; title: string }[] }>(`/api/accounts/${accounts[0]!.id}/history`);
    expect(history.entries[0]).toMatchObject({ kind: 'expired', title: 'Expired' });

    const { notifications } = await user.json<NotificationList>('/api/notifications');
    expect(notifications.filter((n) => n.kind === 'project-expired')).toEqual([
      expect.objectContaining({ title: 'Project "Expiry local" expired', body: 'Its expiration date (2030-03-10) arrived: 3 accounts are being deactivated.', link: `/projects/${project.id}` }),
    ]);
    const { events } = await user.json<{ events: { type: string; description: string }[] }>('/api/security/events');
    expect(events.filter((e) => e.type === 'project_expired').map((e) => e.description)).toEqual([
      'Expired: project "Expiry local" reached its expiration date 2030-03-10; all 3 accounts deactivated (by the expiry schedule)',
    ]);

    // Later runs: nothing again.
    expect(startedFor(await sweepAt('2030-03-11T00:00:00Z'), project)).toEqual([]);
    expect((await user.json<NotificationList>('/api/notifications')).notifications.filter((n) => n.kind === 'project-expired')).toHaveLength(1);
  });

  it('Reactivate brings the accounts back (no longer Expired); a later date makes the project expire again on it, and the badge goes until then', async () => {
    const started = await user.call(`/api/projects/${project.id}/account-actions`, { body: { action: 'reactivate', filter: 'all' } });
    expect(started.status).toBe(202);
    expect(await finished(user, ((await started.json()) as { job: AccountActionJob }).job.id)).toMatchObject({ status: 'completed', done: 3 });
    expect((await accountsOf(user, project.id)).map((a) => [a.isActive, a.expiredAt])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
    ]);
    // Still past its date: the project stays Expired and is not swept again.
    expect((await projectOf(user, project.id)).expiredAt).toBeDefined();
    expect(startedFor(await sweepAt('2030-03-12T00:00:00Z'), project)).toEqual([]);

    expect((await edit(user, project, '2030-04-01')).status).toBe(200);
    expect((await projectOf(user, project.id)).expiredAt).toBeUndefined();
    expect(await indexed(project.id)).toEqual([`2030-04-01#${user.sub}#${project.id}`]);
    expect(startedFor(await sweepAt('2030-03-31T12:00:00Z'), project)).toEqual([]);
    const again = startedFor(await sweepAt('2030-04-01T00:00:00Z'), project);
    expect(again).toHaveLength(1);
    expect(await finished(user, again[0]!.jobId!)).toMatchObject({ status: 'completed', done: 3, origin: 'expiry' });
    expect((await accountsOf(user, project.id)).every((a) => !a.isActive && a.expiredAt)).toBe(true);
  });
});

describe('the expiry index follows the project', () => {
  it('an extension before the date cancels the expiry; removing the date takes the project out; completing keeps it; another user cannot read the job', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const other = await apiUser();
    const extended = (await create(user, 'Expiry extended', '2031-05-01')).project;
    const removed = (await create(user, 'Expiry removed', '2031-05-01')).project;
    const completed = (await create(user, 'Expiry completed', '2031-05-01')).project;
    expect((await edit(user, extended, '2031-06-01')).status).toBe(200);
    expect(await indexed(extended.id)).toEqual([`2031-06-01#${user.sub}#${extended.id}`]);
    expect((await edit(user, removed, '')).status).toBe(200);
    expect(await indexed(removed.id)).toEqual([]);
    expect((await user.call(`/api/projects/${completed.id}/status`, { method: 'PUT', body: { status: 'completed' } })).status).toBe(200);
    expect(await indexed(completed.id)).toHaveLength(1);

    const result = await sweepAt('2031-05-01T12:00:00Z');
    expect(startedFor(result, extended)).toEqual([]);
    expect(startedFor(result, removed)).toEqual([]);
    // A completed project's accounts still expire (completion takes no new people; it keeps the accounts as they are).
    const [job] = startedFor(result, completed);
    expect(await finished(user, job!.jobId!)).toMatchObject({ status: 'completed', done: 3 });
    expect((await projectOf(user, completed.id)).status).toBe('completed');
    expect((await accountsOf(user, extended.id)).every((a) => a.isActive)).toBe(true);

    // Tenant isolation: the expiry job is the owner's alone.
    expect((await other.call(`/api/account-actions/${job!.jobId!}`)).status).toBe(404);
    expect((await other.call(`/api/projects/${completed.id}/accounts`)).status).toBe(404);

    const late = startedFor(await sweepAt('2031-06-01T12:00:00Z'), extended);
    expect(late).toHaveLength(1);
    expect(await finished(user, late[0]!.jobId!)).toMatchObject({ status: 'completed', done: 3 });
    // Deleting a project takes it out of the index with the item.
    const deleted = (await create(user, 'Expiry deleted', '2031-07-01', 1)).project;
    expect(await indexed(deleted.id)).toHaveLength(1);
    expect((await user.call(`/api/projects/${deleted.id}`, { method: 'DELETE' })).status).toBe(202);
    await until('the project deleted', () => projectItem(user, deleted.id), (item) => item === undefined, 60_000);
    expect(await indexed(deleted.id)).toEqual([]);
  });
});

describe("the owner's timezone", () => {
  it('a date arrives at its start in the timezone of the settings: due in New York, not yet in Los Angeles, at the same moment', async () => {
    const [east, west] = await Promise.all([apiUser(), apiUser()]);
    for (const [user, timezone] of [
      [east, 'America/New_York'],
      [west, 'America/Los_Angeles'],
    ] as const)
      expect((await user.call('/api/user/settings', { method: 'PUT', body: { preferences: { timezone } } })).status).toBe(200);
    const eastProject = (await create(east, 'Expiry east', '2032-01-15', 1)).project;
    const westProject = (await create(west, 'Expiry west', '2032-01-15', 1)).project;

    // 2032-01-15 05:30 UTC: 00:30 in New York (EST, UTC-5), 21:30 the day before in Los Angeles.
    const result = await sweepAt('2032-01-15T05:30:00Z');
    expect(startedFor(result, eastProject)).toHaveLength(1);
    expect(startedFor(result, westProject)).toEqual([]);
    expect(result.notYetDue).toBeGreaterThanOrEqual(1);
    expect(await indexed(westProject.id)).toHaveLength(1);
    // Three hours later it is midnight in Los Angeles too.
    expect(startedFor(await sweepAt('2032-01-15T08:00:00Z'), westProject)).toHaveLength(1);
  });
});

describe('a busy project and the cap per run', () => {
  it('a project whose accounts another job holds is tried again on the next run; a run stops at its cap and the next one goes on', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const busy = (await create(user, 'Expiry busy', '2033-02-01', 2)).project;
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, busy.id), UpdateExpression: 'SET activeProvisioningJob = :job', ExpressionAttributeValues: { ':job': 'someone-else' } }));
    const held = await sweepAt('2033-02-01T12:00:00Z');
    expect(startedFor(held, busy)).toEqual([]);
    expect(held.busy).toBeGreaterThanOrEqual(1);
    expect((await projectOf(user, busy.id)).expiredAt).toBeUndefined();
    expect(await indexed(busy.id)).toHaveLength(1);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, busy.id), UpdateExpression: 'REMOVE activeProvisioningJob' }));
    // The import creating its accounts still running (its bulk job not ended): busy too.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.bulkJob(user.sub, busy.id), UpdateExpression: 'SET #s = :running', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':running': 'processing' } }));
    expect(startedFor(await sweepAt('2033-02-01T12:30:00Z'), busy)).toEqual([]);
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.bulkJob(user.sub, busy.id), UpdateExpression: 'SET #s = :done', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':done': 'completed' } }));
    const next = startedFor(await sweepAt('2033-02-01T13:00:00Z'), busy);
    expect(next).toHaveLength(1);
    expect(await finished(user, next[0]!.jobId!)).toMatchObject({ status: 'completed', done: 2 });

    const many = [];
    for (const n of ['A', 'B', 'C']) many.push(await create(user, `Expiry many ${n}`, '2033-03-01', 1));
    const ids = new Set(many.map((m) => m.project.id));
    const first = await sweepAt('2033-03-01T12:00:00Z', { maxStarted: 2 });
    expect(first.started.filter((s) => ids.has(s.projectId))).toHaveLength(2);
    expect(first.more).toBe(true);
    const second = await sweepAt('2033-03-01T13:00:00Z', { maxStarted: 2 });
    expect(second.started.filter((s) => ids.has(s.projectId))).toHaveLength(1);
    for (const s of [...first.started, ...second.started].filter((s) => ids.has(s.projectId))) expect(await finished(user, s.jobId!)).toMatchObject({ status: 'completed', done: 1 });
  });
});

describe('a start that cannot be queued', () => {
  it('fails its job, puts the project back in the index (not expired) and the next run starts it', async () => {
    const user = await apiUser();
    const project = (await create(user, 'Expiry unqueued', '2033-06-01', 1)).project;
    const down = await sweepExpiredProjects({
      db,
      tableName: TABLE,
      queue: {
        send: () => Promise.reject(new Error('The queue does not answer')),
      },
      now: () => new Date('2033-06-01T12:00:00Z'),
      newId: timeOrderedId,
      integrationName: () => Promise.resolve(undefined),
    })();
    expect(startedFor(down, project)).toEqual([]);
    expect(await indexed(project.id)).toHaveLength(1);
    const item = await projectItem(user, project.id);
    expect(item?.expiredAt).toBeUndefined();
    expect(item?.activeAccountAction).toBeUndefined();
    const started = startedFor(await sweepAt('2033-06-01T13:00:00Z'), project);
    expect(started).toHaveLength(1);
    expect(await finished(user, started[0]!.jobId!)).toMatchObject({ status: 'completed', done: 1 });
  });
});

describe('expiry on the local SCIM directory (Pro)', () => {
  let scim: ScimServer;
  const token = 'expiry-test-scim-token';
  const origin = () => new URL(stack.fakePlatformOrigin);
  afterAll(() => scim?.stop());

  it('deactivates the provisioned accounts there first, then here; the e-mail goes to a Pro owner', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    scim = await startScimServer({ port: Number(origin().port), host: origin().hostname, token });
    const created = await user.call('/api/integrations', {
      body: { name: 'SCIM for expiry', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    expect(created.status).toBe(201);
    const integration = (await created.json()) as Integration;
    const made = await create(user, 'Expiry SCIM', '2034-04-01', 3, { apiIntegrationId: integration.id, createExternalAccounts: true });
    const run = await until('the provisioning run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${made.summary.provisioningJobId!}`), (j) => j.status === 'completed' || j.status === 'failed', 90_000, 200);
    expect(run).toMatchObject({ status: 'completed', synced: 3 });
    const accounts = await accountsOf(user, made.project.id);
    const onScim = (username: string) => scim.users().find((u) => u.userName === username);
    expect(accounts.every((a) => onScim(a.username)?.active === true)).toBe(true);

    const [started] = startedFor(await sweepAt('2034-04-01T01:00:00Z'), made.project);
    expect(await finished(user, started!.jobId!)).toMatchObject({ status: 'completed', total: 3, done: 3, onPlatform: 3, failed: 0, integrationName: 'SCIM for expiry' });
    for (const a of accounts) expect(onScim(a.username)?.active).toBe(false);
    expect((await accountsOf(user, made.project.id)).every((a) => !a.isActive && a.expiredAt)).toBe(true);
    const history = await user.json<{ entries: { kind: string; detail?: string }[] }>(`/api/accounts/${accounts[0]!.id}/history`);
    expect(history.entries[0]).toMatchObject({ kind: 'expired', detail: 'Inactive on the SCIM provider (active false).' });

    const mails = await until(
      'the expiry e-mail',
      async () => ((await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: { destination: { to: string[] }; subject: string; body: { text?: string } }[] }).emails.filter((m) => m.destination.to.includes(user.email)),
      (m) => m.some((x) => x.subject === 'Your project "Expiry SCIM" expired'),
    );
    expect(mails.find((x) => x.subject === 'Your project "Expiry SCIM" expired')?.body.text).toContain('its 3 accounts are being deactivated here and on SCIM for expiry');
  });
});

describe('projects written before the expiry index (the one-time backfill)', () => {
  it('gives an old project its index keys once, paged and resumable, and it expires; an expired or edited one is left as it is', async () => {
    const user = await apiUser();
    const old = (await create(user, 'Expiry old', '2035-02-01', 2)).project;
    const later = (await create(user, 'Expiry old later', '2035-09-01', 1)).project;
    const gone = (await create(user, 'Expiry old expired', '2035-01-15', 1)).project;
    // As the code before the index wrote them: a date, no index keys (and one already handled).
    for (const project of [old, later, gone]) await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'REMOVE ExpiryPK, ExpirySK' }));
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, gone.id), UpdateExpression: 'SET expiredAt = :at', ExpressionAttributeValues: { ':at': '2035-01-15T00:10:00.000Z' } }));
    // The earlier tests' sweeps finished the backfill of this table: it starts again, as on a table deployed before it.
    await db.send(new DeleteCommand({ TableName: TABLE, Key: keys.migration(EXPIRY_BACKFILL) }));
    expect(await indexed(old.id)).toEqual([]);

    // A run that stops after one page records where it got.
    const partial = await backfillExpiryIndex({ db, tableName: TABLE, now: () => new Date() })({ maxPages: 1, pageItems: 20 });
    expect(partial).toMatchObject({ done: false, pages: 1 });
    const marker = async () => (await db.send(new GetCommand({ TableName: TABLE, Key: keys.migration(EXPIRY_BACKFILL), ConsistentRead: true }))).Item;
    expect(await marker()).toMatchObject({ entityType: 'Migration', pages: 1, cursor: expect.any(String) });

    // The sweep goes on from there to the end, then expires the old project (now in the index).
    const swept = await sweepAt('2035-02-01T12:00:00Z', { backfill: { pageItems: 50 } });
    expect(swept.backfill).toMatchObject({ done: true });
    // The old projects due or not (wherever the pages met them), and no other: the table's others have their keys.
    expect(partial.indexed + swept.backfill!.indexed).toBe(2);
    expect(await marker()).toMatchObject({ status: 'done', pages: 1 + swept.backfill!.pages, indexed: 2 });
    expect((await marker())?.cursor).toBeUndefined();
    expect(await indexed(later.id)).toEqual([`2035-09-01#${user.sub}#${later.id}`]);
    expect(await indexed(gone.id)).toEqual([]);
    const started = startedFor(swept, old).length ? startedFor(swept, old) : startedFor(await sweepAt('2035-02-01T13:00:00Z'), old);
    expect(started).toHaveLength(1);
    expect(await finished(user, started[0]!.jobId!)).toMatchObject({ status: 'completed', origin: 'expiry', done: 2 });
    expect((await accountsOf(user, old.id)).every((a) => !a.isActive && a.expiredAt)).toBe(true);
    expect((await projectOf(user, old.id)).expiredAt).toBeDefined();
    expect((await projectOf(user, gone.id)).expiredAt).toBe('2035-01-15T00:10:00.000Z');

    // Done: later runs read only the marker.
    expect((await sweepAt('2035-02-01T14:00:00Z')).backfill).toEqual({ done: true, pages: 0, indexed: 0 });
  });
});

describe('adding people to an expired project', () => {
  const add = (user: ApiUser, projectId: string, tag: string) => user.call('/api/bulk-create', { body: { projectName: 'ignored', projectId, csvData: people(1, tag) } });
  const refusedAsExpired = async (response: Response) => {
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ message: PROJECT_EXPIRED_MESSAGE });
  };

  it("is refused (409) once the expiry started and while its date has arrived in the owner's timezone; a new date takes people again; the expiry waits for an add under way", async () => {
    const user = await apiUser();
    const project = (await create(user, 'Expiry adding', '2036-03-01', 2)).project;

    // People being added (the user's creation lock held): the expiry waits for the next run.
    const lockUntil = Date.parse('2036-03-01T12:30:00Z');
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.user(user.sub), UpdateExpression: 'SET bulkLock = :lock', ExpressionAttributeValues: { ':lock': { owner: 'an-add', until: lockUntil, since: lockUntil - 60_000 } } }));
    const held = await sweepAt('2036-03-01T12:00:00Z');
    expect(startedFor(held, project)).toEqual([]);
    expect(await indexed(project.id)).toHaveLength(1);
    expect((await projectItem(user, project.id))?.expiredAt).toBeUndefined();
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.user(user.sub), UpdateExpression: 'REMOVE bulkLock' }));

    const started = startedFor(await sweepAt('2036-03-01T13:00:00Z'), project);
    expect(started).toHaveLength(1);
    // While its deactivation runs, and after: refused, by the API and by a large file's start.
    await refusedAsExpired(await add(user, project.id, 'During'));
    expect(await finished(user, started[0]!.jobId!)).toMatchObject({ status: 'completed', done: 2 });
    await refusedAsExpired(await add(user, project.id, 'After'));
    const form = await user.json<{ id: string }>('/api/bulk-uploads', { method: 'POST' });
    await refusedAsExpired(await user.call(`/api/bulk-uploads/${form.id}/start`, { body: { projectName: 'ignored', projectId: project.id } }));
    expect(await accountsOf(user, project.id)).toHaveLength(2);
    // Another user's project stays 404.
    expect((await add(await apiUser(), project.id, 'Stranger')).status).toBe(404);

    // A new date: no longer expired, it takes people again.
    expect((await edit(user, project, '2099-01-01')).status).toBe(200);
    expect((await add(user, project.id, 'Again')).status).toBe(200);

    // An expiry that starts between an add's read and its row reservation: the reservation refuses.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'SET expiredAt = :at', ExpressionAttributeValues: { ':at': '2099-01-01T00:10:00.000Z' } }));
    await expect(dynamoBulkStore(db, TABLE).reserveRows(user.sub, project.id, 1, { rowBase: 0, at: new Date().toISOString() })).rejects.toThrow(PROJECT_EXPIRED_MESSAGE);

    // A date already arrived in the owner's timezone, not swept yet: refused as well.
    const due = (await create(user, 'Expiry due', '2020-01-02', 1)).project;
    expect((await projectItem(user, due.id))?.expiredAt).toBeUndefined();
    await refusedAsExpired(await add(user, due.id, 'Due'));
  });
});

describe('Active Projects (the dashboard and analytics)', () => {
  it("stops counting a project on its date (its start, in the owner's timezone), as the sweep decides, not the day after nor by the UTC date", async () => {
    const user = await apiUser();
    expect((await user.call('/api/user/settings', { method: 'PUT', body: { preferences: { timezone: 'America/Los_Angeles' } } })).status).toBe(200);
    const today = dayOf(new Date(), 'America/Los_Angeles');
    const arrived = (await create(user, 'Expiry arrived in Los Angeles', today, 1)).project;
    await create(user, 'Expiry far', '2099-01-01', 1);
    // Not swept yet (no expiredAt): its date has arrived all the same.
    expect((await projectItem(user, arrived.id))?.expiredAt).toBeUndefined();
    expect((await user.json<DashboardStats>('/api/dashboard/stats')).activeProjects).toBe(1);
    expect((await user.json<Analytics>('/api/analytics')).activeProjects).toBe(1);
    // A user in UTC, a project dated today there: not active either.
    const utcUser = await apiUser();
    await create(utcUser, 'Expiry today in UTC', dayOf(new Date(), 'UTC'), 1);
    expect((await utcUser.json<DashboardStats>('/api/dashboard/stats')).activeProjects).toBe(0);
    expect((await utcUser.json<Analytics>('/api/analytics')).activeProjects).toBe(0);
  });
});
