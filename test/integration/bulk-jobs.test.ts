import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { bulkCreateBodySchema, PASSWORD_NO_CLASS_MESSAGE, type BulkJob, type BulkCreateSummary } from '../../shared/schemas/bulk';
import type { Page, AccountView, Project } from '../../shared/schemas/project';
import type { NotificationList } from '../../shared/schemas/notifications';
import { sqsBulkJobStarter } from '../../functions/bulk/bulk-jobs';
import { dynamoBulkStore, waitingChunksWriter, LockHeldError } from '../../functions/bulk/bulk-store';
import { createBulkAccounts } from '../../functions/bulk/create-bulk-accounts';
import { processChunk, recordDeadChunk, recordUnqueuedChunk } from '../../functions/bulk/process-chunk';
import type { MailMessage } from '../../functions/mail/mail-message';
import type { BulkChunkMessage } from '../../functions/bulk/bulk-chunk';
import { aesGcmCipher } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { apiUser, upgradeToPro, people, testDb, type ApiUser } from '../support/api';
import { keys } from '../../functions/core/keys';
import { MAX_ACCOUNT_SHARDS } from '../../functions/accounts/account-partitions';
import { until } from '../support/until';

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

/** Accounts stored in every shard a project may have (a missing partition counts 0). */
async function countAccounts(userId: string, projectId: string): Promise<number> {
  let count = 0;
  for (const pk of keys.accountPartitions(userId, projectId, MAX_ACCOUNT_SHARDS)) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await testDb().send(
        new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, Select: 'COUNT', ExclusiveStartKey: start }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return count;
}

/**
 * As if a chunk's recording never happened (every delivery died or conflicted after writing its
 * accounts): its marker gone, its rows taken off the job's progress and the project's count.
 */
async function forgetChunkRecord(userId: string, job: { id: string; projectId: string }, chunk: number, rows: number): Promise<void> {
  const db = testDb();
  await db.send(new DeleteCommand({ TableName: 'bulkonboard', Key: keys.bulkJobChunk(userId, job.id, chunk) }));
  await db.send(
    new UpdateCommand({
      TableName: 'bulkonboard',
      Key: keys.bulkJob(userId, job.id),
      UpdateExpression: 'SET #status = :running ADD done :minus REMOVE completedAt, finalizedAt',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':minus': -rows, ':running': 'running' },
    }),
  );
  await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.project(userId, job.projectId), UpdateExpression: 'ADD accountCount :minus', ExpressionAttributeValues: { ':minus': -rows } }));
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
    expect(queued.summary).toMatchObject({ total: 1201, successful: 0, failedCount: 1, failed: [{ row: 1201, field: 'email', message: 'Valid email is required' }] });
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

  it('spreads the accounts over partitions, and the pages still list them once each in file order', async () => {
    const perPartition: number[] = [];
    for (const pk of keys.accountPartitions(pro.sub, queued.project.id, MAX_ACCOUNT_SHARDS)) {
      const { Count = 0 } = await testDb().send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, Select: 'COUNT' }));
      perPartition.push(Count);
    }
    // 1,200 rows: two shards (rows alternate), the first one being the project's partition as before.
    expect(perPartition.slice(0, 2)).toEqual([600, 600]);
    expect(perPartition.slice(2).every((n) => n === 0)).toBe(true);
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page: Page<AccountView> = await pro.json(`/api/projects/${queued.project.id}/accounts?limit=77${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBeGreaterThan(0);
      ids.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(Array.from({ length: 1200 }, (_, i) => keys.accountId(queued.project.id, i + 1)));
  });

  it('releases the user lock when done, so the next creation runs', async () => {
    const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${pro.sub}`, SK: 'PROFILE' } }));
    expect(Item).not.toHaveProperty('bulkLock');
    expect(Item).toMatchObject({ accountCount: 1200, projectCount: 1 });
    expect((await pro.call('/api/bulk-create', { body: { projectName: 'After', csvData: people(2, 'After') } })).status).toBe(200);
  });

});

/**
 * Starts a job the way POST /api/bulk-create does (the same use case, store and starter) but puts
 * its chunks on a queue no worker reads, so a test can deliver the real chunk bodies itself: in
 * any order, twice, altered, or to the dead-letter worker.
 */
