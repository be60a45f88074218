import * as z from 'zod/mini';
import './zod-messages';

/**
 * User settings (spec 3 'User settings', 5 ranges, 9 defaults): one schema for the Settings tabs
 * and for GET / PUT /api/user/settings, so the browser and the server agree on every range,
 * default and message. The account group is the profile (users item), not stored here.
 */
export const timezones = [
  { value: 'UTC', label: 'UTC' },
  { value: 'America/New_York', label: 'Eastern' },
  { value: 'America/Chicago', label: 'Central' },
  { value: 'America/Denver', label: 'Mountain' },
  { value: 'America/Los_Angeles', label: 'Pacific' },
] as const;
export const timezoneValues = timezones.map((t) => t.value) as [(typeof timezones)[number]['value'], ...(typeof timezones)[number]['value'][]];
export const dateFormats = ['MM/DD/YYYY', 'DD/MM/YYYY', 'YYYY-MM-DD'] as const;

export const PROJECT_EXPIRY_DAYS = { min: 30, max: 365, fallback: 90 } as const;
export const PASSWORD_LENGTH = { min: 8, max: 128, fallback: 12 } as const;

export const defaultNotificationSettings = {
  emailNotifications: true,
  projectCompletionEmail: true,
  securityAlerts: true,
  weeklyDigest: false,
} as const;
export const defaultPreferences = {
  defaultProjectExpiry: PROJECT_EXPIRY_DAYS.fallback,
  defaultPasswordLength: PASSWORD_LENGTH.fallback,
  timezone: 'UTC',
  dateFormat: 'MM/DD/YYYY',
} as const;

/**
 * A number field of the Preferences form: a number, or text that reads as one. Anything that is
 * not numeric (blank, 'abc', null) falls back to the default (spec 5); a number out of range is
 * refused with the range in words.
 */
const numberWithFallback = (label: string, unit: string, range: { min: number; max: number; fallback: number }) =>
  z.pipe(
    z.transform((value: unknown) => {
      if (typeof value === 'number') return Number.isFinite(value) ? value : range.fallback;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return range.fallback;
    }),
    z
      .int(`${label} must be a whole number`)
      .check(
        z.minimum(range.min, `${label} must be between ${range.min} and ${range.max} ${unit}`),
        z.maximum(range.max, `${label} must be between ${range.min} and ${range.max} ${unit}`),
      ),
  );

export const notificationSettingsSchema = z.object({
  emailNotifications: z.boolean('E-mail notifications must be on or off'),
  projectCompletionEmail: z.boolean('Project completion e-mails must be on or off'),
  securityAlerts: z.boolean('Security alerts must be on or off'),
  weeklyDigest: z.boolean('Weekly digest must be on or off'),
});
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

export const preferencesSchema = z.object({
  defaultProjectExpiry: numberWithFallback('Default project expiry', 'days', PROJECT_EXPIRY_DAYS),
  defaultPasswordLength: numberWithFallback('Default password length', 'characters', PASSWORD_LENGTH),
  timezone: z.enum(timezoneValues, `Timezone must be one of ${timezoneValues.join(', ')}`),
  dateFormat: z.enum(dateFormats, `Date format must be one of ${dateFormats.join(', ')}`),
});
export type Preferences = z.output<typeof preferencesSchema>;

const name = (label: string) => z.string(`${label} is required`).check(z.trim(), z.minLength(1, `${label} is required`), z.maxLength(100, `${label} must be at most 100 characters`));

/** GET /api/user/settings: the three groups. */
export const userSettingsSchema = z.object({
  notifications: notificationSettingsSchema,
  preferences: preferencesSchema,
  account: z.object({ email: z.string(), firstName: z.string(), lastName: z.string(), company: z.optional(z.string()) }),
});
export type UserSettings = z.output<typeof userSettingsSchema>;

/**
 * PUT /api/user/settings: any of the groups, each with any of its fields (what is left out stays
 * as it is). The account's e-mail is read-only (it is the sign-in identity): sent along, it is
 * ignored, as the form shows it disabled.
 */
export const updateUserSettingsSchema = z.object(
  {
    notifications: z.optional(z.partial(notificationSettingsSchema)),
    preferences: z.optional(z.partial(preferencesSchema)),
    account: z.optional(
      z.object({
        email: z.optional(z.unknown()),
        firstName: z.optional(name('First name')),
        // May be empty: a one-word name has no last name (shared/schemas/user: optionalLastName).
        lastName: z.optional(z.string('Last name must be text').check(z.trim(), z.maxLength(100, 'Last name must be at most 100 characters'))),
        company: z.optional(z.string('Company must be text').check(z.trim(), z.maxLength(200, 'Company must be at most 200 characters'))),
      }),
    ),
  },
  'Settings must be an object with notifications, preferences or account',
);
export type UpdateUserSettingsInput = z.output<typeof updateUserSettingsSchema>;

/** The stored fields of a group that still fit the schema, each on its own (one bad field keeps the others). */
function validFields(shape: Record<string, z.ZodMiniType>, stored: unknown): Record<string, unknown> {
  if (!stored || typeof stored !== 'object') return {};
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored as Record<string, unknown>)) {
    const field = shape[key];
    if (!field || value === undefined) continue;
    const parsed = field.safeParse(value);
    if (parsed.success) fields[key] = parsed.data;
  }
  return fields;
}

/** Stored groups completed with the defaults (a user who never saved has none stored). */
export function withDefaults(stored: { notifications?: unknown; preferences?: unknown }): Pick<UserSettings, 'notifications' | 'preferences'> {
  return {
    notifications: { ...defaultNotificationSettings, ...validFields(notificationSettingsSchema.shape, stored.notifications) } as NotificationSettings,
    preferences: { ...defaultPreferences, ...validFields(preferencesSchema.shape, stored.preferences) } as Preferences,
  };
}
