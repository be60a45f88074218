import * as z from 'zod/mini';
import './zod-messages';
import { signInSchema, signUpSchema } from './user';

/**
 * Sign-in through the API (POST /api/auth/sign-in, POST /api/auth/sign-in/totp): the server
 * counts failed sign-ins per e-mail and locks the account after the user's maxLoginAttempts
 * (docs/security.md, "Sign-in, lockout and password expiry"), then calls Cognito. The browser
 * keeps the answered tokens where Amplify reads them.
 */
export const signInRequestSchema = z.extend(signInSchema, {
  // Cognito limits a password to 256 characters; a longer one is wrong, not a 500.
  password: z.string('Password is required').check(z.minLength(1, 'Password is required'), z.maxLength(256, 'Incorrect e-mail or password.')),
});
export type SignInRequest = z.output<typeof signInRequestSchema>;

export const TOTP_CODE_MESSAGE = 'Enter the 6-digit code from your authenticator app';
export const totpCodeSchema = z.string(TOTP_CODE_MESSAGE).check(z.trim(), z.regex(/^\d{6}$/, TOTP_CODE_MESSAGE));

export const signInTotpRequestSchema = z.object({
  email: signInSchema.shape.email,
  /** The opaque `session` of the sign-in answer that asked for the code. */
  session: z.string('The sign-in session is missing. Sign in again.').check(z.minLength(1, 'The sign-in session is missing. Sign in again.'), z.maxLength(8192, 'The sign-in session is not valid. Sign in again.')),
  code: totpCodeSchema,
});
export type SignInTotpRequest = z.output<typeof signInTotpRequestSchema>;

/** The tokens of a finished sign-in, as Cognito issued them. */
export interface SignInTokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  /** Seconds the access token is valid. */
  expiresIn: number;
}

export type SignInAnswer =
  | { status: 'signedIn'; tokens: SignInTokens; /** The password is older than the user's passwordExpiryDays: choose a new one before going on. */ passwordExpired: boolean }
  | { status: 'totp'; /** Send back with the code to POST /api/auth/sign-in/totp. */ session: string };

/** Codes of sign-in errors the app acts on (besides ACCOUNT_LOCKED, shared/schemas/security.ts). */
export const signInErrorCodes = {
  /** The password is right but the e-mail address was never confirmed: go to the confirm page. */
  userNotConfirmed: 'USER_NOT_CONFIRMED',
  /** The TOTP step's session is gone (expired, or used): start again with the password. */
  signInSessionExpired: 'SIGN_IN_SESSION_EXPIRED',
} as const;

export const INCORRECT_CREDENTIALS_MESSAGE = 'Incorrect e-mail or password.';
export const INCORRECT_TOTP_MESSAGE = 'The code is incorrect. Check your authenticator app and try again.';
export const REUSED_TOTP_MESSAGE = 'This code was already used. Wait for the next code in your authenticator app.';
export const SIGN_IN_SESSION_EXPIRED_MESSAGE = 'Your sign-in took too long. Enter your e-mail and password again.';
export const USER_NOT_CONFIRMED_MESSAGE = 'Your account is not confirmed yet.';

/** POST /api/auth/change-password: the new password follows the pool's policy (the sign-up rule). */
export const changePasswordSchema = z
  .object({
    currentPassword: z.string('Current password is required').check(z.minLength(1, 'Current password is required'), z.maxLength(256, 'Your current password is incorrect.')),
    newPassword: signUpSchema.shape.password.check(z.maxLength(256, 'Password must be at most 256 characters')),
  })
  .check(z.refine((input) => input.newPassword !== input.currentPassword, { message: 'Choose a new password that differs from the current one.', path: ['newPassword'] }));
export type ChangePasswordInput = z.output<typeof changePasswordSchema>;
export const CURRENT_PASSWORD_INCORRECT_MESSAGE = 'Your current password is incorrect.';
