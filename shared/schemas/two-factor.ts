import * as z from 'zod/mini';
import './zod-messages';

/**
 * Two-factor authentication (TOTP) of the Security Center: POST /api/security/two-factor/setup
 * answers a secret and its otpauth:// URI (the QR code); .../enable and .../disable take a code
 * from the authenticator app.
 */
export interface TwoFactorSetup {
  /** Base32, for typing into the app by hand. */
  secret: string;
  /** otpauth://totp/BulkOnboard:<e-mail>?secret=...&issuer=BulkOnboard, shown as a QR code. */
  otpauthUri: string;
}

export const TWO_FACTOR_CODE_FORMAT_MESSAGE = 'Enter the 6-digit code from your authenticator app';

/** The code as typed: spaces (apps show '123 456') are dropped. */
export const twoFactorCodeSchema = z.object(
  {
    code: z.pipe(
      z.transform((value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, '') : value)),
      z.string(TWO_FACTOR_CODE_FORMAT_MESSAGE).check(z.regex(/^\d{6}$/, TWO_FACTOR_CODE_FORMAT_MESSAGE)),
    ),
  },
  TWO_FACTOR_CODE_FORMAT_MESSAGE,
);
export type TwoFactorCodeInput = z.output<typeof twoFactorCodeSchema>;

export const TWO_FACTOR_WRONG_CODE_MESSAGE = 'That code is not right. Enter the current 6-digit code from your authenticator app.';
export const TWO_FACTOR_REUSED_CODE_MESSAGE = 'That code was already used. Wait for the next code in your authenticator app.';
export const TWO_FACTOR_NO_SETUP_MESSAGE = 'Start the two-factor setup first: scan the QR code, then enter a code.';
export const TWO_FACTOR_ALREADY_ON_MESSAGE = 'Two-factor authentication is already on.';
export const TWO_FACTOR_ALREADY_OFF_MESSAGE = 'Two-factor authentication is already off.';
export const TWO_FACTOR_SETUP_BUSY_MESSAGE = 'A two-factor setup is already being prepared (in another window?). Close this window and try again in a moment.';
export const TWO_FACTOR_SETUP_REPLACED_MESSAGE = 'This QR code was replaced by a newer setup (in another window?). Close this window and start again.';