async function parkedJob(user: ApiUser, rows: number, prefix: string, options: { refuse?: number[]; usageReadBefore?: { accountCount: number } } = {}) {
  const db = testDb();
  const sqs = sqsClient();
  // The queue as the starter sees it: SendMessageBatch reports the refused chunks as Failed entries.
  const refused = new Set((options.refuse ?? []).map(String));
  const starterSqs = {
    send: async (command: SendMessageBatchCommand) => {
      const entries = command.input.Entries ?? [];
      const taken = entries.filter((entry) => !refused.has(entry.Id!));
      const answer = taken.length ? await sqs.send(new SendMessageBatchCommand({ ...command.input, Entries: taken })) : { Successful: [], Failed: [] };
      return { ...answer, Failed: [...(answer.Failed ?? []), ...entries.filter((e) => refused.has(e.Id!)).map((e) => ({ Id: e.Id!, Code: 'InternalError', SenderFault: false }))] };
    },
  } as unknown as SQSClient;
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `parked-${prefix}-${Date.now()}` }));
  const key = createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();
  const store = dynamoBulkStore(db, 'bulkonboard');
  // The counts as read a moment earlier (another creation ended in between).
  const stale = options.usageReadBefore;
  const create = createBulkAccounts({
    store: stale ? { ...store, usage: async (userId) => ({ ...(await store.usage(userId)), ...stale }) } : store,
    timeZone: async () => 'UTC',
    cipher: async () => aesGcmCipher(key),
    randomBytes,
    now: () => new Date(),
    newId: timeOrderedId,
    jobs: sqsBulkJobStarter(db, 'bulkonboard', starterSqs, QueueUrl!, waitingChunksWriter(dynamoBulkStore(db, 'bulkonboard')), recordUnqueuedChunk({ db, tableName: 'bulkonboard', store: dynamoBulkStore(db, 'bulkonboard'), now: () => new Date(), newId: timeOrderedId })),
    integration: async () => undefined,
  });
  const result = await create(user.sub, bulkCreateBodySchema.parse({ projectName: `Parked ${prefix}`, csvData: people(rows, prefix) }));
  if (result.kind !== 'queued') throw new Error('expected a job');
  const bodies: BulkChunkMessage[] = [];
  const deadline = Date.now() + 20_000;
  const expected = Array.from({ length: Math.ceil(rows / 500) }, (_, i) => i).filter((chunk) => !refused.has(String(chunk)));
  while (bodies.length < expected.length && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    for (const m of Messages) {
      bodies.push(JSON.parse(m.Body!) as BulkChunkMessage);
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  bodies.sort((a, b) => a.chunk - b.chunk);
  expect(bodies.map((b) => b.chunk)).toEqual(expected);
  return { job: result.job, project: result.project, bodies };
}

const sqsClient = () => new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

/** Delivers chunk bodies to the real bulk queue, all at once. */
async function deliver(...bodies: BulkChunkMessage[]) {
  const sqs = sqsClient();
  await Promise.all(bodies.map((body) => sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls.bulk, MessageBody: JSON.stringify(body) }))));
}

/** The bulk queue has nothing waiting and nothing in flight. */
const queueDrained = async () => {
  const { Attributes = {} } = await sqsClient().send(
    new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls.bulk, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) === 0;
};

async function usernamesByRow(userId: string, projectId: string): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  for (const pk of keys.accountPartitions(userId, projectId, MAX_ACCOUNT_SHARDS)) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await testDb().send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) names.set(Number(item.row), String(item.username));
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return names;
}

const userItem = async (userId: string) =>
  (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${userId}`, SK: 'PROFILE' }, ConsistentRead: true }))).Item ?? {};

describe('a chunk delivered again', () => {
  it('after its record was lost, and twice at once, writes the same accounts once and counts them once', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    // Existing accounts with the same names: the chunk must not take its own first writes for taken names.
    await user.json('/api/bulk-create', { body: { projectName: 'Older', csvData: people(3, 'Again') } });
    const { job, bodies } = await parkedJob(user, 1200, 'Again');
    expect(bodies[0]!.existingAccounts).toBe(3);
    await deliver(...bodies);
    expect(await waitForJob(user, job.id)).toMatchObject({ status: 'completed', done: 1200, failedCount: 0 });
    const before = await usernamesByRow(user.sub, job.projectId);
    expect(before.size).toBe(1200);

    // As if the worker had written chunk 0's accounts and died before recording it: no marker, no progress.
    const db = testDb();
    await db.send(new DeleteCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: `BULKJOB#${job.id}#CHUNK#000000` } }));
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: `BULKJOB#${job.id}` }, UpdateExpression: 'ADD done :minus', ExpressionAttributeValues: { ':minus': -500 } }));
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: `PROJECT#${job.projectId}` }, UpdateExpression: 'ADD accountCount :minus', ExpressionAttributeValues: { ':minus': -500 } }));
    await deliver(bodies[0]!, bodies[0]!);
    await until(
      'the redelivered chunk',
      async () => ({ drained: await queueDrained(), marker: (await db.send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: `BULKJOB#${job.id}#CHUNK#000000` }, ConsistentRead: true }))).Item }),
      ({ drained, marker }) => drained && !!marker,
    );

    expect(await countAccounts(user.sub, job.projectId)).toBe(1200);
    expect(await usernamesByRow(user.sub, job.projectId)).toEqual(before);
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({ status: 'completed', done: 1200, failedCount: 0 });
    const projects = await user.json<Project[]>('/api/projects');
    expect(projects.find((p) => p.id === job.projectId)).toMatchObject({ accountCount: 1200 });
    expect(await userItem(user.sub)).toMatchObject({ accountCount: 1203, projectCount: 2 });
  }, 120_000);
});

