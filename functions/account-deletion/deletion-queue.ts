import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeletionMessage } from './deletion-message';

export interface DeletionQueue {
  send(message: DeletionMessage): Promise<void>;
}

export const sqsDeletionQueue = (client: SQSClient, queueUrl: string): DeletionQueue => ({
  async send(message) {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  },
});
