import type { PostAuthenticationTriggerEvent, PostConfirmationTriggerEvent } from 'aws-lambda';
import { accountLockedMessage } from '../../shared/schemas/security';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { logger } from '../core/logger';
import { sqsMailSender } from '../mail/sqs-mail-queue';
import { recordSecurityEvent, type SecurityEventDeps } from './security-events';
import { emailHashOf, isLocked, pendingOriginOf, type SignInGuardStore, dynamoSignInGuardStore } from './sign-in-guard';
import { dynamoPasswordAgeStore, type PasswordAgeStore, type SessionCutoffStore } from './sign-in-password-age';

/*
 * The user pool's post-authentication and post-confirmation trigger (one function; the local
 * Cognito emulator calls it too, through bin/local/lambda-invoke.ts).
 * - Post authentication: every sign-in, through the API or straight at Cognito. A locked address
 *   is refused here too (throwing fails the sign-in), and the sign-in is recorded as the `login`
 *   event, the one place it is recorded. The trigger has no request: the API's sign-in route
 *   notes the caller's address on the guard just before it calls Cognito, and that is used when
 *   fresh; a sign-in straight at Cognito has none.
 * - Post confirmation of a forgotten password: the password's age starts again and the reset is
 *   recorded (with an alert). A sign-up's confirmation does nothing here.
 */
/**
 * A sign-in straight at Cognito moves sessionsNotBefore to the trigger's clock less this much:
 * Cognito stamps the new token's auth_time after the trigger, and the two clocks are not one.
 */
export const DIRECT_SIGN_IN_SLACK_SECONDS = 2;

export interface SignInTriggerDeps {
  guards: Pick<SignInGuardStore, 'read' | 'nameUser'>;
  accounts: PasswordAgeStore & SessionCutoffStore;
  events: SecurityEventDeps;
  now: () => Date;
}

type TriggerEvent = PostAuthenticationTriggerEvent | PostConfirmationTriggerEvent;

/** The refusal of a locked account: a sign-in the trigger fails on purpose (not a failure of the trigger). */
export class AccountLockedRefusal extends Error {}

/**
 * What the trigger logs (at ERROR) when it fails for any other reason: the user's sign-in or
 * password reset failed with it. A metric filter counts the line and an alarm fires on the first
 * (lib/constructs/monitoring.ts `triggerFailureMessage`, docs/runbook.md).
 */
export const TRIGGER_FAILED_MESSAGE = 'Cognito trigger failed';

export const signInTrigger =
  (deps: SignInTriggerDeps) =>
  async <E extends TriggerEvent>(event: E): Promise<E> => {
    const userId = event.request.userAttributes.sub;
    const email = event.request.userAttributes.email;
    if (!userId) {
      logger.warn('Cognito trigger without a sub attribute', { triggerSource: event.triggerSource });
      return event;
    }
    const now = deps.now();
    if (event.triggerSource === 'PostAuthentication_Authentication') {
      // Throwing fails the sign-in: only a lock does. A guard that cannot be read (a throttled
      // table) lets the sign-in through; the API's route has checked the lock before Cognito.
      const guard = email
        ? await deps.guards.read(emailHashOf(email)).catch((error: unknown) => {
            logger.warn('Sign-in guard not read in the Cognito trigger', { error: error instanceof Error ? error.message : String(error) });
            return undefined;
          })
        : undefined;
      if (isLocked(guard, now)) {
        throw new AccountLockedRefusal(accountLockedMessage(Math.max(1, Math.ceil((guard!.lockedUntil! - now.getTime() / 1000) / 60))));
      }
      const origin = pendingOriginOf(guard, now);
      await recordSecurityEvent(deps.events, {
        userId,
        type: 'login',
        description: origin ? 'Signed in' : 'Signed in directly through Cognito (not through the app)',
        severity: 'low',
        at: now,
        ...(origin ?? {}),
      });
      // Whatever the path, the address now names its user: later failures count against the
      // user's own limit and raise the user's events and alerts (the API's route names it too,
      // but only for sign-ins through it).
      if (email && guard?.userId !== userId) {
        await deps.guards.nameUser(emailHashOf(email), userId, now).catch((error: unknown) => {
          logger.warn('Sign-in guard not named in the Cognito trigger', { error: error instanceof Error ? error.message : String(error) });
        });
      }
      // Straight at Cognito (no origin noted by the API's route, which replaces sessions itself
      // with the token's exact auth_time): with concurrent sessions off, this sign-in still ends
      // the others. A failure here must not fail the sign-in: it is logged.
      if (!origin) {
        try {
          if (!(await deps.accounts.concurrentSessionsAllowed(userId))) await deps.accounts.setSessionsNotBefore(userId, Math.floor(now.getTime() / 1000) - DIRECT_SIGN_IN_SLACK_SECONDS);
        } catch (error) {
          logger.error('Other sessions not ended after a sign-in straight at Cognito', { error: error instanceof Error ? error.message : String(error) });
        }
      }
    } else if (event.triggerSource === 'PostConfirmation_ConfirmForgotPassword') {
      // The password is reset in Cognito already: a failure here must not tell the user otherwise.
      await deps.accounts.setPasswordChangedAt(userId, now.toISOString()).catch((error: unknown) => {
        logger.error('Password age not restarted after a reset', { error: error instanceof Error ? error.message : String(error) });
      });
      await recordSecurityEvent(deps.events, {
        userId,
        type: 'password_reset',
        description: 'Password reset with a code sent by e-mail ("Forgot password")',
        severity: 'medium',
        at: now,
        alert: { title: 'Your password was reset', detail: 'The password of your BulkOnboard account was reset with a code sent to your e-mail address. If this was not you, reset it again at once.' },
      });
    }
    return event;
  };

let run: ReturnType<typeof signInTrigger> | undefined;

export const handler = async <E extends TriggerEvent>(event: E): Promise<E> => {
  if (!run) {
    const db = dynamo();
    const tableName = requireEnv('TABLE_NAME');
    run = signInTrigger({
      guards: dynamoSignInGuardStore(db, tableName),
      accounts: dynamoPasswordAgeStore(db, tableName),
      events: { db, tableName, mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')) },
      now: () => new Date(),
    });
  }
  return reportingFailures(run)(event);
};

/** The trigger, with every failure but a locked account's refusal logged as TRIGGER_FAILED_MESSAGE (and still thrown: Cognito fails that sign-in). */
export const reportingFailures =
  (trigger: ReturnType<typeof signInTrigger>) =>
  async <E extends TriggerEvent>(event: E): Promise<E> => {
    try {
      return await trigger(event);
    } catch (error) {
      if (!(error instanceof AccountLockedRefusal)) {
        logger.error(TRIGGER_FAILED_MESSAGE, { triggerSource: event.triggerSource, error: error instanceof Error ? error.message : String(error) });
      }
      throw error;
    }
  };
