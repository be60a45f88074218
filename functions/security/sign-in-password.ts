import { CURRENT_PASSWORD_INCORRECT_MESSAGE, type ChangePasswordInput } from '../../shared/schemas/sign-in';
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../core/errors';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from './security-events';
import type { SignInIdentity } from './sign-in-cognito';
import type { PasswordAgeStore } from './sign-in-password-age';

export interface ChangePasswordDeps {
  identity: Pick<SignInIdentity, 'changePassword'>;
  accounts: PasswordAgeStore;
  events: SecurityEventDeps;
  now: () => Date;
}

const POLICY_PREFIX = /^Password did not conform with policy: /;

/**
 * POST /api/auth/change-password: Cognito's ChangePassword with the caller's own access token
 * (it checks the current password), then the password's age starts again (passwordChangedAt) and
 * the change is recorded with an alert. Allowed while the password has expired: it is the way out.
 */
export const changePassword =
  (deps: ChangePasswordDeps) =>
  async (userId: string, accessToken: string, input: ChangePasswordInput, origin: RequestOrigin): Promise<{ passwordChangedAt: string }> => {
    try {
      await deps.identity.changePassword(accessToken, input.currentPassword, input.newPassword);
    } catch (error) {
      const { name = '', message = '' } = error as { name?: string; message?: string };
      // Cognito names the broken rule ("Password must have symbol characters"); the local emulator
      // answers a wrong current password with this exception too, without a rule.
      if (name === 'InvalidPasswordException') {
        throw new ValidationError(POLICY_PREFIX.test(message) ? message.replace(POLICY_PREFIX, '') : CURRENT_PASSWORD_INCORRECT_MESSAGE);
      }
      if (name === 'NotAuthorizedException') {
        if (/incorrect username or password/i.test(message)) throw new ValidationError(CURRENT_PASSWORD_INCORRECT_MESSAGE);
        // A revoked or expired token.
        throw new UnauthorizedError();
      }
      if (name === 'LimitExceededException' || name === 'TooManyRequestsException') throw new TooManyRequestsError('Too many attempts. Please wait a moment and try again.');
      if (name === 'InvalidParameterException') throw new ValidationError(message || 'The new password is not accepted.');
      throw error;
    }
    const at = deps.now();
    await deps.accounts.setPasswordChangedAt(userId, at.toISOString());
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'password_change',
      description: 'Password changed',
      severity: 'medium',
      at,
      ...origin,
      alert: { title: 'Your password was changed', detail: 'The password of your BulkOnboard account was just changed. If this was not you, reset your password at once with "Forgot password?".' },
    });
    return { passwordChangedAt: at.toISOString() };
  };