describe('a job that fails', () => {
  it('on settings that cannot make a password: fails at once with the reason, releases the lock, and writes none of its later chunks', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const { job, bodies } = await parkedJob(user, 1200, 'Doomed');
    expect(await userItem(user.sub)).toHaveProperty('bulkLock');
    const impossible = { ...bodies[0]!.passwordSettings, includeUppercase: false, includeLowercase: false, includeNumbers: false, includeSpecialChars: false };
    await deliver({ ...bodies[0]!, passwordSettings: impossible });
    // The status changes first, the chunk's rows are recorded right after it.
    const failed = await until('the job to fail', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.status === 'failed' && j.failedCount > 0, 20_000);
    expect(failed).toMatchObject({ status: 'failed', reason: PASSWORD_NO_CLASS_MESSAGE, done: 0, failedCount: 500 });
    expect(await userItem(user.sub)).not.toHaveProperty('bulkLock');
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Next', csvData: people(2, 'Next') } })).status).toBe(200);

    // Its other chunks, healthy as they are, come later: recorded as not created, nothing written.
    await deliver(bodies[1]!, bodies[2]!);
    const end = await until('every row accounted for', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.done + j.failedCount === j.total);
    expect(end).toMatchObject({ status: 'failed', done: 0, failedCount: 1200 });
    // The bell tells of the failure once, with its reason, however many chunks reported it.
    const told = (await user.json<NotificationList>('/api/notifications')).notifications.filter((n) => n.kind.startsWith('bulk-job'));
    expect(told).toEqual([expect.objectContaining({ kind: 'bulk-job-failed', body: PASSWORD_NO_CLASS_MESSAGE, link: `/projects/${job.projectId}` })]);
    expect(await countAccounts(user.sub, job.projectId)).toBe(0);
    expect(await userItem(user.sub)).toMatchObject({ accountCount: 2 });
    const report = await user.call(`/api/projects/${job.projectId}/rejected-rows`);
    const lines = (await report.text()).trim().split('\r\n');
    expect(lines).toHaveLength(1201);
    expect(lines[1]).toBe(`1,Doomed0,Tester,doomed0@example.com,${PASSWORD_NO_CLASS_MESSAGE.includes(',') ? `"${PASSWORD_NO_CLASS_MESSAGE}"` : PASSWORD_NO_CLASS_MESSAGE}`);
  }, 120_000);

  it('on a chunk the queue refused: its rows are failed at once with the reason, the lock is free, and every row ends accounted for', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const { job, bodies } = await parkedJob(user, 1200, 'Refused', { refuse: [1] });
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({
      status: 'failed',
      reason: 'Rows 501 to 1000 could not be queued. Please create them again.',
      done: 0,
      failedCount: 500,
    });
    expect(await userItem(user.sub)).not.toHaveProperty('bulkLock');
    // The chunks that were queued see a failed job: recorded as not created, nothing written.
    await deliver(...bodies);
    const end = await until('every row accounted for', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.done + j.failedCount === j.total);
    expect(end).toMatchObject({ status: 'failed', done: 0, failedCount: 1200, total: 1200 });
    expect(await countAccounts(user.sub, job.projectId)).toBe(0);
    // The reserved places are given back.
    expect(await userItem(user.sub)).toMatchObject({ accountCount: 0 });
    const report = await user.call(`/api/projects/${job.projectId}/rejected-rows`);
    expect((await report.text()).trim().split('\r\n')).toHaveLength(1201);
  }, 120_000);

  it('a failed job whose lock was not given back (the release failed) gives it back on its next chunk', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const { job, bodies } = await parkedJob(user, 1200, 'Stuck');
    const { bulkLock } = await userItem(user.sub);
    expect(bulkLock).toBeDefined();
    const impossible = { ...bodies[0]!.passwordSettings, includeUppercase: false, includeLowercase: false, includeNumbers: false, includeSpecialChars: false };
    await deliver({ ...bodies[0]!, passwordSettings: impossible });
    await until('the job to fail', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.status === 'failed' && j.failedCount > 0, 20_000);
    // As if that release had failed: the failed job's lock is back on the user.
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET bulkLock = :lock', ExpressionAttributeValues: { ':lock': bulkLock } }));
    const record = recordDeadChunk({ db, tableName: 'bulkonboard', store: dynamoBulkStore(db, 'bulkonboard'), now: () => new Date(), newId: timeOrderedId });
    await record(bodies[2]!);
    expect(await userItem(user.sub)).not.toHaveProperty('bulkLock');
  }, 120_000);

  it('on a chunk that reached the dead-letter queue: fails with the reason and releases the lock at once', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const { job, bodies } = await parkedJob(user, 1200, 'Dead');
    await deliver(bodies[0]!, bodies[1]!);
    await until('two chunks', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.done === 1000);
    expect(await userItem(user.sub)).toHaveProperty('bulkLock');

    const mails: MailMessage[] = [];
    const record = recordDeadChunk({ db, tableName: 'bulkonboard', store: dynamoBulkStore(db, 'bulkonboard'), now: () => new Date(), newId: timeOrderedId, mail: async (m) => void mails.push(m) });
    await record(bodies[2]!);
    await record(bodies[2]!); // a second delivery of the dead letter changes nothing
    // The failed job's project-completion e-mail is queued once (the mail worker sends it if the user asked for it).
    expect(mails).toEqual([expect.objectContaining({ type: 'project-completion', userId: user.sub, outcome: 'failed', created: 1000, failed: 200 })]);
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({
      status: 'failed',
      reason: 'Rows 1001 to 1200 could not be stored after 5 attempts.',
      done: 1000,
      failedCount: 200,
    });
    const { Item: chunk } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: `BULKJOB#${job.id}#CHUNK#000002` } }));
    expect(chunk).toMatchObject({ failed: 200, failedRows: expect.arrayContaining([{ row: 1001, firstName: 'Dead1000', lastName: 'Tester', email: 'dead1000@example.com' }]) });
    const stored = await userItem(user.sub);
    expect(stored).not.toHaveProperty('bulkLock');
    expect(stored).toMatchObject({ accountCount: 1000 });
    expect(await countAccounts(user.sub, job.projectId)).toBe(1000);
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Next', csvData: people(2, 'Next') } })).status).toBe(200);
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

