import { dynamo, ses, sqs } from '../core/clients';
import { env, requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { credentialSendDeps } from '../mail/credential-send-deps';
import { mailLimits, mailSendRate } from '../mail/credentials-runtime';
import { credentialsWorker } from '../mail/credentials-worker';
import { mailMessageSchema, type MailMessage } from '../mail/mail-message';
import { sendNotificationMail } from '../mail/notification-mail';
import { MailPausedError, pacedMailer, requeuePaused } from '../mail/paced-mailer';
import { processMail } from '../mail/process-mail';
import { sesMailer } from '../mail/ses-mailer';
import { sqsCredentialsQueue } from '../mail/sqs-credentials-queue';
import { sqsMailSender } from '../mail/sqs-mail-queue';
import { expiryReminderWorker } from '../schedules/expiry-reminder-start';
import { dynamoUserRepository } from '../users/user-repository';
import { readSettings } from '../users/settings-reader';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const users = dynamoUserRepository(db, tableName);
// The user's own e-mails take their share of the same SES rate as credential e-mails (send-share.ts).
const mailerFor = pacedMailer({ db, tableName, rate: mailSendRate, limits: mailLimits }, sesMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET));
const queueMail = sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL'));
const appUrl = env().APP_URL ?? 'https://bulkonboard.example.com';
const settings = { get: (userId: string) => readSettings(db, tableName, userId) };

async function notification(message: Exclude<MailMessage, { type: 'credentials' | 'expiry-reminder' | 'expiry-reminder-job' }>): Promise<void> {
  const mailer = mailerFor(message.userId);
  const send = processMail({ users, mailer, appUrl, notificationMail: sendNotificationMail({ db, tableName, users, settings, mailer, appUrl }) });
  try {
    await send(message);
  } catch (error) {
    // SES takes no e-mail for now: the message waits on the queue and is tried again, never dropped.
    if (error instanceof MailPausedError) return requeuePaused(queueMail, message, error);
    throw error;
  }
}

const sendDeps = credentialSendDeps();
const credentials = credentialsWorker(sendDeps);
// Expiry reminders: a kind of account job on this queue, sent through the credential sends' step.
const reminders = expiryReminderWorker({ ...sendDeps, queue: sqsCredentialsQueue(sqs(), requireEnv('MAIL_QUEUE_URL')) });

export const handler = queueWorker(mailMessageSchema, (message) =>
  message.type === 'credentials' ? credentials(message) : message.type === 'expiry-reminder' || message.type === 'expiry-reminder-job' ? reminders(message) : notification(message),
);
