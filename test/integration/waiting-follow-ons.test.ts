import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { planJob, WAITING_LIMIT_MS } from '../../functions/account-jobs/lifecycle';
import { credentialSends } from '../../functions/mail/credential-sends';
import { sqsWakeFollowOns } from '../../functions/bulk/wake-follow-ons';
import { testDb } from '../support/api';

/**
 * Jobs started with an import (a credentials send, a provisioning run) wait for it (issue 29,
 * item 3): as long as the import moves, however long it takes, and the import's end wakes them.
 */
const stack = inject('stack');
const TABLE = 'bulkonboard';
const db = testDb();
const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const queues: string[] = [];
afterAll(async () => {
  await Promise.all(queues.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl })).catch(() => undefined)));
  sqs.destroy();
});

/** A send waiting since `waitedMs` ago for the import of its project, whose last chunk was recorded `movedMs` ago. */
async function waitingSend(at: number, waitedMs: number, movedMs: number) {
  const userId = randomUUID();
  const projectId = randomUUID();
  const sendId = randomUUID();
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: 'Waiting', activeMailSend: sendId, accountCount: 0 } }));
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.bulkJob(userId, projectId), entityType: 'BulkJob', id: projectId, status: 'running', total: 250_000, done: 1_000, updatedAt: new Date(at - movedMs).toISOString() } }));
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...credentialSends.key(userId, sendId), entityType: 'MailSend', id: sendId, userId, projectId, status: 'waiting', scope: 'all', waitingSince: at - waitedMs, createdAt: new Date(at - waitedMs).toISOString() },
    }),
  );
  return { userId, projectId, sendId };
}

describe('a job waiting for its import', () => {
  it('keeps waiting past 30 minutes while the import moves, looking every minute; gives up only once the import stopped moving for 30 minutes', async () => {
    const at = Date.now();
    const moving = await waitingSend(at, 45 * 60_000, 60_000);
    const sent: { messages: unknown[]; delay?: number }[] = [];
    const deps = { db, tableName: TABLE, now: () => new Date(at), queue: { send: async (messages: unknown[], delay?: number) => void sent.push({ messages, delay }) } };
    await planJob(deps, credentialSends, moving.userId, moving.sendId);
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: credentialSends.key(moving.userId, moving.sendId), ConsistentRead: true }))).Item).toMatchObject({ status: 'waiting' });
    expect(sent).toEqual([{ messages: [{ type: 'credentials', userId: moving.userId, sendId: moving.sendId }], delay: 60 }]);

    // A young wait looks every 5 s.
    const young = await waitingSend(at, 10_000, 5_000);
    sent.length = 0;
    await planJob(deps, credentialSends, young.userId, young.sendId);
    expect(sent.map((s) => s.delay)).toEqual([5]);

    const stalled = await waitingSend(at, 45 * 60_000, WAITING_LIMIT_MS + 60_000);
    sent.length = 0;
    await planJob(deps, credentialSends, stalled.userId, stalled.sendId);
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: credentialSends.key(stalled.userId, stalled.sendId), ConsistentRead: true }))).Item).toMatchObject({
      status: 'failed',
      reason: 'The accounts were not created in time, so nothing was sent. Send the credentials from the project.',
    });
  });

  it("the import's end wakes the project's waiting run and send at once: their start messages go on their queues", async () => {
    const make = async (name: string) => {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `wake-${name}-${Date.now()}` }));
      queues.push(QueueUrl!);
      return QueueUrl!;
    };
    const urls = { provisioning: await make('provisioning'), mail: await make('mail') };
    const userId = randomUUID();
    const projectId = randomUUID();
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: 'Woken', activeProvisioningJob: 'run-1', activeMailSend: 'send-1' } }));
    await sqsWakeFollowOns(db, TABLE, sqs, urls)(userId, projectId);
    const received = async (QueueUrl: string) => ((await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }))).Messages ?? []).map((m) => JSON.parse(m.Body!) as unknown);
    expect(await received(urls.provisioning)).toEqual([{ type: 'start', userId, jobId: 'run-1' }]);
    expect(await received(urls.mail)).toEqual([{ type: 'credentials', userId, sendId: 'send-1' }]);
    // A project with nothing waiting: nothing is sent, nothing fails.
    const idle = randomUUID();
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.project(userId, idle), entityType: 'Project', id: idle, userId, name: 'Idle' } }));
    await sqsWakeFollowOns(db, TABLE, sqs, urls)(userId, idle);
    expect(await received(urls.provisioning)).toEqual([]);
  });
});
