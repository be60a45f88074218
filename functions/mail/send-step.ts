import type { RenderedEmail } from '../../shared/email/render-email';
import { backoffMs, type Sleep } from '../provisioning/pacing';
import type { CredentialMailer, SendOutcome } from './credential-mailer';
import type { SharedMailPacer } from './send-share';

/** Throttled answers one e-mail may get (each waited out with a growing backoff) before it fails. */
export const THROTTLE_ATTEMPTS = 12;
/** Attempts of one e-mail when SES fails on its side or cannot be reached. */
export const SERVER_ERROR_ATTEMPTS = 4;

/**
 * One delivery's sending of e-mails to account holders (a credential send's chunk, an expiry
 * reminder's chunk): SES, the customer's share of the rate (SharedMailPacer), the delivery's time
 * budget. `throttledFor`: the longest throttled wait seen (how long the rest should wait).
 */
export interface SendStep {
  mailer: CredentialMailer;
  pacer: SharedMailPacer;
  clock: () => number;
  sleep: Sleep;
  random: (max: number) => number;
  /** When the delivery must stop (its budget). */
  deadline: number;
  throttledFor: number;
}

/**
 * What became of one e-mail: SES's answer (sent, refused, unknown, paused, or throttled/retryable
 * after the attempts), `capped` (the customer's daily allowance is used until `resumesAt`: nothing
 * was sent) or `no-time` (throttled, and the wait would pass the delivery's deadline: nothing was
 * sent). The caller claimed the account before; for capped, paused and no-time it gives the claim back.
 */
export type StepOutcome = SendOutcome | { kind: 'capped'; resumesAt: string } | { kind: 'no-time' };

/**
 * Sends one e-mail on the customer's turn: a throttled answer holds every e-mail of the delivery
 * for a growing backoff and is sent again (THROTTLE_ATTEMPTS), a failure on SES's side is tried
 * again after a backoff (SERVER_ERROR_ATTEMPTS). The one send step of every e-mail to an account holder.
 */
export async function sendPaced(step: SendStep, email: RenderedEmail & { to: string }, tags: Record<string, string>): Promise<StepOutcome> {
  for (let throttles = 0, failures = 0; ; ) {
    const turn = await step.pacer.take();
    if (turn !== 'go') return { kind: 'capped', resumesAt: turn.capped };
    const outcome = await step.mailer.send(email, tags);
    if (outcome.kind === 'throttled' && ++throttles < THROTTLE_ATTEMPTS) {
      const wait = backoffMs(throttles, step.random, 1000, 30_000) + 250;
      step.throttledFor = Math.max(step.throttledFor, wait);
      if (step.clock() + wait >= step.deadline) return { kind: 'no-time' };
      // SES's rate is the account's: every call of this delivery waits, not only this one.
      step.pacer.holdFor(wait);
      continue;
    }
    if (outcome.kind === 'retryable' && ++failures < SERVER_ERROR_ATTEMPTS) {
      await step.sleep(backoffMs(failures, step.random));
      continue;
    }
    return outcome;
  }
}
