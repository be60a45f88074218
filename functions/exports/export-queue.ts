import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ExportMessage } from './export-message';

export interface ExportQueue {
  send(message: ExportMessage): Promise<void>;
}

export const sqsExportQueue = (client: SQSClient, queueUrl: string): ExportQueue => ({
  async send(message) {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  },
});
