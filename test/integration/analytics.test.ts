import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { analyticsSchema, type Analytics } from '../../shared/schemas/analytics';
import { bulkCreateBodySchema, type BulkJob } from '../../shared/schemas/bulk';
import type { DashboardStats, Project } from '../../shared/schemas/project';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { analytics } from '../../functions/analytics/analytics';
import { monthOf, userTimeZone } from '../../functions/analytics/counters';
import { sqsBulkJobStarter } from '../../functions/bulk/bulk-jobs';
import type { BulkChunkMessage } from '../../functions/bulk/bulk-chunk';
import { dynamoBulkStore, waitingChunksWriter } from '../../functions/bulk/bulk-store';
import { createBulkAccounts } from '../../functions/bulk/create-bulk-accounts';
import { aesGcmCipher } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';

/**
 * GET /api/analytics against what the user really created: counters written by the work itself
 * (sync creation, background job, provisioning), a redelivered chunk counted once, the user's
 * timezone deciding the month, the one-time fill for users whose projects predate the counters.
 */
const stack = inject('stack');
const TABLE = 'bulkonboard';
const thisMonth = () => monthOf(new Date(), 'UTC');

async function analyticsOf(user: ApiUser): Promise<Analytics> {
  const response = await user.call('/api/analytics');
  expect(response.status, await response.clone().text()).toBe(200);
  // The answer is the shared schema's shape, exactly.
  return analyticsSchema.parse(await response.json());
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The user's figures computed the slow way, from the project list: what analytics must agree with. */
async function fromProjects(user: ApiUser) {
  const projects = await user.json<Project[]>('/api/projects');
  const accounts = projects.reduce((sum, p) => sum + p.accountCount, 0);
  const failed = projects.reduce((sum, p) => sum + p.failedCount, 0);
  return { projects: projects.length, accounts, failed };
}

const statsItems = async (userId: string) =>
  (await testDb().send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :s)', ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':s': 'STATS#' }, ConsistentRead: true }))).Items ?? [];

describe('GET /api/analytics', () => {
  it('a new user: every figure empty, 12 months, nothing invented', async () => {
    const user = await apiUser();
    const figures = await analyticsOf(user);
    expect(figures).toMatchObject({ totalAccounts: 0, accountsGrowthRate: null, activeProjects: 0, accountsThisMonth: 0, projectsThisMonth: 0, completionRate: null, averageProjectSize: 0, topPlatforms: [], recentActivity: [] });
    expect(figures.monthlyTrends.at(-1)).toEqual({ month: thisMonth(), accounts: 0, projects: 0 });
  });

  it('after a synchronous creation with a refused row: counted in the same write, matching the projects', async () => {
    const user = await apiUser();
    const other = await apiUser();
    const csvData = [...people(5, 'Sync'), { firstName: 'No', lastName: 'Mail', email: 'not-an-address' }];
    await user.json('/api/bulk-create', { body: { projectName: 'Counted', csvData, expirationDate: '2099-01-01' } });
    const figures = await analyticsOf(user);
    const own = await fromProjects(user);
    expect(own).toEqual({ projects: 1, accounts: 5, failed: 1 });
    expect(figures).toMatchObject({ totalAccounts: 5, activeProjects: 1, accountsThisMonth: 5, projectsThisMonth: 1, completionRate: 83.3, averageProjectSize: 5 });
    expect(figures.monthlyTrends.at(-1)).toEqual({ month: thisMonth(), accounts: 5, projects: 1 });
    expect(figures.recentActivity.map((a) => [a.action, a.count])).toEqual(
      expect.arrayContaining([['Project "Counted" created', 1], ['5 accounts created in "Counted"', 5], ['1 row not created in "Counted"', 1]]),
    );
    // The dashboard's change labels come from the same counters.
    expect(await user.json<DashboardStats>('/api/dashboard/stats')).toMatchObject({ totalAccounts: 5, accountsThisMonth: 5, newProjectsThisMonth: 1, accountsGrowthRate: null });
    // Another user's work is never counted in theirs, and theirs never here.
    expect(await analyticsOf(other)).toMatchObject({ totalAccounts: 0, activeProjects: 0, recentActivity: [] });
  });

  it('a project past its expiration date is not active', async () => {
    const user = await apiUser();
    await user.json('/api/bulk-create', { body: { projectName: 'Old', csvData: people(2, 'Exp'), expirationDate: '2020-01-01' } });
    await user.json('/api/bulk-create', { body: { projectName: 'New', csvData: people(2, 'Live') } });
    expect(await analyticsOf(user)).toMatchObject({ totalAccounts: 4, activeProjects: 1, projectsThisMonth: 2, averageProjectSize: 2 });
  });

  it('after a background job, with each chunk delivered twice (once at the same time): every account counted once', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const { job, bodies } = await parkedJob(user, 1200, 'Twice');
    // Every chunk twice at once, then each again after the job ended.
    await deliver(...bodies, ...bodies);
    await waitFor('the job', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.status === 'completed', 90_000);
    await deliver(...bodies);
    await waitFor('the late redeliveries', () => queueEmpty(), (empty) => empty, 60_000);
    const figures = await analyticsOf(user);
    expect(await fromProjects(user)).toEqual({ projects: 1, accounts: 1200, failed: 0 });
    expect(figures).toMatchObject({ totalAccounts: 1200, accountsThisMonth: 1200, projectsThisMonth: 1, completionRate: 100, averageProjectSize: 1200 });
    const total = (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.statsTotal(user.sub), ConsistentRead: true }))).Item;
    expect(total).toMatchObject({ accounts: 1200, rowsSettled: 1200, projects: 1 });
    expect(total?.rowsFailed ?? 0).toBe(0);
  }, 150_000);

  it('a job through the API, then the accounts provisioned: top platforms counts the Synced accounts per platform', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const queued = await user.json<{ job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Big', csvData: people(1001, 'Job') } });
    await waitFor('the job', () => user.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`), (j) => j.status === 'completed', 90_000);
    const scim = stack.scim;
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'Directory', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token: scim.token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const created = await user.json<{ summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Provisioned', csvData: people(4, `Plat${Date.now()}`), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    await waitFor('the run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${created.summary.provisioningJobId}`), (run) => run.status === 'completed', 30_000);
    const figures = await analyticsOf(user);
    expect(figures).toMatchObject({ totalAccounts: 1005, projectsThisMonth: 2, averageProjectSize: 502.5, topPlatforms: [{ name: 'Custom API', count: 4, percentage: 100 }] });
    expect(figures.totalAccounts).toBe((await fromProjects(user)).accounts);
  }, 150_000);

  it("months are the user's: work at 03:00 UTC on 1 February is January in Los Angeles, February in UTC", async () => {
    const pacific = await apiUser();
    const utc = await apiUser();
    const saved = await pacific.call('/api/user/settings', { method: 'PUT', body: { preferences: { timezone: 'America/Los_Angeles' } } });
    expect(saved.status).toBe(200);
    const at = new Date('2026-02-01T03:00:00Z');
    for (const user of [pacific, utc]) await inProcessCreate(() => at)(user.sub, bulkCreateBodySchema.parse({ projectName: 'Boundary', csvData: people(3, 'Tz') }));
    const read = (user: ApiUser) => analytics({ db: testDb(), tableName: TABLE, now: () => new Date('2026-02-10T12:00:00Z') })(user.sub);
    const inPacific = await read(pacific);
    expect(inPacific.monthlyTrends.slice(-2)).toEqual([{ month: '2026-01', accounts: 3, projects: 1 }, { month: '2026-02', accounts: 0, projects: 0 }]);
    expect(inPacific).toMatchObject({ accountsThisMonth: 0, accountsGrowthRate: -100 });
    const inUtc = await read(utc);
    expect(inUtc.monthlyTrends.slice(-2)).toEqual([{ month: '2026-01', accounts: 0, projects: 0 }, { month: '2026-02', accounts: 3, projects: 1 }]);
    expect(inUtc).toMatchObject({ accountsThisMonth: 3, projectsThisMonth: 1, accountsGrowthRate: null });
    // A later change of timezone moves nothing already counted; only new work follows it.
    expect((await pacific.call('/api/user/settings', { method: 'PUT', body: { preferences: { timezone: 'UTC' } } })).status).toBe(200);
    expect((await read(pacific)).monthlyTrends.slice(-2)).toEqual(inPacific.monthlyTrends.slice(-2));
  });

  it('a user whose projects predate the counters gets them filled once, from the project items (never the accounts)', async () => {
    const user = await apiUser();
    const now = new Date();
    const twoMonthsAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 15));
    const old = timeOrderedId(twoMonthsAgo);
    // A project as written before the counters: counts on the item, no statsCounted, no account items at all.
    await testDb().send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...keys.project(user.sub, old), entityType: 'Project', id: old, userId: user.sub, name: 'Legacy', accountType: 'Standard User', status: 'active', accountCount: 40, failedCount: 2, createdAt: twoMonthsAgo.toISOString(), updatedAt: twoMonthsAgo.toISOString() },
      }),
    );
    const first = await Promise.all([analyticsOf(user), analyticsOf(user)]);
    for (const figures of first) expect(figures).toMatchObject({ totalAccounts: 40, activeProjects: 1, completionRate: 95.2, accountsThisMonth: 0 });
    expect(first[0].monthlyTrends.find((m) => m.month === monthOf(twoMonthsAgo, 'UTC'))).toMatchObject({ accounts: 40, projects: 1 });
    // New work adds to the filled counters; the fill does not run again.
    await user.json('/api/bulk-create', { body: { projectName: 'Fresh', csvData: people(10, 'Fresh') } });
    expect(await analyticsOf(user)).toMatchObject({ totalAccounts: 50, activeProjects: 2, accountsThisMonth: 10, projectsThisMonth: 1, averageProjectSize: 25 });
    expect((await statsItems(user.sub)).filter((item) => item.SK === 'STATS#TOTAL')).toHaveLength(1);
  });
});

