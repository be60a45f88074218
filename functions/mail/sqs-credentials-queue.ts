import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { batchesOf } from '../bulk/bulk-jobs';
import type { CredentialsMessage, CredentialsQueue } from './mail-message';

/** Credentials messages on the mail queue: batches of 10, every refused entry sent again once, then an error. */
export function sqsCredentialsQueue(sqs: SQSClient, queueUrl: string): CredentialsQueue {
  return {
    async send(messages, delaySeconds) {
      const entries = messages.map((message, i) => ({ id: String(i), body: JSON.stringify(message satisfies CredentialsMessage) }));
      for (const batch of batchesOf(entries)) {
        let pending = batch;
        for (let attempt = 0; pending.length; attempt++) {
          const { Failed } = await sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: pending.map(({ id, body }) => ({ Id: id, MessageBody: body, ...(delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))) } : {}) })),
            }),
          );
          const failed = new Set((Failed ?? []).map((f) => f.Id));
          pending = pending.filter(({ id }) => failed.has(id));
          if (pending.length && attempt >= 1) throw new Error(`The mail queue refused ${pending.length} messages`);
        }
      }
    },
  };
}
