import type { SQSClient } from '@aws-sdk/client-sqs';
import { sendMessageBatches } from '../core/sqs-batch-send';
import type { CredentialsMessage, CredentialsQueue } from './mail-message';

/** Credentials messages on the mail queue (sendMessageBatches: batches of 10, a refused entry sent again once). */
export function sqsCredentialsQueue(sqs: SQSClient, queueUrl: string): CredentialsQueue {
  return {
    send: (messages, delaySeconds) =>
      sendMessageBatches(
        sqs,
        queueUrl,
        'mail',
        messages.map((message) => JSON.stringify(message satisfies CredentialsMessage)),
        delaySeconds,
      ),
  };
}
