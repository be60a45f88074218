import { dynamo, ses, sqs } from '../core/clients';
import { env, requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { credentialSendDeps } from '../mail/credential-send-deps';
import { credentialsWorker } from '../mail/credentials-worker';
import { mailMessageSchema } from '../mail/mail-message';
import { sendNotificationMail } from '../mail/notification-mail';
import { processMail } from '../mail/process-mail';
import { sesMailer } from '../mail/ses-mailer';
import { sqsMailSender, sqsMailSenderDelayed } from '../mail/sqs-mail-queue';
import { remindAccountHolders } from '../schedules/expiry-reminders';
import { dynamoUserRepository } from '../users/user-repository';
import { readSettings } from '../users/settings-reader';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const users = dynamoUserRepository(db, tableName);
const mailer = sesMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET);
const appUrl = env().APP_URL ?? 'https://bulkonboard.example.com';
const send = processMail({
  users,
  mailer,
  appUrl,
  notificationMail: sendNotificationMail({ db, tableName, users, settings: { get: (userId) => readSettings(db, tableName, userId) }, mailer, appUrl }),
});

const sendDeps = credentialSendDeps();
const credentials = credentialsWorker(sendDeps);
const queueMail = sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL'));
const reminders = remindAccountHolders({
  ...sendDeps,
  queue: (message, delaySeconds) => (delaySeconds ? sqsMailSenderDelayed(sqs(), requireEnv('MAIL_QUEUE_URL'), delaySeconds)(message) : queueMail(message)),
});

export const handler = queueWorker(mailMessageSchema, (message) =>
  message.type === 'credentials' ? credentials(message) : message.type === 'expiry-reminder' ? reminders(message) : send(message),
);
