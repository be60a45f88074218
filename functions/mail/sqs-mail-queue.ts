import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MailQueue } from '../users/get-current-user';
import type { MailMessage } from './mail-message';

export function sqsMailQueue(client: SQSClient, queueUrl: string): MailQueue {
  const send = async (message: MailMessage) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  };
  return { sendWelcome: ({ userId }) => send({ type: 'welcome', userId }) };
}

/** Queues any mail message (the notification e-mails; the worker decides whether it is sent); `delaySeconds` (at most 900) for one that must wait. */
export type QueueMail = (message: MailMessage, delaySeconds?: number) => Promise<void>;
export const sqsMailSender =
  (client: SQSClient, queueUrl: string): QueueMail =>
  async (message, delaySeconds) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}) }));
  };

/** The same, each message waiting `delaySeconds` (at most 900) on the queue first. */
export const sqsMailSenderDelayed =
  (client: SQSClient, queueUrl: string, delaySeconds: number): QueueMail =>
  async (message) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))) }));
  };
