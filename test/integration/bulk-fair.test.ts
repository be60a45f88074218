import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, inject } from 'vitest';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { bulkCreateBodySchema, PASSWORD_NO_CLASS_MESSAGE, type BulkJob } from '../../shared/schemas/bulk';
import { CHUNK_WINDOW, sqsBulkJobStarter } from '../../functions/bulk/bulk-jobs';
import { dynamoBulkStore, waitingChunksWriter } from '../../functions/bulk/bulk-store';
import { createBulkAccounts } from '../../functions/bulk/create-bulk-accounts';
import { processChunk } from '../../functions/bulk/process-chunk';
import type { BulkChunkMessage } from '../../functions/bulk/bulk-chunk';
import { aesGcmCipher } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { keys, WAITING_CHUNK_PARTITIONS } from '../../functions/core/keys';
import { MAX_ACCOUNT_SHARDS } from '../../functions/accounts/account-partitions';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';

const stack = inject('stack');
const TABLE = 'bulkonboard';
const sqsClient = () => new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

const ended = (job: BulkJob) => job.status === 'completed' || job.status === 'failed';

/** Accounts stored in every shard a project may have. */
async function countAccounts(userId: string, projectId: string): Promise<number> {
  let count = 0;
  for (const pk of keys.accountPartitions(userId, projectId, MAX_ACCOUNT_SHARDS)) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await testDb().send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, Select: 'COUNT', ExclusiveStartKey: start }));
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return count;
}

/** The job's chunks still waiting in DynamoDB for their turn on the queue, per partition they are spread over (the old place last). */
async function waitingByPartition(userId: string, jobId: string): Promise<number[]> {
  const partitions = [...Array.from({ length: WAITING_CHUNK_PARTITIONS }, (_, i) => keys.bulkJobWaitingChunk(userId, jobId, i).PK), keys.user(userId).PK];
  return Promise.all(
    partitions.map(async (pk) => {
      const { Count = 0 } = await testDb().send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': `${keys.bulkJob(userId, jobId).SK}#WAITING#` },
          Select: 'COUNT',
          ConsistentRead: true,
        }),
      );
      return Count;
    }),
  );
}
const waitingChunks = async (userId: string, jobId: string): Promise<number> => (await waitingByPartition(userId, jobId)).reduce((a, b) => a + b, 0);

const userItem = async (userId: string) => (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.user(userId), ConsistentRead: true }))).Item ?? {};

/**
 * A job started the way POST /api/bulk-create starts it, with its first chunks on a queue no worker
 * reads: the test delivers them itself (twice, altered). The chunks they release go to the real
 * bulk queue (the workers' own), as in production.
 */
async function parkedJob(user: ApiUser, rows: number, prefix: string) {
  const db = testDb();
  const sqs = sqsClient();
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `fair-${prefix}-${Date.now()}` }));
  const key = createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();
  const create = createBulkAccounts({
    store: dynamoBulkStore(db, TABLE),
    timeZone: async () => 'UTC',
    cipher: async () => aesGcmCipher(key),
    randomBytes,
    now: () => new Date(),
    newId: timeOrderedId,
    jobs: sqsBulkJobStarter(db, TABLE, sqs, QueueUrl!, waitingChunksWriter(dynamoBulkStore(db, TABLE))),
    integration: async () => undefined,
  });
  const result = await create(user.sub, bulkCreateBodySchema.parse({ projectName: `Parked ${prefix}`, csvData: people(rows, prefix) }));
  if (result.kind !== 'queued') throw new Error('expected a job');
  const bodies: BulkChunkMessage[] = [];
  const deadline = Date.now() + 20_000;
  while (bodies.length < CHUNK_WINDOW && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    for (const m of Messages) {
      bodies.push(JSON.parse(m.Body!) as BulkChunkMessage);
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  bodies.sort((a, b) => a.chunk - b.chunk);
  return { job: result.job, bodies };
}

/** Puts chunk bodies on the real bulk queue, all at once. */
async function deliver(...bodies: BulkChunkMessage[]) {
  const sqs = sqsClient();
  await Promise.all(bodies.map((body) => sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls.bulk, MessageBody: JSON.stringify(body) }))));
}

