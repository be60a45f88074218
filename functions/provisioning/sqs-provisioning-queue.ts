import type { SQSClient } from '@aws-sdk/client-sqs';
import { sendMessageBatches } from '../core/sqs-batch-send';
import type { ProvisioningMessage, ProvisioningQueue } from './provisioning-message';

/**
 * The provisioning queue on SQS (sendMessageBatches: batches of 10, a refused entry sent again
 * once). Each message's user is its MessageGroupId: on AWS that makes the standard queue a fair
 * queue (a quiet user's messages go first while another's hold most of the workers), on top of
 * the runs' chunk window (chunk-window.ts); the local emulator ignores groups on standard queues.
 */
export function sqsProvisioningQueue(sqs: SQSClient, queueUrl: string): ProvisioningQueue {
  return {
    async send(messages, delaySeconds) {
      const byUser = new Map<string, string[]>();
      for (const message of messages) {
        const bodies = byUser.get(message.userId) ?? [];
        bodies.push(JSON.stringify(message satisfies ProvisioningMessage));
        byUser.set(message.userId, bodies);
      }
      for (const [userId, bodies] of byUser) await sendMessageBatches(sqs, queueUrl, 'provisioning', bodies, delaySeconds, userId);
    },
  };
}
