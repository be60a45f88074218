import { dynamo, sqs } from '../core/clients';
import { env, requireEnv } from '../core/env';
import type { CredentialsQueue } from './mail-message';
import { sqsCredentialsQueue } from './sqs-credentials-queue';
import { DEFAULT_MAIL_SEND_RATE } from './send-credentials';

function lazyQueue(make: () => CredentialsQueue): CredentialsQueue {
  let queue: CredentialsQueue | undefined;
  return { send: (messages, delaySeconds) => (queue ??= make()).send(messages, delaySeconds) };
}

/** MAIL_SEND_RATE: e-mails a second for all mail workers together (SES's sending quota); 0: no pacing. */
export function mailSendRate(): number {
  const value = env().MAIL_SEND_RATE;
  if (value === undefined) return DEFAULT_MAIL_SEND_RATE;
  const rate = Number(value);
  return Number.isFinite(rate) && rate >= 0 ? rate : DEFAULT_MAIL_SEND_RATE;
}

/** What the credentials route group and the mail worker are built from in Lambda. */
export function credentialsRuntime() {
  return {
    db: dynamo(),
    tableName: requireEnv('TABLE_NAME'),
    queue: lazyQueue(() => sqsCredentialsQueue(sqs(), requireEnv('MAIL_QUEUE_URL'))),
    now: () => new Date(),
  };
}