describe('a creation answered at once whose write fails part-way (issue 26: never a 500 with accounts stored)', () => {
  it('becomes a job of the same project: the accounts stored already are written again, not doubled, with the names the request claimed, and the lock is given back at the end', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const year = new Date().getUTCFullYear();
    // Names already taken by another project: the request claims the next suffixes.
    await user.json('/api/bulk-create', { body: { projectName: 'Earlier', csvData: [{ firstName: 'John', lastName: 'Smith', email: 'earlier@example.com' }] } });
    const db = testDb();
    const store = dynamoBulkStore(db, 'bulkonboard');
    const key = createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();
    let failed = false;
    // The first write of the accounts stores half of them, then DynamoDB gives up (throttling past the retries).
    const breaking = {
      ...store,
      writeAll: async (items: Parameters<typeof store.writeAll>[0], options?: Parameters<typeof store.writeAll>[1]) => {
        if (!failed && items.some((item) => item.entityType === 'Account')) {
          failed = true;
          await store.writeAll(items.slice(0, Math.floor(items.length / 2)), options);
          throw new Error('ProvisionedThroughputExceededException');
        }
        return store.writeAll(items, options);
      },
    };
    const create = createBulkAccounts({
      store: breaking,
      timeZone: async () => 'UTC',
      cipher: async () => aesGcmCipher(key),
      randomBytes,
      now: () => new Date(),
      newId: timeOrderedId,
      jobs: sqsBulkJobStarter(db, 'bulkonboard', sqsClient(), stack.queueUrls.bulk!, waitingChunksWriter(dynamoBulkStore(db, 'bulkonboard')), recordUnqueuedChunk({ db, tableName: 'bulkonboard', store, now: () => new Date(), newId: timeOrderedId })),
      integration: async () => undefined,
    });
    const rows = [{ firstName: 'John', lastName: 'Smith', email: 'js1@example.com' }, ...people(38, 'Half'), { firstName: 'John', lastName: 'Smith', email: 'js2@example.com' }];
    const result = await create(user.sub, bulkCreateBodySchema.parse({ projectName: 'Half written', csvData: rows }));
    expect(failed).toBe(true);
    expect(result.kind).toBe('queued');
    if (result.kind !== 'queued') return;
    expect(result.job).toMatchObject({ id: result.project.id, total: 40 });

    expect((await waitForJob(user, result.job.id)).status).toBe('completed');
    const names = await usernamesByRow(user.sub, result.project.id);
    expect(names.size).toBe(40);
    expect(new Set(names.values()).size).toBe(40);
    expect([names.get(1), names.get(40)]).toEqual([`johnsmith${year}-2`, `johnsmith${year}-3`]);
    const project = (await user.json<Project[]>('/api/projects')).find((p) => p.id === result.project.id);
    expect(project).toMatchObject({ accountCount: 40 });
    const { Item } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), ConsistentRead: true }));
    expect(Item).toMatchObject({ projectCount: 2, accountCount: 41 });
    expect(Item).not.toHaveProperty('bulkLock');
  }, 120_000);
});

