import { logger } from '../core/logger';
import { queueWorker } from '../core/queue-worker';
import { credentialSendDeps } from '../mail/credential-send-deps';
import { mailMessageSchema } from '../mail/mail-message';
import { recordDeadCredentials } from '../mail/send-credentials';
import { sqsCredentialsQueue } from '../mail/sqs-credentials-queue';
import { requireEnv } from '../core/env';
import { sqs } from '../core/clients';
import { recordDeadReminder } from '../schedules/expiry-reminder-job';

const sendDeps = credentialSendDeps();
const deadCredentials = recordDeadCredentials(sendDeps);
const deadReminders = recordDeadReminder({ ...sendDeps, queue: sqsCredentialsQueue(sqs(), requireEnv('MAIL_QUEUE_URL')) });

/**
 * The mail queue's dead letters: a credentials or expiry reminder chunk or start is recorded (its
 * accounts fail with the reason, the job ends and adds up); a notification e-mail that failed every delivery is
 * logged as an error (nothing waits on it).
 */
export const handler = queueWorker(mailMessageSchema, async (message) => {
  if (message.type === 'credentials') return deadCredentials(message);
  if (message.type === 'expiry-reminder-job') return deadReminders(message);
  logger.error('A notification e-mail failed every delivery', { type: message.type, userId: message.userId });
});
