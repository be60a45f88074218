import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { accountActionJobs } from '../../functions/account-actions/account-actions';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { sqsMailSender } from '../../functions/mail/sqs-mail-queue';
import { sqsProvisioningQueue } from '../../functions/provisioning/sqs-provisioning-queue';
import { sweepExpiredProjects } from '../../functions/schedules/sweep-expired-projects';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import type { AccountSelectionCount } from '../../shared/schemas/account-selection';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, type ApiUser } from '../support/api';
import { until } from '../support/until';

/**
 * The project's counters of deactivated and expired accounts (docs/data-model.md, Project:
 * `deactivatedCount`, `expiredCount`): moved by account actions and the expiry as their chunks are
 * recorded done, never twice, filled once for a project older than them, and read by the project
 * page and GET /api/projects/{id}/account-selection instead of every account.
 */
const TABLE = 'bulkonboard';
const stack = inject('stack');
const db = testDb();
const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

const projectItem = async (user: ApiUser, projectId: string) => (await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(user.sub, projectId), ConsistentRead: true }))).Item!;
const counters = async (user: ApiUser, projectId: string) => {
  const item = await projectItem(user, projectId);
  return { accounts: item.accountCount, deactivated: item.deactivatedCount, expired: item.expiredCount };
};
const projectOf = async (user: ApiUser, projectId: string) => (await user.json<Project[]>('/api/projects')).find((p) => p.id === projectId);
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;
/** What every reader shows: the accounts' own states, counted. */
const shown = async (user: ApiUser, projectId: string) => {
  const accounts = await accountsOf(user, projectId);
  return { accounts: accounts.length, deactivated: accounts.filter((a) => !a.isActive).length, expired: accounts.filter((a) => a.expiredAt).length };
};
const selectionCount = async (user: ApiUser, projectId: string, filter: 'active' | 'deactivated') => (await user.json<AccountSelectionCount>(`/api/projects/${projectId}/account-selection?filter=${filter}`)).count;

const finished = (user: ApiUser, jobId: string) =>
  until(
    `account action ${jobId}`,
    () => user.json<AccountActionJob>(`/api/account-actions/${jobId}`),
    (job) => job.status === 'completed' || job.status === 'failed',
    90_000,
    200,
  );
async function act(user: ApiUser, projectId: string, body: Record<string, unknown>): Promise<AccountActionJob> {
  const started = await user.call(`/api/projects/${projectId}/account-actions`, { body });
  expect(started.status, await started.clone().text()).toBe(202);
  return finished(user, ((await started.json()) as { job: AccountActionJob }).job.id);
}

