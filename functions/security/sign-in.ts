import {
  INCORRECT_CREDENTIALS_MESSAGE,
  INCORRECT_TOTP_MESSAGE,
  REUSED_TOTP_MESSAGE,
  SIGN_IN_SESSION_EXPIRED_MESSAGE,
  signInErrorCodes,
  USER_NOT_CONFIRMED_MESSAGE,
  type SignInAnswer,
  type SignInRequest,
  type SignInTokens,
  type SignInTotpRequest,
} from '../../shared/schemas/sign-in';
import { accountLockedMessage, defaultSecuritySettings, LOCKOUT_MINUTES, securityErrorCodes } from '../../shared/schemas/security';
import { secretContext, type Cipher } from '../core/encryption';
import { ConflictError, HttpError, ServiceUnavailableError, TooManyRequestsError, UnauthorizedError } from '../core/errors';
import { logger } from '../core/logger';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from './security-events';
import type { SignInIdentity, CognitoSignInStep } from './sign-in-cognito';
import { emailHashOf, type SignInGuardStore } from './sign-in-guard';
import type { SignInAccountStore } from './sign-in-sessions';
import { plural } from '../../shared/text/plural';

/*
 * Sign-in through the API (docs/security.md, "Sign-in, lockout and password expiry"): the one
 * sign-in path of the app. Failed attempts in a row are counted per e-mail address; at the user's
 * maxLoginAttempts the address is locked for LOCKOUT_MINUTES and Cognito is not even asked. An
 * unknown address is counted and answered exactly like a wrong password.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
/** Cognito's TOTP session lasts 3 minutes; ours is refused a little after. */
const CHALLENGE_MAX_AGE_MS = 5 * 60 * 1000;

export interface SignInDeps {
  guards: SignInGuardStore;
  accounts: SignInAccountStore;
  identity: SignInIdentity;
  events: SecurityEventDeps;
  cipher: () => Promise<Cipher>;
  now: () => Date;
}

export const lockedError = (lockedUntil: number, now: Date): HttpError =>
  new HttpError(423, accountLockedMessage(Math.max(1, Math.ceil((lockedUntil - now.getTime() / 1000) / 60)))).withCode(securityErrorCodes.accountLocked);

const nameOf = (error: unknown): string => (error as { name?: string })?.name ?? '';

export const SIGN_IN_UNAVAILABLE_MESSAGE = 'Sign-in is unavailable right now. Please try again in a moment.';
export const COGNITO_LOCKOUT_MESSAGE = 'Too many sign-in attempts for this account. Please wait a few minutes and try again, or reset your password.';
/**
 * Cognito's own lockout on AWS: NotAuthorizedException 'Password attempts exceeded' (it cannot be
 * turned off; it grows with further failures). The local emulator has none.
 */
export const isCognitoLockout = (error: unknown): boolean => nameOf(error) === 'NotAuthorizedException' && /attempts exceeded/i.test((error as { message?: string })?.message ?? '');

/** The claims of a token Cognito just issued to us (over TLS, from the call itself: no signature check needed). */
export function tokenClaims(token: string): { sub: string; authTime: number } {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown; auth_time?: unknown };
  if (typeof payload.sub !== 'string' || typeof payload.auth_time !== 'number') throw new Error('Cognito issued an access token without sub or auth_time');
  return { sub: payload.sub, authTime: payload.auth_time };
}

interface Challenge {
  /** Cognito's session. */
  s: string;
  /** Cognito's username for the challenge (USER_ID_FOR_SRP). */
  u: string;
  /** When the password step answered (ms). */
  t: number;
}

