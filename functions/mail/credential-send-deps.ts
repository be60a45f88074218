import { MAIL_WINDOW } from './credential-sends';
import { dynamo, ses } from '../core/clients';
import { appCipher } from '../core/encryption';
import { env, requireEnv } from '../core/env';
import { issueCredentialLink } from '../credential-links/issue-credential-link';
import { sesCredentialMailer } from './credential-mailer';
import { credentialsRuntime, mailLimits, mailSendRate } from './credentials-runtime';
import { serverRenderTools } from './render-tools';
import type { SendChunkDeps } from './send-credentials';

/** What the mail worker and its dead-letter worker send credentials with, in Lambda. */
export function credentialSendDeps(): SendChunkDeps {
  const db = dynamo();
  const tableName = requireEnv('TABLE_NAME');
  const appUrl = env().APP_URL ?? 'https://bulkonboard.example.com';
  return {
    ...credentialsRuntime(),
    cipher: appCipher,
    mailer: sesCredentialMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET),
    tools: serverRenderTools,
    // One-time links ({{credentialLink}}): idempotent per send and account, so a redelivered chunk mails the same URL.
    issueLink: async (input) => issueCredentialLink({ db, tableName, cipher: await appCipher(), appUrl }, input),
    rate: mailSendRate,
    limits: mailLimits,
    // A send's chunks at once (alone, they share its customer's rate): the chunks' size follows from it.
    workers: MAIL_WINDOW,
  };
}
