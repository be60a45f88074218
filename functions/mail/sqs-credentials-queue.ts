import type { SQSClient } from '@aws-sdk/client-sqs';
import { sendMessageBatches } from '../core/sqs-batch-send';
import type { CredentialsMessage, MailMessage } from './mail-message';

/** A job's messages on the mail queue, a credential send's or an expiry reminder's (sendMessageBatches: batches of 10, a refused entry sent again once). */
export function sqsCredentialsQueue<Message extends MailMessage = CredentialsMessage>(sqs: SQSClient, queueUrl: string): { send(messages: readonly Message[], delaySeconds?: number): Promise<void> } {
  return {
    send: (messages, delaySeconds) =>
      sendMessageBatches(
        sqs,
        queueUrl,
        'mail',
        messages.map((message) => JSON.stringify(message satisfies MailMessage)),
        delaySeconds,
      ),
  };
}