describe("a project's deactivated and expired counters", () => {
  let user: ApiUser;
  let project: Project;
  let ids: string[];

  beforeAll(async () => {
    user = await apiUser();
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Counted', csvData: people(6, 'Counted') } })).project;
    ids = (await accountsOf(user, project.id)).map((a) => a.id);
    expect(ids).toHaveLength(6);
  });

  it('start at 0; deactivate, deactivate again over an overlap, reactivate and delete move them by what changed', async () => {
    expect(await counters(user, project.id)).toEqual({ accounts: 6, deactivated: 0, expired: 0 });

    expect(await act(user, project.id, { action: 'deactivate', accountIds: ids.slice(0, 3) })).toMatchObject({ status: 'completed', done: 3 });
    expect(await counters(user, project.id)).toEqual({ accounts: 6, deactivated: 3, expired: 0 });
    // Two of these are deactivated already: only the third moves the counter.
    expect(await act(user, project.id, { action: 'deactivate', accountIds: ids.slice(1, 4) })).toMatchObject({ status: 'completed', done: 3 });
    expect(await counters(user, project.id)).toEqual({ accounts: 6, deactivated: 4, expired: 0 });
    // Reactivating an active one moves nothing.
    expect(await act(user, project.id, { action: 'reactivate', accountIds: [ids[0]!, ids[5]!] })).toMatchObject({ status: 'completed', done: 2 });
    expect(await counters(user, project.id)).toEqual({ accounts: 6, deactivated: 3, expired: 0 });
    // Deleting a deactivated account takes it off both counts; an active one only off the accounts.
    expect(await act(user, project.id, { action: 'delete', accountIds: [ids[1]!, ids[5]!] })).toMatchObject({ status: 'completed', done: 2 });
    expect(await counters(user, project.id)).toEqual({ accounts: 4, deactivated: 2, expired: 0 });
    expect(await shown(user, project.id)).toEqual({ accounts: 4, deactivated: 2, expired: 0 });

    // Where they are read: the project (page) and the selection's counts.
    expect(await projectOf(user, project.id)).toMatchObject({ deactivatedCount: 2, expiredCount: 0 });
    expect(await selectionCount(user, project.id, 'deactivated')).toBe(2);
    expect(await selectionCount(user, project.id, 'active')).toBe(2);
  });

  it('a redelivered start and chunks (twice each) move nothing twice', async () => {
    const before = await counters(user, project.id);
    const job = await act(user, project.id, { action: 'deactivate', filter: 'all' });
    expect(job).toMatchObject({ status: 'completed', total: 4, done: 4 });
    const after = await counters(user, project.id);
    expect(after).toEqual({ ...before, deactivated: 4 });

    const item = (await db.send(new GetCommand({ TableName: TABLE, Key: keys.accountAction(user.sub, job.id), ConsistentRead: true }))).Item!;
    const messages = [accountActionJobs.startMessage(user.sub, job.id), ...accountActionJobs.chunks(item), ...accountActionJobs.chunks(item)];
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: stack.queueUrls.provisioning!, Entries: messages.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) })) }));
    // The copies are handled (the queue is empty and no worker holds one) and changed nothing.
    await until('the redelivered copies handled', () => queueIdle(), (idle) => idle, 60_000, 200);
    expect(await counters(user, project.id)).toEqual(after);
    expect(await shown(user, project.id)).toEqual({ accounts: 4, deactivated: 4, expired: 0 });
  });

  it('reads the counter, not the accounts', async () => {
    // A counter that disagrees with the accounts (set by hand here) is what the routes answer: they read no account.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'SET deactivatedCount = :n', ExpressionAttributeValues: { ':n': 1 } }));
    try {
      expect(await selectionCount(user, project.id, 'deactivated')).toBe(1);
      expect(await selectionCount(user, project.id, 'active')).toBe(3);
      expect((await projectOf(user, project.id))?.deactivatedCount).toBe(1);
    } finally {
      await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'SET deactivatedCount = :n', ExpressionAttributeValues: { ':n': 4 } }));
    }
  });

  it('a project older than the counters: counted at read, then filled once by the next action under its lock', async () => {
    const other = await apiUser();
    const old = (await other.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Older', csvData: people(5, 'Older') } })).project;
    const oldIds = (await accountsOf(other, old.id)).map((a) => a.id);
    expect(await act(other, old.id, { action: 'deactivate', accountIds: oldIds.slice(0, 2) })).toMatchObject({ done: 2 });
    // As a project written before them: no counters.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(other.sub, old.id), UpdateExpression: 'REMOVE deactivatedCount, expiredCount' }));
    expect((await user.call(`/api/projects/${old.id}/account-selection?filter=deactivated`)).status).toBe(404);
    expect((await projectOf(other, old.id))?.deactivatedCount).toBeUndefined();
    // Counted from the accounts (and kept nowhere: a read writes nothing).
    expect(await selectionCount(other, old.id, 'deactivated')).toBe(2);
    expect(await selectionCount(other, old.id, 'active')).toBe(3);
    expect((await projectItem(other, old.id)).deactivatedCount).toBeUndefined();

    // The next action's plan counts them under its lock, and its chunks move them from there.
    expect(await act(other, old.id, { action: 'deactivate', accountIds: oldIds.slice(1, 4) })).toMatchObject({ done: 3 });
    expect(await counters(other, old.id)).toEqual({ accounts: 5, deactivated: 4, expired: 0 });
    expect(await shown(other, old.id)).toEqual({ accounts: 5, deactivated: 4, expired: 0 });
  });

  it("a project's expiry counts its accounts expired (and deactivated); Reactivate takes them off; deleting an expired one too", async () => {
    const other = await apiUser();
    const expiring = (await other.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Expiring', expirationDate: '2087-05-01', csvData: people(4, 'Expiring') } })).project;
    const expIds = (await accountsOf(other, expiring.id)).map((a) => a.id);
    // One deactivated by hand first: the expiry marks it expired without counting it deactivated again.
    expect(await act(other, expiring.id, { action: 'deactivate', accountIds: [expIds[0]!] })).toMatchObject({ done: 1 });
    // The job says completed before it gives the project back; the sweep leaves a held project to its next run.
    await until('the project given back', () => projectItem(other, expiring.id), (item) => item.activeAccountAction === undefined, 30_000, 100);
    const result = await sweepExpiredProjects({
      db,
      tableName: TABLE,
      queue: sqsProvisioningQueue(sqs, stack.queueUrls.provisioning!),
      mail: sqsMailSender(sqs, stack.queueUrls.mail!),
      now: () => new Date('2087-05-01T00:10:00Z'),
      newId: timeOrderedId,
      integrationName: async () => undefined,
    })({});
    const started = result.started.find((s) => s.projectId === expiring.id);
    expect(started?.jobId).toBeDefined();
    expect(await finished(other, started!.jobId!)).toMatchObject({ status: 'completed', done: 4, origin: 'expiry' });
    expect(await counters(other, expiring.id)).toEqual({ accounts: 4, deactivated: 4, expired: 4 });
    expect(await shown(other, expiring.id)).toEqual({ accounts: 4, deactivated: 4, expired: 4 });

    expect(await act(other, expiring.id, { action: 'reactivate', accountIds: expIds.slice(0, 2) })).toMatchObject({ done: 2 });
    expect(await counters(other, expiring.id)).toEqual({ accounts: 4, deactivated: 2, expired: 2 });
    expect(await act(other, expiring.id, { action: 'delete', accountIds: [expIds[3]!] })).toMatchObject({ done: 1 });
    expect(await counters(other, expiring.id)).toEqual({ accounts: 3, deactivated: 1, expired: 1 });
    expect(await shown(other, expiring.id)).toEqual({ accounts: 3, deactivated: 1, expired: 1 });
  });
});

/** The provisioning queue holds no message, visible or in flight. */
async function queueIdle(): Promise<boolean> {
  const { GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls.provisioning!, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }));
  return Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) + Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0) === 0;
}
