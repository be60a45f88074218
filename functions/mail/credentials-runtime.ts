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

/** The daily cap's and the reserved share's defaults (docs/deploy.md). */
export const DEFAULT_MAIL_DAILY_CAP = 50_000;
export const DEFAULT_MAIL_RESERVED_SHARE = 0.1;

export const DEFAULT_MAIL_BOUNCE_CUTOFF = 0.05;

/**
 * MAIL_DAILY_CAP, MAIL_RESERVED_SHARE and MAIL_BOUNCE_CUTOFF: a customer's e-mails a UTC day (0:
 * no cap), the rate's share left to Cognito's codes, and the bounce rate over which a customer's
 * sends pause (0: none).
 */
export function mailLimits(): { dailyCap: number; reservedShare: number; bounceCutoff: number } {
  const { MAIL_DAILY_CAP, MAIL_RESERVED_SHARE, MAIL_BOUNCE_CUTOFF } = env();
  return {
    dailyCap: MAIL_DAILY_CAP === undefined ? DEFAULT_MAIL_DAILY_CAP : Number(MAIL_DAILY_CAP),
    reservedShare: MAIL_RESERVED_SHARE === undefined ? DEFAULT_MAIL_RESERVED_SHARE : Math.min(0.5, Number(MAIL_RESERVED_SHARE)),
    bounceCutoff: MAIL_BOUNCE_CUTOFF === undefined ? DEFAULT_MAIL_BOUNCE_CUTOFF : Number(MAIL_BOUNCE_CUTOFF),
  };
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
