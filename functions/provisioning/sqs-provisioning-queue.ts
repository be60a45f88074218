import type { SQSClient } from '@aws-sdk/client-sqs';
import { sendMessageBatches } from '../core/sqs-batch-send';
import type { ProvisioningMessage, ProvisioningQueue } from './provisioning-message';

/** The provisioning queue on SQS (sendMessageBatches: batches of 10, a refused entry sent again once). */
export function sqsProvisioningQueue(sqs: SQSClient, queueUrl: string): ProvisioningQueue {
  return {
    send: (messages, delaySeconds) =>
      sendMessageBatches(
        sqs,
        queueUrl,
        'provisioning',
        messages.map((message) => JSON.stringify(message satisfies ProvisioningMessage)),
        delaySeconds,
      ),
  };
}
