import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeletionMessage } from './deletion-message';

export interface DeletionQueue {
  /** `delaySeconds`: at most 900 (SQS's limit). */
  send(message: DeletionMessage, delaySeconds?: number): Promise<void>;
}

export const sqsDeletionQueue = (client: SQSClient, queueUrl: string): DeletionQueue => ({
  async send(message, delaySeconds) {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), ...(delaySeconds ? { DelaySeconds: Math.min(900, delaySeconds) } : {}) }));
  },
});