describe('a job whose completion step failed once', () => {
  it('is completed by the next delivery of an already recorded chunk, and releases the lock', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const { job, bodies } = await parkedJob(user, 1200, 'Stuck');
    await deliver(...bodies);
    expect(await waitForJob(user, job.id)).toMatchObject({ status: 'completed', done: 1200 });
    // A completion gives the lock back, then sets the status, and ends with the statistics, marked
    // on the job as finalizedAt (functions/bulk/process-chunk.ts): let the first end before playing
    // a second one, or its last steps would land in the middle of the test.
    const jobKey = { PK: `USER#${user.sub}`, SK: `BULKJOB#${job.id}` };
    const jobItem = async () => (await db.send(new GetCommand({ TableName: 'bulkonboard', Key: jobKey, ConsistentRead: true }))).Item ?? {};
    await until('the first completion to end', async () => ({ user: await userItem(user.sub), job: await jobItem() }), ({ user: u, job: j }) => !('bulkLock' in u) && 'finalizedAt' in j);
    // As if the delivery that recorded the last chunk had died before it changed the status: every
    // chunk recorded, the job still 'running', the user's lock still held.
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: jobKey, UpdateExpression: 'SET #status = :running REMOVE completedAt, finalizedAt', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':running': 'running' } }));
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, UpdateExpression: 'SET bulkLock = :lock', ExpressionAttributeValues: { ':lock': { owner: job.id, until: Date.now() + 600_000 } } }));
    const processed = Number((await userItem(user.sub)).processedAccounts ?? 0);

    // SQS delivers that chunk again (its visibility timeout ran out): the marker exists.
    await deliver(bodies[2]!);
    expect(await waitForJob(user, job.id)).toMatchObject({ status: 'completed', done: 1200, failedCount: 0 });
    await until('the second completion to end', jobItem, (item) => 'finalizedAt' in item);
    const after = await until('the lock released', () => userItem(user.sub), (item) => !('bulkLock' in item));
    expect(Number(after.processedAccounts)).toBe(processed + 1200);
    expect(await countAccounts(user.sub, job.projectId)).toBe(1200);
  }, 120_000);
});

describe('the dead-letter worker counts what exists', () => {
  it('a dead chunk whose accounts were all stored is recorded as done, and the job completes', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const { job, bodies } = await parkedJob(user, 1200, 'Stored');
    await deliver(...bodies);
    expect(await waitForJob(user, job.id)).toMatchObject({ status: 'completed', done: 1200 });
    // As if recording chunk 1 had conflicted on every delivery: its 500 accounts are there, no marker, no progress.
    await forgetChunkRecord(user.sub, job, 1, 500);

    const record = recordDeadChunk({ db, tableName: 'bulkonboard', store: dynamoBulkStore(db, 'bulkonboard'), now: () => new Date(), newId: timeOrderedId });
    await record(bodies[1]!);
    await record(bodies[1]!);
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({ status: 'completed', done: 1200, failedCount: 0 });
    expect(await userItem(user.sub)).toMatchObject({ accountCount: 1200 });
    const projects = await user.json<Project[]>('/api/projects');
    expect(projects.find((p) => p.id === job.projectId)).toMatchObject({ accountCount: 1200, failedCount: 0 });
  }, 120_000);

  it('a dead chunk with some accounts stored fails only the missing rows, and keeps the stored ones counted', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const { job, bodies } = await parkedJob(user, 1200, 'Half');
    await deliver(bodies[0]!, bodies[1]!);
    await until('two chunks', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.done === 1000);
    // Chunk 2 (rows 1001 to 1200): an attempt stored its first 150 accounts, then every attempt died.
    await deliver(bodies[2]!);
    await until('the third chunk', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.status === 'completed');
    await forgetChunkRecord(user.sub, job, 2, 200);
    for (let row = 1151; row <= 1200; row++) {
      await db.send(new DeleteCommand({ TableName: 'bulkonboard', Key: keys.account(user.sub, job.projectId, row, bodies[2]!.shards) }));
    }

    const record = recordDeadChunk({ db, tableName: 'bulkonboard', store: dynamoBulkStore(db, 'bulkonboard'), now: () => new Date(), newId: timeOrderedId });
    await record(bodies[2]!);
    await record(bodies[2]!);
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({ status: 'failed', reason: 'Rows 1151 to 1200 could not be stored after 5 attempts.', done: 1150, failedCount: 50 });
    const { Item: chunk } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: `BULKJOB#${job.id}#CHUNK#000002` } }));
    expect(chunk).toMatchObject({ done: 150, failed: 50 });
    expect((chunk!.failedRows as { row: number }[]).map((r) => r.row)).toEqual(Array.from({ length: 50 }, (_, i) => 1151 + i));
    expect(await userItem(user.sub)).toMatchObject({ accountCount: 1150 });
    expect(await countAccounts(user.sub, job.projectId)).toBe(1150);
    const projects = await user.json<Project[]>('/api/projects');
    expect(projects.find((p) => p.id === job.projectId)).toMatchObject({ accountCount: 1150, failedCount: 50 });
  }, 120_000);
});

