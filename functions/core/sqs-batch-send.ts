import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { batchesOf } from '../bulk/bulk-jobs';

/**
 * Sends messages to an SQS queue in batches of 10 (within SQS's batch size), every refused entry
 * sent again once, then an error naming the queue. `delaySeconds` is clamped to SQS's 0-900.
 * `messageGroupId`: the tenant the messages belong to; on a standard queue AWS uses it to keep
 * one tenant from holding every worker (SQS fair queues).
 */
export async function sendMessageBatches(sqs: SQSClient, queueUrl: string, queueName: string, bodies: readonly string[], delaySeconds?: number, messageGroupId?: string): Promise<void> {
  const entries = bodies.map((body, i) => ({ id: String(i), body }));
  const delay = {
    ...(delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))) } : {}),
    ...(messageGroupId ? { MessageGroupId: messageGroupId } : {}),
  };
  for (const batch of batchesOf(entries)) {
    let pending = batch;
    for (let attempt = 0; pending.length; attempt++) {
      const { Failed } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending.map(({ id, body }) => ({ Id: id, MessageBody: body, ...delay })) }));
      const failed = new Set((Failed ?? []).map((f) => f.Id));
      pending = pending.filter(({ id }) => failed.has(id));
      if (pending.length && attempt >= 1) throw new Error(`The ${queueName} queue refused ${pending.length} messages`);
    }
  }
}
