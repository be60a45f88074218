import { randomInt } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SendPauseReason } from '../../shared/schemas/mail-send';
import { logger } from '../core/logger';
import { backoffMs, realSleep, type Sleep } from '../provisioning/pacing';
import { classifySendError } from './credential-mailer';
import type { MailMessage } from './mail-message';
import type { Mailer } from './ses-mailer';
import { SharedMailPacer } from './send-share';

/** SES takes no e-mail for now (quota used, sending paused, account suspended): the message waits and is tried again. */
export class MailPausedError extends Error {
  constructor(
    readonly reason: SendPauseReason,
    message: string,
  ) {
    super(message);
    this.name = 'MailPausedError';
  }
}

/** Throttled answers one notification e-mail waits out in its delivery before the queue retries it. */
const THROTTLES = 5;

export interface PacedMailerDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** MAIL_SEND_RATE (0: unpaced) and the share left to Cognito's codes, as the credential sends take them. */
  rate: () => number;
  limits: () => { reservedShare: number };
  clock?: () => number;
  sleep?: Sleep;
  random?: (max: number) => number;
}

/**
 * The user's own e-mails (welcome, project completed or expired, security alerts, the weekly
 * digest) through the same shared rate as credential e-mails (send-share.ts: the user's share of
 * the window, one e-mail's worth; not counted against the daily cap, which is for the e-mails a
 * customer sends its account holders). A throttled answer is waited out; a quota or pause answer
 * throws MailPausedError, and the mail worker puts the message back for later (requeuePaused).
 */
export const pacedMailer =
  (deps: PacedMailerDeps, inner: Mailer) =>
  (userId: string): Mailer => ({
    async send(email) {
      const sleep = deps.sleep ?? realSleep;
      const random = deps.random ?? ((max: number) => (max <= 0 ? 0 : randomInt(0, max + 1)));
      const pacer = new SharedMailPacer(
        { db: deps.db, tableName: deps.tableName, clock: deps.clock, sleep },
        { rate: deps.rate(), reservedShare: deps.limits().reservedShare, dailyCap: 0 },
        userId,
        1,
        1,
        false,
      );
      for (let throttles = 0; ; ) {
        await pacer.take();
        try {
          await inner.send(email);
          return;
        } catch (error) {
          const outcome = classifySendError(error);
          if (outcome.kind === 'paused') throw new MailPausedError(outcome.reason, outcome.message);
          if (outcome.kind === 'throttled' && ++throttles < THROTTLES) {
            pacer.holdFor(backoffMs(throttles, random, 1000, 30_000) + 250);
            continue;
          }
          throw error;
        }
      }
    },
  });

/** How long a paused notification e-mail waits on the queue (SQS's longest delay), and how often: 36 hours, as a credential send. */
export const NOTIFICATION_PAUSE_SECONDS = 900;
export const NOTIFICATION_MAX_PAUSES = 144;

/**
 * A notification e-mail SES took no e-mail of for now: back on the mail queue for 15 minutes
 * (counted on the message), never dropped; after 36 hours it is logged as an error and given up
 * (the dead-letter alarm's path: the user's e-mail is news, not an account's state).
 */
export async function requeuePaused(
  queue: (message: MailMessage, delaySeconds: number) => Promise<void>,
  message: Exclude<MailMessage, { type: 'credentials' | 'expiry-reminder' | 'expiry-reminder-job' }>,
  error: MailPausedError,
): Promise<void> {
  const pauses = (message.pauses ?? 0) + 1;
  if (pauses > NOTIFICATION_MAX_PAUSES) {
    logger.error('A notification e-mail was given up: SES took no e-mail for 36 hours', { type: message.type, userId: message.userId, reason: error.reason });
    return;
  }
  logger.warn('Notification e-mail paused: SES takes no e-mail for now', { type: message.type, userId: message.userId, reason: error.reason, pauses });
  await queue({ ...message, pauses }, NOTIFICATION_PAUSE_SECONDS);
}
