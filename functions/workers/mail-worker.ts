import { queues } from '../../shared/routes';
import { dynamo, ses } from '../core/clients';
import { appCipher } from '../core/encryption';
import { env, requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { sesCredentialMailer } from '../mail/credential-mailer';
import { credentialsRuntime, mailSendRate } from '../mail/credentials-runtime';
import { credentialsWorker } from '../mail/credentials-worker';
import { mailMessageSchema } from '../mail/mail-message';
import { processMail } from '../mail/process-mail';
import { serverRenderTools } from '../mail/render-tools';
import { sesMailer } from '../mail/ses-mailer';
import { dynamoUserRepository } from '../users/user-repository';

const send = processMail({
  users: dynamoUserRepository(dynamo(), requireEnv('TABLE_NAME')),
  mailer: sesMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET),
  appUrl: env().APP_URL ?? 'https://bulkonboard.example.com',
});

const credentials = credentialsWorker({
  ...credentialsRuntime(),
  cipher: appCipher,
  mailer: sesCredentialMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET),
  tools: serverRenderTools,
  // MERGE (links branch): issueLink: (input) => issueCredentialLink({ db, tableName, cipher, appUrl }, input)
  // from functions/credential-links/issue-credential-link.ts; until then sends with a link are refused at the start.
  issueLink: undefined,
  rate: mailSendRate,
  workers: queues.find((q) => q.name === 'mail')?.maxConcurrency ?? 1,
});

export const handler = queueWorker(mailMessageSchema, (message) => (message.type === 'credentials' ? credentials(message) : send(message)));
