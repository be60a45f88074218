import { queues } from '../../shared/routes';
import { dynamo, ses } from '../core/clients';
import { appCipher } from '../core/encryption';
import { env, requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { sesCredentialMailer } from '../mail/credential-mailer';
import { credentialsRuntime, mailSendRate } from '../mail/credentials-runtime';
import { credentialsWorker } from '../mail/credentials-worker';
import { mailMessageSchema } from '../mail/mail-message';
import { sendNotificationMail } from '../mail/notification-mail';
import { processMail } from '../mail/process-mail';
import { serverRenderTools } from '../mail/render-tools';
import { sesMailer } from '../mail/ses-mailer';
import { dynamoUserRepository } from '../users/user-repository';
import { issueCredentialLink } from '../credential-links/issue-credential-link';
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

const credentials = credentialsWorker({
  ...credentialsRuntime(),
  cipher: appCipher,
  mailer: sesCredentialMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET),
  tools: serverRenderTools,
  // One-time links ({{credentialLink}}): idempotent per send and account, so a redelivered chunk mails the same URL.
  issueLink: async (input) => issueCredentialLink({ db, tableName, cipher: await appCipher(), appUrl }, input),
  rate: mailSendRate,
  workers: queues.find((q) => q.name === 'mail')?.maxConcurrency ?? 1,
});

export const handler = queueWorker(mailMessageSchema, (message) => (message.type === 'credentials' ? credentials(message) : send(message)));