describe('fair turns on the shared bulk queue', () => {
  it("a 1,500-row job started after another user's 20,000-row job finishes long before it, and says why it waits while queued", async () => {
    const [large, small] = await Promise.all([apiUser({ firstName: 'Large', lastName: 'Importer' }), apiUser({ firstName: 'Small', lastName: 'Importer' })]);
    await Promise.all([upgradeToPro(large), upgradeToPro(small)]);

    const a = await large.call('/api/bulk-create', { body: { projectName: 'Large import', csvData: people(20_000, 'Large') } });
    expect(a.status).toBe(202);
    const aJob = ((await a.json()) as { job: BulkJob }).job;
    // Only a window of A's 40 chunks is on the queue; the rest wait in DynamoDB.
    expect(await waitingChunks(large.sub, aJob.id)).toBeGreaterThan(30);

    const b = await small.call('/api/bulk-create', { body: { projectName: 'Small import', csvData: people(1500, 'Small') } });
    expect(b.status).toBe(202);
    const bJob = ((await b.json()) as { job: BulkJob }).job;
    // The answer says at once why it waits: A's window of chunks is ahead of it.
    expect(bJob).toMatchObject({ status: 'queued', chunksAhead: expect.any(Number) as number });
    expect(bJob.chunksAhead).toBeGreaterThan(0);
    expect(bJob.waitReason).toMatch(/^Queued behind about \d+ chunks? of other jobs on the shared bulk queue\./);

    // While B waits, its status says so and why: A's chunks are ahead of it on the queue.
    const waiting = await small.json<BulkJob>(`/api/bulk-jobs/${bJob.id}`);
    if (waiting.status === 'queued') {
      expect(waiting.chunksAhead).toBeGreaterThan(0);
      expect(waiting.waitReason).toMatch(/^Queued behind about \d+ chunks? of other jobs on the shared bulk queue\./);
    } else {
      // Picked up already (a fast machine): then it is running, not silently waiting.
      expect(waiting.status).not.toBe('failed');
    }
    // Another user's job is not B's to read.
    expect((await small.call(`/api/bulk-jobs/${aJob.id}`)).status).toBe(404);

    const bDone = await until('B to end', () => small.json<BulkJob>(`/api/bulk-jobs/${bJob.id}`), ended);
    const aThen = await large.json<BulkJob>(`/api/bulk-jobs/${aJob.id}`);
    expect(bDone).toMatchObject({ status: 'completed', total: 1500, done: 1500, failedCount: 0 });
    expect(bDone.waitReason).toBeUndefined();
    // A still has work left when B is done: B did not wait for A's 40 chunks.
    expect(aThen.status).not.toBe('completed');
    expect(aThen.done + aThen.failedCount).toBeLessThan(aThen.total / 2);
    expect(await countAccounts(small.sub, bJob.id)).toBe(1500);

    const aDone = await until('A to end', () => large.json<BulkJob>(`/api/bulk-jobs/${aJob.id}`), ended, 240_000);
    expect(aDone).toMatchObject({ status: 'completed', total: 20_000, done: 20_000, failedCount: 0 });
    expect(await countAccounts(large.sub, aJob.id)).toBe(20_000);
    await until('no chunk left waiting', () => waitingChunks(large.sub, aJob.id), (n) => n === 0, 10_000);
    await until('both locks released', async () => [await userItem(large.sub), await userItem(small.sub)], (items) => items.every((item) => !('bulkLock' in item)));
    expect(await userItem(large.sub)).toMatchObject({ accountCount: 20_000 });
    expect(await userItem(small.sub)).toMatchObject({ accountCount: 1500 });
  }, 300_000);

  it('a chunk delivered twice releases its successor and writes its accounts once: every row counted once', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    // 2,600 rows: 6 chunks, 3 on the queue and 3 waiting for them.
    const { job, bodies } = await parkedJob(user, 2600, 'Twice');
    expect(bodies.map((b) => b.chunk)).toEqual([0, 1, 2]);
    expect(await waitingChunks(user.sub, job.id)).toBe(3);
    // Spread by chunk number over partitions of their own (chunks 3, 4, 5), none in the user's partition.
    expect(await waitingByPartition(user.sub, job.id)).toEqual([0, 0, 0, 1, 1, 1, 0, 0, 0]);
    // One of them as a job started before the spread kept it (the user's partition): still released.
    const spread = keys.bulkJobWaitingChunk(user.sub, job.id, 5);
    const { Item: fifth } = await testDb().send(new GetCommand({ TableName: TABLE, Key: spread, ConsistentRead: true }));
    await testDb().send(new PutCommand({ TableName: TABLE, Item: { ...fifth, ...keys.legacyBulkJobWaitingChunk(user.sub, job.id, 5) } }));
    await testDb().send(new DeleteCommand({ TableName: TABLE, Key: spread }));
    expect(await waitingByPartition(user.sub, job.id)).toEqual([0, 0, 0, 1, 1, 0, 0, 0, 1]);
    // Every queued chunk twice at once (SQS may deliver a message more than once).
    await deliver(...bodies, ...bodies);
    const done = await until('the job to end', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), ended);
    expect(done).toMatchObject({ status: 'completed', total: 2600, done: 2600, failedCount: 0 });
    await until('no chunk left waiting', () => waitingChunks(user.sub, job.id), (n) => n === 0, 10_000);
    // Once more after the end: nothing to release, nothing written, nothing counted again.
    await deliver(bodies[0]!);
    await until('the late delivery to be handled', async () => {
      const { Attributes } = await sqsClient().send(new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls.bulk, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
      return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
    }, (n) => n === 0, 30_000);
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({ status: 'completed', done: 2600, failedCount: 0 });
    expect(await countAccounts(user.sub, job.id)).toBe(2600);
    // The ending gives the lock back first and records the statistics last (functions/bulk/process-chunk.ts).
    await until('the lock released and the statistics recorded', () => userItem(user.sub), (item) => !('bulkLock' in item) && 'processedAccounts' in item);
    expect(await userItem(user.sub)).toMatchObject({ accountCount: 2600, processedAccounts: 2600 });
  }, 120_000);

  it('a chunk puts its successor on the queue as soon as its accounts are written, before recording itself; the last chunks read no waiting item', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    // 2,600 rows: chunks 0 to 2 on the queue, 3 to 5 waiting; this test is the worker.
    const { job, bodies } = await parkedJob(user, 2600, 'Handover');
    const db = testDb();
    // Every request of the worker's client, by command and key. A chunk's record (its transaction)
    // is held until the chunk released its successor, or 5 s: the release must not wait for it.
    const sent: { command: string; key?: Record<string, unknown> }[] = [];
    let releasedNow: () => void = () => undefined;
    let releasing = new Promise<void>((resolve) => (releasedNow = resolve));
    const send = db.send.bind(db);
    db.send = (async (command: { constructor: { name: string }; input: { Key?: Record<string, unknown> } }) => {
      sent.push({ command: command.constructor.name, key: command.input.Key });
      if (command.constructor.name === 'TransactWriteCommand') await Promise.race([releasing, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      return send(command as never);
    }) as typeof db.send;
    const recorded = async (chunk: number) => !!(await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.bulkJobChunk(user.sub, job.id, chunk), ConsistentRead: true }))).Item;
    const released: { chunk: number; releaserRecorded: boolean; body: BulkChunkMessage }[] = [];
    let releaser = -1;
    const key = createHash('sha256').update(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8').trim()).digest();
    const worker = processChunk({
      db,
      tableName: TABLE,
      store: dynamoBulkStore(db, TABLE),
      cipher: async () => aesGcmCipher(key),
      randomBytes,
      now: () => new Date(),
      newId: timeOrderedId,
      bulkQueue: async (body) => {
        const message = JSON.parse(body) as BulkChunkMessage;
        released.push({ chunk: message.chunk, releaserRecorded: await recorded(releaser), body: message });
        releasedNow();
      },
    });
    const run = async (message: BulkChunkMessage) => {
      releaser = message.chunk;
      sent.length = 0;
      // The job's last window has nothing to release: its records are not held.
      releasing = message.chunk + CHUNK_WINDOW < 6 ? new Promise<void>((resolve) => (releasedNow = resolve)) : Promise.resolve();
      await worker(message);
    };
    await run(bodies[0]!);
    // Chunk 3 went on the queue before chunk 0 was recorded (it was recorded afterwards).
    expect(released.map(({ chunk, releaserRecorded }) => ({ chunk, releaserRecorded }))).toEqual([{ chunk: 3, releaserRecorded: false }]);
    expect(await recorded(0)).toBe(true);
    expect(await waitingChunks(user.sub, job.id)).toBe(2);
    await run(bodies[1]!);
    await run(bodies[2]!);
    expect(released.map((r) => r.chunk)).toEqual([3, 4, 5]);
    expect(released.every((r) => !r.releaserRecorded)).toBe(true);
    expect(await waitingChunks(user.sub, job.id)).toBe(0);
    // The job's last window has no successor: no read of a waiting item (nor of its old place).
    for (const { body } of released) {
      await run(body);
      expect(sent.filter((r) => String(r.key?.SK ?? '').includes('#WAITING#'))).toEqual([]);
    }
    expect(released).toHaveLength(3);
    const done = await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`);
    expect(done).toMatchObject({ status: 'completed', total: 2600, done: 2600, failedCount: 0 });
    expect(await countAccounts(user.sub, job.id)).toBe(2600);
    // A chunk delivered again after all this releases nothing and counts nothing twice.
    await run(bodies[0]!);
    expect(released).toHaveLength(3);
    expect(await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`)).toMatchObject({ status: 'completed', done: 2600, failedCount: 0 });
  }, 120_000);

  it('a job that fails records its waiting chunks as not created: every row accounted for, the places given back', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const { job, bodies } = await parkedJob(user, 2600, 'Stops');
    const impossible = { ...bodies[0]!.passwordSettings, includeUppercase: false, includeLowercase: false, includeNumbers: false, includeSpecialChars: false };
    await deliver({ ...bodies[0]!, passwordSettings: impossible });
    await until('the job to fail', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.status === 'failed' && j.failedCount > 0, 20_000);
    // Chunk 0 released chunk 3: the job had failed, so its rows were recorded as not created.
    await deliver(bodies[1]!, bodies[2]!);
    const end = await until('every row accounted for', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.done + j.failedCount === j.total);
    expect(end).toMatchObject({ status: 'failed', reason: PASSWORD_NO_CLASS_MESSAGE, done: 0, failedCount: 2600, total: 2600 });
    // A waiting chunk's item goes right after its rows are recorded.
    await until('no chunk left waiting', () => waitingChunks(user.sub, job.id), (n) => n === 0, 10_000);
    expect(await countAccounts(user.sub, job.id)).toBe(0);
    expect(await userItem(user.sub)).toMatchObject({ accountCount: 0 });
    expect(await userItem(user.sub)).not.toHaveProperty('bulkLock');
    const report = await user.call(`/api/projects/${job.projectId}/rejected-rows`);
    expect((await report.text()).trim().split('\r\n')).toHaveLength(2601);
  }, 120_000);
});
