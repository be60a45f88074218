import { dynamo, ses } from '../core/clients';
import { env, requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { mailMessageSchema } from '../mail/mail-message';
import { processMail } from '../mail/process-mail';
import { sesMailer } from '../mail/ses-mailer';
import { dynamoUserRepository } from '../users/user-repository';

const send = processMail({
  users: dynamoUserRepository(dynamo(), requireEnv('TABLE_NAME')),
  mailer: sesMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET),
  appUrl: env().APP_URL ?? 'https://bulkonboard.example.com',
});

export const handler = queueWorker(mailMessageSchema, (message) => send(message));
