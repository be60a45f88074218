import * as z from 'zod/mini';
import './zod-messages';
import { plural } from '../text/plural';

/**
 * The Security Center (spec 2 'Security Center', 3 'Security settings' and 'Security event',
 * 5 ranges, 9 defaults): one schema for the settings card and for GET / PUT
 * /api/security/settings, and the shapes of the security events. docs/security.md says how each
 * setting is enforced. Written in zod/mini: the functions that read the settings (the account
 * gate, the account deletion worker, sign-in) reach no other schema, and so no code of zod's
 * classic API (docs/deploy.md, "Function bundles").
 */
export const SESSION_TIMEOUT_HOURS = { min: 1, max: 168 } as const;
export const PASSWORD_EXPIRY_DAYS = { min: 30, max: 365 } as const;
export const MAX_LOGIN_ATTEMPTS = { min: 3, max: 10 } as const;
/** How long an account stays locked after maxLoginAttempts failed sign-ins in a row. */
export const LOCKOUT_MINUTES = 15;

export const defaultSecuritySettings = {
  twoFactorEnabled: false,
  sessionTimeout: 24,
  passwordExpiryDays: 90,
  maxLoginAttempts: 5,
  requirePasswordChange: false,
  allowConcurrentSessions: true,
} as const;

/** A number field of the settings card: a non-numeric entry becomes 0 (spec 5), which the range then refuses. */
const rangedNumber = (label: string, unit: string, range: { min: number; max: number }) =>
  z.pipe(
    z.transform((value: unknown) => {
      if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return 0;
    }),
    z
      .int(`${label} must be a whole number`)
      .check(
        z.minimum(range.min, `${label} must be between ${range.min} and ${range.max} ${unit}`),
        z.maximum(range.max, `${label} must be between ${range.min} and ${range.max} ${unit}`),
      ),
  );

export const securitySettingsSchema = z.object(
  {
    twoFactorEnabled: z.boolean('Two-factor authentication must be on or off'),
    sessionTimeout: rangedNumber('Session timeout', 'hours', SESSION_TIMEOUT_HOURS),
    passwordExpiryDays: rangedNumber('Password expiry', 'days', PASSWORD_EXPIRY_DAYS),
    maxLoginAttempts: rangedNumber('Max login attempts', 'attempts', MAX_LOGIN_ATTEMPTS),
    requirePasswordChange: z.boolean('Require password change must be on or off'),
    allowConcurrentSessions: z.boolean('Allow concurrent sessions must be on or off'),
  },
  'Security settings must be an object',
);
export type SecuritySettings = z.output<typeof securitySettingsSchema>;

/**
 * PUT /api/security/settings: any of the six fields (what is left out stays as it is).
 * twoFactorEnabled is turned on or off only with a code from the authenticator app
 * (POST /api/security/two-factor/...): sent here with a value other than the current one, the
 * PUT is refused with TWO_FACTOR_NEEDS_CODE_MESSAGE; sent with the current value, it is accepted.
 */
export const updateSecuritySettingsSchema = z.partial(securitySettingsSchema);
export type UpdateSecuritySettingsInput = z.output<typeof updateSecuritySettingsSchema>;
export const TWO_FACTOR_NEEDS_CODE_MESSAGE = 'Turn two-factor authentication on or off with a code from your authenticator app.';

/** The stored settings that still fit the schema, completed with the defaults. */
export function securitySettingsWithDefaults(stored: unknown): SecuritySettings {
  const fields: Record<string, unknown> = {};
  if (stored && typeof stored === 'object') {
    for (const [key, value] of Object.entries(stored as Record<string, unknown>)) {
      const field = securitySettingsSchema.shape[key as keyof SecuritySettings];
      if (!field || value === undefined) continue;
      const parsed = field.safeParse(value);
      if (parsed.success) fields[key] = parsed.data;
    }
  }
  return { ...defaultSecuritySettings, ...fields } as SecuritySettings;
}

/**
 * What a security event records. The spec's icons: login, password_change, failed_login, and
 * one for every other type.
 */
export const securityEventTypes = [
  'login',
  'failed_login',
  'lockout',
  'password_change',
  'password_reset',
  'password_expired',
  'two_factor_enabled',
  'two_factor_disabled',
  'two_factor_failed',
  'settings_changed',
  'session_timeout',
  'sessions_revoked',
  'integration_credentials_added',
  'integration_credentials_changed',
  'integration_credentials_removed',
  'passwords_revealed',
  'export_downloaded',
  'data_export',
  'account_passwords_reset',
  'account_deletion_started',
  'project_changed',
  'accounts_added',
  'account_edited',
  'project_deleted',
  'accounts_deactivated',
  'accounts_reactivated',
  'accounts_deleted',
  'accounts_updated_on_platform',
  'project_expired',
  'credentials_sent',
  'accounts_synced',
] as const;
export type SecurityEventType = (typeof securityEventTypes)[number];
export const securitySeverities = ['high', 'medium', 'low'] as const;
export type SecuritySeverity = (typeof securitySeverities)[number];

/** One event as GET /api/security/events returns it (spec 3 plus userAgent). */
export interface SecurityEvent {
  id: string;
  type: SecurityEventType;
  description: string;
  ipAddress: string;
  userAgent: string;
  createdAt: string;
  severity: SecuritySeverity;
}

/** GET /api/security/events?limit=&cursor=: newest first, paged. */
export interface SecurityEventPage {
  events: SecurityEvent[];
  nextCursor?: string;
}
export const SECURITY_EVENTS_SHOWN = 10;
export const SECURITY_EVENTS_PAGE_MAX = 100;

/**
 * Why the API refused a signed-in caller (the error body's `code`), so the app can say so and act:
 * sign the user out with the message, or ask for a new password.
 */
export const securityErrorCodes = {
  /** 401: the sign-in is older than the session timeout (the access token's auth_time). */
  sessionExpired: 'SESSION_EXPIRED',
  /** 401: concurrent sessions are off and the user signed in elsewhere since. */
  sessionReplaced: 'SESSION_REPLACED',
  /** 403: the password is older than the password expiry; only changing it is allowed. */
  passwordExpired: 'PASSWORD_EXPIRED',
  /** 423 at sign-in: too many failed sign-ins in a row. */
  accountLocked: 'ACCOUNT_LOCKED',
} as const;
export type SecurityErrorCode = (typeof securityErrorCodes)[keyof typeof securityErrorCodes];
export const SESSION_EXPIRED_MESSAGE = 'Your session has expired. Please sign in again.';
export const SESSION_REPLACED_MESSAGE = 'You signed in on another device, so this session was signed out. Please sign in again.';
export const PASSWORD_EXPIRED_MESSAGE = 'Your password has expired. Choose a new password to continue.';
export const accountLockedMessage = (minutes: number) =>
  `Too many failed sign-in attempts. Your account is locked for ${plural(minutes, 'minute')}. Try again later or reset your password.`;

/**
 * Attributes of the user item (USER#<sub> / PROFILE) that the account gate reads with the
 * security settings: when the password was last set (ISO; the account's createdAt when absent),
 * and the auth_time (epoch seconds) before which sign-ins no longer count when concurrent
 * sessions are off.
 */
export const PASSWORD_CHANGED_AT_ATTRIBUTE = 'passwordChangedAt';
export const SESSIONS_NOT_BEFORE_ATTRIBUTE = 'sessionsNotBefore';