export function signInUseCases(deps: SignInDeps) {
  const maxOf = async (userId: string | undefined) => (userId ? (await deps.accounts.account(userId))?.settings.maxLoginAttempts : undefined) ?? defaultSecuritySettings.maxLoginAttempts;

  /** The 423 of an address a parallel attempt locked meanwhile, with the lock's real end. */
  async function lockedNow(emailHash: string, now: Date): Promise<HttpError> {
    const guard = await deps.guards.read(emailHash);
    return lockedError(guard?.lockedUntil ?? now.getTime() / 1000 + LOCKOUT_MINUTES * 60, now);
  }

  /** Counts a failed attempt, records it for a known user, and answers it (423 once it locks). */
  async function failed(emailHash: string, kind: 'password' | 'totp-wrong' | 'totp-reused', origin: RequestOrigin, now: Date): Promise<never> {
    const counted = await deps.guards.fail(emailHash, maxOf, now);
    if (counted === 'locked') throw await lockedNow(emailHash, now);
    if (counted.userId) {
      await recordSecurityEvent(deps.events, {
        userId: counted.userId,
        type: kind === 'password' ? 'failed_login' : 'two_factor_failed',
        description:
          kind === 'password' ? 'Failed sign-in attempt: incorrect password' : `Two-factor code refused at sign-in: ${kind === 'totp-wrong' ? 'incorrect code' : 'code already used'}`,
        severity: 'medium',
        at: now,
        ...origin,
      });
    }
    if (counted.lockedNow) {
      const lockedUntil = Math.floor(now.getTime() / 1000) + LOCKOUT_MINUTES * 60;
      if (counted.userId) {
        await recordSecurityEvent(deps.events, {
          userId: counted.userId,
          type: 'lockout',
          description: `Account locked after ${counted.failures} failed sign-in attempts in a row`,
          severity: 'high',
          at: now,
          ...origin,
          alert: {
            title: 'Your account was locked',
            detail: `Sign-in to your account failed ${plural(counted.failures, 'time')} in a row${origin.ipAddress ? ` (last from ${origin.ipAddress})` : ''}, so it is locked for ${plural(LOCKOUT_MINUTES, 'minute')}. If this was not you, reset your password and turn on two-factor authentication.`,
          },
        });
      }
      throw lockedError(lockedUntil, now);
    }
    if (kind === 'password') throw new UnauthorizedError(INCORRECT_CREDENTIALS_MESSAGE);
    throw new UnauthorizedError(kind === 'totp-wrong' ? INCORRECT_TOTP_MESSAGE : REUSED_TOTP_MESSAGE);
  }

  /** A finished sign-in: count reset, the session kept, other sessions signed out when they may not run beside it. */
  async function finish(emailHash: string, tokens: SignInTokens, origin: RequestOrigin, now: Date, totpCode?: string): Promise<SignInAnswer> {
    const { sub, authTime } = tokenClaims(tokens.accessToken);
    if (!(await deps.guards.succeed(emailHash, sub, now, totpCode))) {
      // The same code was accepted for this address by a request that ran beside this one: a replay.
      await deps.identity.revoke(tokens.refreshToken).catch(() => undefined);
      return failed(emailHash, 'totp-reused', origin, now);
    }
    const account = await deps.accounts.account(sub);
    if (account?.settings.twoFactorEnabled && totpCode === undefined) await twoFactorSwitchedOffOutside(sub, authTime, origin, now);
    const sessionId = await deps.accounts.saveSession(sub, tokens.refreshToken, authTime, origin, now);
    if (account && !account.settings.allowConcurrentSessions) await signOutOthers(sub, sessionId, authTime, origin, now);
    const passwordExpired = Boolean(account?.passwordSetAt && now.getTime() - Date.parse(account.passwordSetAt) > account.settings.passwordExpiryDays * DAY_MS);
    if (passwordExpired) {
      await recordSecurityEvent(deps.events, {
        userId: sub,
        type: 'password_expired',
        description: `Signed in with a password older than ${account!.settings.passwordExpiryDays} days: a new one is required`,
        severity: 'medium',
        at: now,
        source: `password_expired:${authTime}`,
        ...origin,
      });
    }
    return { status: 'signedIn', tokens, passwordExpired };
  }

  /**
   * The setting says two-factor is on, yet Cognito signed the user in without a code: TOTP was
   * switched off outside the app (an access token can call Cognito's SetUserMFAPreference
   * itself; docs/threat-model.md). The setting is made to match Cognito again and the user alerted.
   */
  async function twoFactorSwitchedOffOutside(userId: string, authTime: number, origin: RequestOrigin, now: Date) {
    await deps.accounts.setTwoFactorOff(userId);
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'two_factor_disabled',
      description: 'Two-factor authentication was found off in Cognito at sign-in, though it was on in the app (switched off outside the app)',
      severity: 'high',
      at: now,
      source: `two_factor_off_outside:${authTime}`,
      ...origin,
      alert: {
        title: 'Two-factor authentication is off',
        detail: 'Your account signed in without a code from your authenticator app: two-factor authentication was switched off outside BulkOnboard. If this was not you, change your password and turn two-factor authentication on again.',
      },
    });
  }

  async function signOutOthers(userId: string, sessionId: string, authTime: number, origin: RequestOrigin, now: Date) {
    // Older access tokens are refused from now on (the account gate), their refresh tokens revoked.
    await deps.accounts.setSessionsNotBefore(userId, authTime);
    const others = await deps.accounts.otherSessions(userId, sessionId);
    let revoked = 0;
    for (let i = 0; i < others.length; i += 10) {
      await Promise.all(
        others.slice(i, i + 10).map(async (session) => {
          if (session.refreshToken) {
            try {
              await deps.identity.revoke(session.refreshToken);
              revoked++;
            } catch (error) {
              // Already revoked or expired: nothing left to sign out. Anything else is logged; the gate still refuses its access tokens.
              if (nameOf(error) !== 'NotAuthorizedException' && nameOf(error) !== 'UnauthorizedException') logger.warn('Refresh token not revoked', { error: nameOf(error) });
            }
          }
          await deps.accounts.deleteSession(userId, session.sessionId);
        }),
      );
    }
    if (revoked > 0) {
      await recordSecurityEvent(deps.events, {
        userId,
        type: 'sessions_revoked',
        description: `Signed out ${plural(revoked, 'other session')}: concurrent sessions are not allowed`,
        severity: 'medium',
        at: now,
        source: `sessions_revoked:${authTime}:${sessionId}`,
        ...origin,
      });
    }
  }

  /** Cognito's answer to a password or a code, as the next step of the sign-in. */
  async function next(emailHash: string, step: CognitoSignInStep, origin: RequestOrigin, now: Date, totpCode?: string): Promise<SignInAnswer> {
    if (step.kind === 'tokens') return finish(emailHash, step.tokens, origin, now, totpCode);
    if (step.kind === 'totp') {
      const challenge: Challenge = { s: step.session, u: step.username, t: now.getTime() };
      return { status: 'totp', session: (await deps.cipher()).encrypt(JSON.stringify(challenge), secretContext.signInChallenge(emailHash)) };
    }
    logger.error('Unexpected Cognito sign-in challenge', { challenge: step.challenge });
    throw new ConflictError('This account needs a sign-in step the app does not offer. Reset your password to continue.');
  }

  /** Errors Cognito answers for reasons that are not a wrong password or code. */
  async function otherCognitoError(error: unknown, emailHash: string, now: Date): Promise<never> {
    const name = nameOf(error);
    if (name === 'UserNotConfirmedException') throw new ConflictError(USER_NOT_CONFIRMED_MESSAGE).withCode(signInErrorCodes.userNotConfirmed);
    if (name === 'PasswordResetRequiredException') throw new ConflictError('You need to reset your password before signing in. Use "Forgot password?".');
    if (name === 'TooManyRequestsException' || name === 'LimitExceededException') throw new TooManyRequestsError('Too many sign-in attempts. Please wait a moment and try again.');
    // The post-authentication trigger refused. A lock set between our check and Cognito's answer
    // is the reason it refuses; any other trigger failure is an outage, never called a lock.
    if (name === 'UserLambdaValidationException') {
      const guard = await deps.guards.read(emailHash);
      if (guard?.lockedUntil && guard.lockedUntil > now.getTime() / 1000) throw lockedError(guard.lockedUntil, now);
      logger.error('Sign-in refused by the Cognito trigger without a lock', { error: error instanceof Error ? error.message : String(error) });
      throw new ServiceUnavailableError(SIGN_IN_UNAVAILABLE_MESSAGE);
    }
    throw error;
  }

  return {
    /** POST /api/auth/sign-in. */
    async signIn(input: SignInRequest, origin: RequestOrigin): Promise<SignInAnswer> {
      const now = deps.now();
      const emailHash = emailHashOf(input.email);
      const check = await deps.guards.begin(emailHash, origin, now);
      if (check.locked) throw lockedError(check.lockedUntil, now);
      let step: CognitoSignInStep;
      try {
        step = await deps.identity.passwordSignIn(input.email.trim(), input.password);
      } catch (error) {
        // Cognito's own lockout (AWS: 'Password attempts exceeded'): not another wrong password,
        // so not counted towards ours; the right password is refused too until it lapses.
        if (isCognitoLockout(error)) throw new TooManyRequestsError(COGNITO_LOCKOUT_MESSAGE);
        // An unknown address (UserNotFound, or NotAuthorized with Cognito's user-existence errors off) is a wrong password.
        if (['NotAuthorizedException', 'UserNotFoundException', 'InvalidPasswordException'].includes(nameOf(error))) return failed(emailHash, 'password', origin, now);
        return otherCognitoError(error, emailHash, now);
      }
      return next(emailHash, step, origin, now);
    },

    /** POST /api/auth/sign-in/totp: the code from the authenticator app. */
    async signInTotp(input: SignInTotpRequest, origin: RequestOrigin): Promise<SignInAnswer> {
      const now = deps.now();
      const emailHash = emailHashOf(input.email);
      const check = await deps.guards.begin(emailHash, origin, now);
      if (check.locked) throw lockedError(check.lockedUntil, now);
      let challenge: Challenge;
      try {
        challenge = JSON.parse((await deps.cipher()).decrypt(input.session, secretContext.signInChallenge(emailHash))) as Challenge;
      } catch {
        // Not ours, or made for another address.
        throw new UnauthorizedError(SIGN_IN_SESSION_EXPIRED_MESSAGE).withCode(signInErrorCodes.signInSessionExpired);
      }
      if (now.getTime() - challenge.t > CHALLENGE_MAX_AGE_MS) throw new UnauthorizedError(SIGN_IN_SESSION_EXPIRED_MESSAGE).withCode(signInErrorCodes.signInSessionExpired);
      // A code accepted once is refused while it is still valid: whoever saw it cannot sign in with it.
      if (deps.guards.isUsedTotp(check.guard, emailHash, input.code, now)) return failed(emailHash, 'totp-reused', origin, now);
      let step: CognitoSignInStep;
      try {
        step = await deps.identity.totpSignIn(challenge.u, challenge.s, input.code);
      } catch (error) {
        const name = nameOf(error);
        if (name === 'CodeMismatchException' || name === 'ExpiredCodeException') return failed(emailHash, 'totp-wrong', origin, now);
        // Cognito no longer knows the session (expired, or too many wrong codes on it).
        if (name === 'NotAuthorizedException') throw new UnauthorizedError(SIGN_IN_SESSION_EXPIRED_MESSAGE).withCode(signInErrorCodes.signInSessionExpired);
        return otherCognitoError(error, emailHash, now);
      }
      return next(emailHash, step, origin, now, input.code);
    },
  };
}
