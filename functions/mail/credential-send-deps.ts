import { MAIL_WINDOW } from './credential-sends';
import { dynamo, ses } from '../core/clients';
import { appCipher } from '../core/encryption';
import { env, requireEnv } from '../core/env';
import { issueCredentialLink } from '../credential-links/issue-credential-link';
import { sesCredentialMailer } from './credential-mailer';
import { credentialsRuntime, mailLimits, mailSendRate } from './credentials-runtime';
import { serverRenderTools } from './render-tools';
import type { SendChunkDeps } from './send-credentials';

/** A given-up chunk sends nothing: the dead-letter worker's deps refuse to (see credentialRecordDeps). */
const sendsNothing = (): never => {
  throw new Error('The mail dead-letter worker records given-up chunks; it sends no e-mail.');
};

/**
 * What the mail dead-letter worker records given-up credential chunks with, in Lambda: the send's
 * table, queue, cipher and limits, but no SES mailer, renderer or link issuer (a given-up chunk
 * fails its accounts and sends nothing), so its bundle holds no SES client (issue 29, item 5).
 */
export function credentialRecordDeps(): SendChunkDeps {
  return {
    ...credentialsRuntime(),
    cipher: appCipher,
    mailer: { send: async () => sendsNothing() },
    tools: { sanitize: sendsNothing, toText: sendsNothing },
    rate: mailSendRate,
    limits: mailLimits,
    // A send's chunks at once (alone, they share its customer's rate): the chunks' size follows from it.
    workers: MAIL_WINDOW,
  };
}

/** What the mail worker sends credentials with, in Lambda. */
export function credentialSendDeps(): SendChunkDeps {
  const db = dynamo();
  const tableName = requireEnv('TABLE_NAME');
  const appUrl = env().APP_URL ?? 'https://bulkonboard.example.com';
  return {
    ...credentialRecordDeps(),
    mailer: sesCredentialMailer(ses(), requireEnv('SES_FROM_ADDRESS'), env().SES_CONFIGURATION_SET),
    tools: serverRenderTools,
    // One-time links ({{credentialLink}}): idempotent per send and account, so a redelivered chunk mails the same URL.
    issueLink: async (input) => issueCredentialLink({ db, tableName, cipher: await appCipher(), appUrl }, input),
  };
}