const sqsClient = () => new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const key = () => createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();

/** POST /api/bulk-create's use case in process, with the stack's table and settings, at a chosen time. */
function inProcessCreate(now: () => Date, jobs = sqsBulkJobStarter(testDb(), TABLE, sqsClient(), stack.queueUrls.bulk!, waitingChunksWriter(dynamoBulkStore(testDb(), TABLE)))) {
  const db = testDb();
  return createBulkAccounts({
    store: dynamoBulkStore(db, TABLE),
    timeZone: (userId) => userTimeZone(db, TABLE, userId),
    cipher: async () => aesGcmCipher(key()),
    randomBytes,
    now,
    newId: timeOrderedId,
    jobs,
    integration: async () => undefined,
  });
}

let parkedQueue: string | undefined;
/** The bulk queue has nothing waiting and nothing in flight. */
const queueEmpty = async () => {
  const { Attributes = {} } = await sqsClient().send(
    new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls.bulk!, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) === 0;
};

/** A job started as POST /api/bulk-create starts one, its chunks put on a queue no worker reads, so the test delivers them. */
async function parkedJob(user: ApiUser, rows: number, prefix: string) {
  const sqs = sqsClient();
  const queue = (parkedQueue ??= (await sqs.send(new CreateQueueCommand({ QueueName: `analytics-parked-${Date.now()}` }))).QueueUrl!);
  const create = inProcessCreate(() => new Date(), sqsBulkJobStarter(testDb(), TABLE, sqs, queue, waitingChunksWriter(dynamoBulkStore(testDb(), TABLE))));
  const result = await create(user.sub, bulkCreateBodySchema.parse({ projectName: `Parked ${prefix}`, csvData: people(rows, prefix) }));
  if (result.kind !== 'queued') throw new Error('expected a job');
  const bodies: BulkChunkMessage[] = [];
  const deadline = Date.now() + 20_000;
  while (bodies.length < Math.ceil(rows / 500) && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    for (const m of Messages) {
      bodies.push(JSON.parse(m.Body!) as BulkChunkMessage);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queue, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  expect(bodies).toHaveLength(Math.ceil(rows / 500));
  return { job: result.job, bodies };
}

async function deliver(...bodies: BulkChunkMessage[]) {
  const sqs = sqsClient();
  await Promise.all(bodies.map((body) => sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls.bulk!, MessageBody: JSON.stringify(body) }))));
}
