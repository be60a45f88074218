import { beforeAll, describe, expect, it, inject } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { BulkJob, BulkCreateSummary } from '../../shared/schemas/bulk';
import type { Page, AccountView, Project } from '../../shared/schemas/project';
import { dynamoBulkStore } from '../../functions/bulk/bulk-store';
import { recordDeadChunk } from '../../functions/bulk/process-chunk';
import type { BulkChunkMessage } from '../../functions/bulk/bulk-chunk';
import { timeOrderedId } from '../../functions/core/ids';
import { apiUser, upgradeToPro, people, testDb, type ApiUser } from '../support/api';

const stack = inject('stack');
type Queued = { project: Project; job: BulkJob; summary: BulkCreateSummary };

async function waitForJob(user: ApiUser, id: string): Promise<BulkJob> {
  for (let i = 0; i < 300; i++) {
    const job = await user.json<BulkJob>(`/api/bulk-jobs/${id}`);
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('job did not finish');
}

async function countAccounts(userId: string, projectId: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await testDb().send(
      new QueryCommand({
        TableName: 'bulkonboard',
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `USER#${userId}#PROJECT#${projectId}` },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

describe('bulk jobs (more than 1,000 rows)', () => {
  let pro: ApiUser;
  let queued: Queued;
  let finished: BulkJob;
  beforeAll(async () => {
    pro = await apiUser();
    await upgradeToPro(pro);
    const rows = [...people(1200, 'Big'), { firstName: 'Bad', lastName: 'Row', email: 'nope' }];
    const response = await pro.call('/api/bulk-create', { body: { projectName: 'Big import', csvData: rows } });
    expect(response.status).toBe(202);
    queued = (await response.json()) as Queued;
    finished = await waitForJob(pro, queued.job.id);
  }, 120_000);

  it('answers 202 with a job and the rows it refused up front', () => {
    expect(queued.job).toMatchObject({ total: 1200, status: 'queued', done: 0, failedCount: 0, projectId: queued.project.id });
    expect(queued.summary).toMatchObject({ total: 1201, successful: 0, failed: [{ row: 1201, field: 'email', message: 'Valid email is required' }] });
  });

  it('writes every row through the queue and reports real progress to completion', async () => {
    expect(finished).toMatchObject({ status: 'completed', total: 1200, done: 1200, failedCount: 0 });
    expect(await countAccounts(pro.sub, queued.project.id)).toBe(1200);
    const projects = await pro.json<Project[]>('/api/projects');
    expect(projects[0]).toMatchObject({ id: queued.project.id, accountCount: 1200, failedCount: 1 });
    const page = await pro.json<Page<AccountView>>(`/api/projects/${queued.project.id}/accounts?limit=500&showPasswords=true`);
    expect(new Set(page.items.map((a) => a.username)).size).toBe(500);
    expect(page.items.every((a) => a.password && a.password.length === 12)).toBe(true);
  });

  it('releases the user lock when done, so the next creation runs', async () => {
    const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${pro.sub}`, SK: 'PROFILE' } }));
    expect(Item).not.toHaveProperty('bulkLock');
    expect(Item).toMatchObject({ accountCount: 1200, projectCount: 1 });
    expect((await pro.call('/api/bulk-create', { body: { projectName: 'After', csvData: people(2, 'After') } })).status).toBe(200);
  });

  it('creates nothing twice when a chunk is delivered again', async () => {
    const { Item: chunk } = await testDb().send(
      new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${pro.sub}`, SK: `BULKJOB#${queued.job.id}#CHUNK#000000` } }),
    );
    expect(chunk).toMatchObject({ done: 500 });
    const before = await pro.json<Page<AccountView>>(`/api/projects/${queued.project.id}/accounts?limit=1&showPasswords=true`);
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const message: BulkChunkMessage = {
      userId: pro.sub,
      jobId: queued.job.id,
      projectId: queued.project.id,
      projectName: 'Big import',
      accountType: 'Standard User',
      createdAt: queued.job.createdAt,
      passwordSettings: { minLength: 12, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: true, avoidAmbiguous: false },
      existingAccounts: 0,
      chunk: 0,
      rows: [{ row: 1, firstName: 'Big0', lastName: 'Tester', email: 'big0@example.com', base: 'other', k: 0 }],
    };
    await sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls.bulk, MessageBody: JSON.stringify(message) }));
    await new Promise((r) => setTimeout(r, 2500));
    sqs.destroy();
    const after = await pro.json<Page<AccountView>>(`/api/projects/${queued.project.id}/accounts?limit=1&showPasswords=true`);
    expect(after.items[0]).toEqual(before.items[0]);
    expect(await pro.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`)).toMatchObject({ done: 1200, failedCount: 0 });
  });
});

describe('a chunk that reached the dead-letter queue', () => {
  it('is recorded as failed rows of its job, gives the reserved places back and completes the job', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const store = dynamoBulkStore(db, 'bulkonboard');
    const response = await user.call('/api/bulk-create', { body: { projectName: 'Doomed', csvData: people(1001, 'D') } });
    const { job } = (await response.json()) as Queued;
    const done = await waitForJob(user, job.id);
    expect(done.status).toBe('completed');

    // A second job whose chunks "die": record one dead chunk directly, as the DLQ worker does.
    const record = recordDeadChunk({ db, tableName: 'bulkonboard', store, now: () => new Date(), newId: timeOrderedId });
    const message: BulkChunkMessage = {
      userId: user.sub,
      jobId: job.id,
      projectId: job.projectId,
      projectName: 'Doomed',
      accountType: 'Standard User',
      createdAt: job.createdAt,
      passwordSettings: { minLength: 12, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: true, avoidAmbiguous: false },
      existingAccounts: 0,
      chunk: 99,
      rows: [{ row: 5000, firstName: 'Lost', lastName: 'Row', email: 'lost@example.com', base: 'lostrow', k: 0 }],
    };
    await record(message);
    await record(message); // a second delivery of the dead letter changes nothing
    const { Item: chunk } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: `BULKJOB#${job.id}#CHUNK#000099` } }));
    expect(chunk).toMatchObject({ failed: 1, failedRows: [{ row: 5000, email: 'lost@example.com' }] });
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({ done: 1001, failedCount: 1 });
    const { Item } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' } }));
    expect(Item).toMatchObject({ accountCount: 1000 });
  }, 120_000);
});

describe('usernames in a job for a user who already has accounts', () => {
  it('continue after the existing ones and never repeat, whatever chunk a row lands in', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const year = new Date().getUTCFullYear();
    await user.json('/api/bulk-create', { body: { projectName: 'Old', csvData: [{ firstName: 'John', lastName: 'Smith', email: 'old@example.com' }] } });
    // 1,001 rows: John Smith in the first and in the last chunk.
    const rows = [{ firstName: 'John', lastName: 'Smith', email: 'js1@example.com' }, ...people(999, 'Fill'), { firstName: 'John', lastName: 'Smith', email: 'js2@example.com' }];
    const { job } = (await (await user.call('/api/bulk-create', { body: { projectName: 'New', csvData: rows } })).json()) as Queued;
    expect((await waitForJob(user, job.id)).status).toBe('completed');
    const found = await user.json<{ items: AccountView[] }>(`/api/accounts/search?q=johnsmith${year}`);
    expect(found.items.map((a) => a.username).sort()).toEqual([`johnsmith${year}`, `johnsmith${year}-2`, `johnsmith${year}-3`]);
    expect(found.items.find((a) => a.email === 'js2@example.com')?.username).toBe(`johnsmith${year}-3`);
  }, 120_000);
});