describe('two creations a moment apart', () => {
  it('never share a username: each name is claimed on the base table before its account is written', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const year = new Date().getUTCFullYear();
    const same = (n: number) => Array.from({ length: n }, (_, i) => ({ firstName: 'Mary', lastName: 'Jones', email: `mj${n}-${i}@example.com` }));
    const names: string[] = [];
    for (const n of [3, 2, 4]) {
      const created = await user.json<{ accounts: { id: string; username: string }[] }>('/api/bulk-create', { body: { projectName: `Same ${n}`, csvData: same(n) } });
      names.push(...created.accounts.map((a) => a.username));
      // Each name is held by its account on the base table (the item a conditional write guards).
      for (const account of created.accounts) {
        const { Item } = await testDb().send(
          new GetCommand({ TableName: 'bulkonboard', Key: keys.username(user.sub, account.username), ConsistentRead: true }),
        );
        expect(Item).toMatchObject({ username: account.username, accountId: account.id });
      }
    }
    expect(names).toHaveLength(9);
    expect(new Set(names).size).toBe(9);
    expect(names[0]).toBe(`maryjones${year}`);
  }, 60_000);

  it('count the names of accounts stored before username items existed', async () => {
    const user = await apiUser();
    const year = new Date().getUTCFullYear();
    const db = testDb();
    const first = await user.json<{ accounts: { username: string }[] }>('/api/bulk-create', { body: { projectName: 'Old data', csvData: [{ firstName: 'Olga', lastName: 'Berg', email: 'ob1@example.com' }] } });
    expect(first.accounts[0]!.username).toBe(`olgaberg${year}`);
    // As stored by the earlier version: the account, but no username item and no mark on the user.
    await db.send(new DeleteCommand({ TableName: 'bulkonboard', Key: keys.username(user.sub, `olgaberg${year}`) }));
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, UpdateExpression: 'REMOVE usernameItems' }));
    const second = await user.json<{ accounts: { username: string }[] }>('/api/bulk-create', { body: { projectName: 'New data', csvData: [{ firstName: 'Olga', lastName: 'Berg', email: 'ob2@example.com' }] } });
    expect(second.accounts[0]!.username).toBe(`olgaberg${year}-2`);
    expect((await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.username(user.sub, `olgaberg${year}`), ConsistentRead: true }))).Item).toMatchObject({ username: `olgaberg${year}` });
  }, 60_000);
});

describe('a job whose user had no account when its request read the counts', () => {
  it('still reads the names of accounts created before it took the lock, and repeats none', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    // Created after the job's request read 0 accounts, before it took the lock.
    const earlier = await user.json<{ accounts: { username: string }[] }>('/api/bulk-create', { body: { projectName: 'Earlier', csvData: people(5, 'Race') } });
    const { job, bodies } = await parkedJob(user, 1200, 'Race', { usageReadBefore: { accountCount: 0 } });
    expect(bodies[0]!.existingAccounts).toBe(5);
    await deliver(...bodies);
    expect(await waitForJob(user, job.id)).toMatchObject({ status: 'completed', done: 1200 });
    const names = [...(await usernamesByRow(user.sub, job.projectId)).values(), ...earlier.accounts.map((a) => a.username)];
    expect(new Set(names).size).toBe(1205);
  }, 120_000);
});

