import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { batchesOf } from '../bulk/bulk-jobs';
import type { ProvisioningMessage, ProvisioningQueue } from './provisioning-message';

/** The provisioning queue on SQS: batches of 10, every refused entry sent again once, then an error. */
export function sqsProvisioningQueue(sqs: SQSClient, queueUrl: string): ProvisioningQueue {
  return {
    async send(messages, delaySeconds) {
      const entries = messages.map((message, i) => ({ id: String(i), body: JSON.stringify(message satisfies ProvisioningMessage) }));
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
          if (pending.length && attempt >= 1) throw new Error(`The provisioning queue refused ${pending.length} messages`);
        }
      }
    },
  };
}
