import { generateURI, verify } from 'otplib';

/**
 * TOTP codes as authenticator apps make them (RFC 6238: SHA-1, 6 digits, 30 s), checked here for
 * what Cognito cannot check outside a sign-in: the code that turns two-factor authentication off.
 */
export const TOTP_ISSUER = 'BulkOnboard';
const PERIOD_SECONDS = 30;
/** One period either side: a code typed as it changes, or a phone clock a little off, still counts. */
const TOLERANCE_SECONDS = PERIOD_SECONDS;

/** The otpauth:// URI an authenticator app reads from the QR code: issuer BulkOnboard, the user's e-mail. */
export const otpauthUri = (secret: string, email: string): string => generateURI({ issuer: TOTP_ISSUER, label: email, secret });

export type CodeCheck = { valid: true; timeStep: number } | { valid: false; reason: 'wrong' | 'reused' };

/**
 * Whether `code` is the secret's code now (within the tolerance), and not one already used: a
 * code whose time step is at or before `lastTimeStep` (the last one accepted) is refused as reused,
 * so a code seen over someone's shoulder cannot be played again.
 */
export async function checkCode(secret: string, code: string, lastTimeStep: number | undefined, now: Date): Promise<CodeCheck> {
  if (!/^\d{6}$/.test(code)) return { valid: false, reason: 'wrong' };
  let result;
  try {
    result = await verify({ secret, token: code, period: PERIOD_SECONDS, epochTolerance: TOLERANCE_SECONDS, epoch: Math.floor(now.getTime() / 1000) });
  } catch {
    // A secret otplib cannot read (never one it made) matches no code.
    return { valid: false, reason: 'wrong' };
  }
  // The functional API types HOTP's answer too; a TOTP match carries its time step.
  if (!result.valid || !('timeStep' in result)) return { valid: false, reason: 'wrong' };
  if (lastTimeStep !== undefined && result.timeStep <= lastTimeStep) return { valid: false, reason: 'reused' };
  return { valid: true, timeStep: result.timeStep };
}