describe('two jobs of one user whose names collide', () => {
  it('never share a username: a job whose lock lapsed and was taken waits, then takes it back and reads the names again', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const key = createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();
    const chunkWorker = processChunk({ db, tableName: 'bulkonboard', store: dynamoBulkStore(db, 'bulkonboard'), cipher: async () => aesGcmCipher(key), randomBytes, now: () => new Date(), newId: timeOrderedId });
    // Job A takes the lock; its chunks wait (as if the queue were busy) until the lock lapses.
    const first = await parkedJob(user, 1200, 'Clash');
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET bulkLock.#until = :past', ExpressionAttributeNames: { '#until': 'until' }, ExpressionAttributeValues: { ':past': 0 } }));
    // Job B, the same people again (the same names), may start now.
    const second = await parkedJob(user, 1200, 'Clash');

    // B's chunk holds the lock for good: each chunk extends it.
    const before = (await userItem(user.sub)).bulkLock as { owner: string; until: number };
    expect(before.owner).toBe(second.job.id);
    await chunkWorker(second.bodies[0]!);
    const extended = (await userItem(user.sub)).bulkLock as { owner: string; until: number };
    expect(extended.owner).toBe(second.job.id);
    expect(extended.until).toBeGreaterThan(before.until);

    // A's chunk while B holds the lock: refused before anything is written (SQS delivers it again later).
    await expect(chunkWorker(first.bodies[0]!)).rejects.toBeInstanceOf(LockHeldError);
    expect(await countAccounts(user.sub, first.job.projectId)).toBe(0);

    await deliver(...second.bodies.slice(1));
    expect(await waitForJob(user, second.job.id)).toMatchObject({ status: 'completed', done: 1200 });
    // B gave the lock back before its status said it was done (a chunk of A that came between the
    // two would find the lock held and wait out the queue's visibility timeout): A takes it again
    // and gives its rows the next free names.
    expect(await userItem(user.sub)).not.toHaveProperty('bulkLock');
    await deliver(...first.bodies);
    expect(await waitForJob(user, first.job.id)).toMatchObject({ status: 'completed', done: 1200 });

    const names = [...(await usernamesByRow(user.sub, first.job.projectId)).values(), ...(await usernamesByRow(user.sub, second.job.projectId)).values()];
    expect(names).toHaveLength(2400);
    expect(new Set(names).size).toBe(2400);
    const year = new Date().getUTCFullYear();
    expect((await usernamesByRow(user.sub, second.job.projectId)).get(1)).toBe(`clash0tester${year}`);
    expect((await usernamesByRow(user.sub, first.job.projectId)).get(1)).toBe(`clash0tester${year}-2`);
    // Every name is held on the base table: B's (its lock unbroken) in its username blocks, A's
    // (a lock taken back) by its own account's conditional name item.
    for (const [row, username] of [...(await usernamesByRow(user.sub, first.job.projectId)).entries()].slice(0, 50)) {
      const { Item } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.username(user.sub, username), ConsistentRead: true }));
      expect(Item).toMatchObject({ username, accountId: keys.accountId(first.job.projectId, row) });
    }
    const blocks = [...(await usernameBlocksOf(user.sub)).values()];
    expect(blocks.every((b) => b.projectId === second.job.projectId)).toBe(true);
    expect(blocks.flatMap((b) => b.names).sort()).toEqual([...(await usernamesByRow(user.sub, second.job.projectId)).values()].sort());
    expect(await userItem(user.sub)).not.toHaveProperty('bulkLock');
  }, 180_000);
});

/** Every username block of the user (all username partitions), by key. */
async function usernameBlocksOf(userId: string): Promise<Map<string, { projectId: string; jobId: string; names: string[] }>> {
  const blocks = new Map<string, { projectId: string; jobId: string; names: string[] }>();
  for (const pk of keys.allUsernamePartitions(userId)) {
    const { Items = [] } = await testDb().send(
      new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': pk, ':prefix': keys.usernameBlockPrefix }, ConsistentRead: true }),
    );
    for (const item of Items) blocks.set(`${pk}|${String(item.SK)}`, { projectId: String(item.projectId), jobId: String(item.jobId), names: item.names as string[] });
  }
  return blocks;
}

