import { setTimeout as sleep } from 'node:timers/promises';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { inject, describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../functions/core/ids';
import { newExportRecord } from '../../functions/exports/export-item';
import { dynamoExportStore } from '../../functions/exports/export-store';
import { EXPORT_STOPPED } from '../../functions/exports/record-dead-export';
import { apiUser, testDb } from '../support/api';

/**
 * An export whose worker timed out or crashed on its last delivery could not record that itself:
 * its message reaches the exports dead-letter queue, whose worker (run by the local stack as by
 * Lambda) marks it failed with a reason instead of leaving it 'processing' for 30 days.
 */
const TABLE = 'bulkonboard';

async function exportIn(status: 'pending' | 'processing' | 'completed' | 'failed') {
  const user = await apiUser();
  const store = dynamoExportStore(testDb(), TABLE);
  const record = newExportRecord({ id: timeOrderedId(), userId: user.sub, projectId: timeOrderedId(), projectName: 'Stuck', format: 'csv', now: new Date() });
  await store.create(record);
  if (status !== 'pending') await store.start(user.sub, record.id, new Date());
  if (status === 'completed') await store.complete(user.sub, record.id, { rowCount: 3, sizeBytes: 10, now: new Date() });
  if (status === 'failed') await store.fail(user.sub, record.id, 'The project no longer exists.', new Date());
  return { userId: user.sub, exportId: record.id, read: async () => (await store.get(user.sub, record.id))! };
}

async function toDeadLetterQueue(message: { userId: string; exportId: string }) {
  const stack = inject('stack');
  const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  await sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls['exports-dlq'], MessageBody: JSON.stringify(message) }));
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

describe('exports dead-letter queue', () => {
  it.each(['processing', 'pending'] as const)('a %s export whose message died becomes failed with a reason', async (status) => {
    const stuck = await exportIn(status);
    await toDeadLetterQueue(stuck);
    const item = await until(stuck.read, (i) => i.status !== status, 'the export');
    expect(item).toMatchObject({ status: 'failed', error: EXPORT_STOPPED });
  });

  it('leaves a completed export completed and keeps a failed export\'s own reason, however often it comes', async () => {
    const completed = await exportIn('completed');
    const failed = await exportIn('failed');
    const marker = await exportIn('processing');
    // Twice each, then one that changes: once it has changed, the others were handled before it.
    for (const message of [completed, failed, completed, failed]) await toDeadLetterQueue(message);
    await toDeadLetterQueue(marker);
    await until(marker.read, (i) => i.status === 'failed', 'the marker export');
    expect(await completed.read()).toMatchObject({ status: 'completed', rowCount: 3 });
    expect(await failed.read()).toMatchObject({ status: 'failed', error: 'The project no longer exists.' });
  });
});