describe('username blocks (a job under its unbroken lock)', () => {
  it('hold every name of the job once; a later request and job get the next suffixes; a redelivered chunk rewrites the same blocks', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const db = testDb();
    const year = new Date().getUTCFullYear();
    const key = createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();
    const chunkWorker = processChunk({ db, tableName: 'bulkonboard', store: dynamoBulkStore(db, 'bulkonboard'), cipher: async () => aesGcmCipher(key), randomBytes, now: () => new Date(), newId: timeOrderedId });

    // Job A: its names as blocks, none as name items.
    const first = await parkedJob(user, 1200, 'Blk');
    await deliver(...first.bodies);
    expect(await waitForJob(user, first.job.id)).toMatchObject({ status: 'completed', done: 1200 });
    const firstNames = await usernamesByRow(user.sub, first.job.projectId);
    const afterFirst = await usernameBlocksOf(user.sub);
    const blockNames = [...afterFirst.values()].flatMap((b) => b.names);
    expect(blockNames.sort()).toEqual([...firstNames.values()].sort());
    expect([...afterFirst.values()].every((b) => b.projectId === first.job.projectId && b.jobId === first.job.id)).toBe(true);
    expect((await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.username(user.sub, `blk0tester${year}`), ConsistentRead: true }))).Item).toBeUndefined();

    // A request with the same people: it reads the blocks, so its names take the next suffix.
    const request = await user.json<{ accounts: { username: string }[] }>('/api/bulk-create', { body: { projectName: 'Blk request', csvData: people(3, 'Blk') } });
    expect(request.accounts.map((a) => a.username)).toEqual([0, 1, 2].map((i) => `blk${i}tester${year}-2`));

    // Job B, the same people again: chunk 0 processed, its record lost, processed again.
    const second = await parkedJob(user, 1200, 'Blk');
    await chunkWorker(second.bodies[0]!);
    const secondBlocks = async () => new Map([...(await usernameBlocksOf(user.sub))].filter(([, b]) => b.jobId === second.job.id));
    const once = await secondBlocks();
    expect(once.size).toBeGreaterThan(0);
    await forgetChunkRecord(user.sub, second.job, 0, 500);
    await chunkWorker(second.bodies[0]!);
    expect(await secondBlocks()).toEqual(once);
    await deliver(...second.bodies.slice(1));
    expect(await waitForJob(user, second.job.id)).toMatchObject({ status: 'completed', done: 1200 });
    expect(await countAccounts(user.sub, second.job.projectId)).toBe(1200);
    const secondNames = await usernamesByRow(user.sub, second.job.projectId);
    expect(secondNames.get(1)).toBe(`blk0tester${year}-3`);
    expect(secondNames.get(4)).toBe(`blk3tester${year}-2`);
    const all = [...firstNames.values(), ...request.accounts.map((a) => a.username), ...secondNames.values()];
    expect(all).toHaveLength(2403);
    expect(new Set(all).size).toBe(2403);
    expect([...(await secondBlocks()).values()].flatMap((b) => b.names).sort()).toEqual([...secondNames.values()].sort());
  }, 180_000);
});

describe('the waiting chunks of a large job', () => {
  /** A job of `rows` rows made through the creation with `writeWaiting`, its first window on a queue no worker reads. */
  async function start(user: ApiUser, rows: number, prefix: string, writeWaiting: Parameters<typeof sqsBulkJobStarter>[4]) {
    const db = testDb();
    const sqs = sqsClient();
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `waiting-${prefix}-${Date.now()}` }));
    const key = createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();
    const create = createBulkAccounts({
      store: dynamoBulkStore(db, 'bulkonboard'),
      timeZone: async () => 'UTC',
      cipher: async () => aesGcmCipher(key),
      randomBytes,
      now: () => new Date(),
      newId: timeOrderedId,
      jobs: sqsBulkJobStarter(db, 'bulkonboard', sqs, QueueUrl!, writeWaiting),
      integration: async () => undefined,
    });
    return create(user.sub, bulkCreateBodySchema.parse({ projectName: `Waiting ${prefix}`, csvData: people(rows, prefix) }));
  }
  const stored = async (userId: string, jobId: string, chunks: number[]) =>
    (await Promise.all(chunks.map(async (chunk) => (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.bulkJobWaitingChunk(userId, jobId, chunk), ConsistentRead: true }))).Item))).filter(Boolean).length;

  it('are stored 25 to a request by the group writer, every one of them', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const store = dynamoBulkStore(testDb(), 'bulkonboard');
    const groups: number[] = [];
    // 14,001 rows: 29 chunks of 500 (the last of 1), the first 3 on the queue, 26 waiting.
    const result = await start(user, 14_001, 'Grouped', async (items) => {
      groups.push(items.length);
      await store.writeAll(items, { parallel: 1 });
    });
    if (result.kind !== 'queued') throw new Error('expected a job');
    expect(groups).toEqual([25, 1]);
    expect(await stored(user.sub, result.job.id, Array.from({ length: 26 }, (_, i) => i + 3))).toBe(26);
    const { Item: job } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.bulkJob(user.sub, result.job.id), ConsistentRead: true }));
    expect(job).toMatchObject({ chunks: 29, total: 14_001 });
  }, 120_000);

  it('a group that cannot be stored fails the request, and no job is made', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const failing = start(user, 14_001, 'Refused', async () => {
      throw new Error('The table refused the group');
    });
    await expect(failing).rejects.toThrow('The table refused the group');
    const projects = await user.json<Project[]>('/api/projects');
    const { Item: job } = projects[0] ? await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.bulkJob(user.sub, projects[0].id), ConsistentRead: true })) : { Item: undefined };
    expect(job).toBeUndefined();
  }, 120_000);
});
