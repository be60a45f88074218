import * as z from 'zod/mini';
import './zod-messages';
import { planIds } from '../plans';

/** The current user as GET /api/auth/user returns it (spec section 3, users). */
export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  company: z.optional(z.string()),
  profileImageUrl: z.optional(z.string()),
  subscriptionPlan: z.enum(planIds),
  subscriptionStatus: z.string(),
  subscriptionCancelAtPeriodEnd: z.boolean(),
  subscriptionCurrentPeriodEnd: z.optional(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** When the current sign-in happened (the access token's auth_time), recorded by GET /api/auth/user. */
  lastSignInAt: z.optional(z.string()),
  /** The welcome dialog was dismissed (on any device). */
  welcomeDismissed: z.optional(z.boolean()),
  /** 'Tell us about yourself' was completed (shown once, after the first sign-in). */
  onboarded: z.optional(z.boolean()),
});
export type User = z.infer<typeof userSchema>;

/** The welcome dialog shows while the account is younger than this and not dismissed (spec 1, 9). */
export const WELCOME_WINDOW_MS = 5 * 60 * 1000;

/** Profile photos: images only, at most 5 MB as chosen (spec 5); the browser uploads a square JPEG. */
export const PHOTO_MAX_BYTES = 5 * 1024 * 1024;
export const PHOTO_CONTENT_TYPE = 'image/jpeg';

/** POST /api/user/onboarding ('Tell us about yourself'): the name, required after trimming. */
export const onboardingSchema = z.object({
  name: z.string().check(
    z.trim(),
    z.minLength(1, 'Please enter your name to continue.'),
    z.maxLength(200, 'Name must be at most 200 characters'),
    // The profile keeps first and last name apart, each at most 100 characters (updateProfileSchema).
    z.refine((name) => Object.values(splitName(name)).every((part) => part.length <= 100), 'First and last name must each be at most 100 characters'),
  ),
});
export type OnboardingInput = z.infer<typeof onboardingSchema>;

/** PUT /api/user/photo: the key the upload was given (POST /api/user/photo-upload). */
export const photoSchema = z.object({ key: z.string().check(z.minLength(1), z.maxLength(300)) });

/** A name as typed ('Ada Lovelace King') split into the profile's first and last names. */
export const splitName = (name: string): { firstName: string; lastName: string } => {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return { firstName: words[0] ?? '', lastName: words.slice(1).join(' ') };
};

const name = (label: string) => z.string().check(z.trim(), z.minLength(1, `${label} is required`), z.maxLength(100, `${label} must be at most 100 characters`));

/**
 * A last name may be empty: 'Tell us about yourself' keeps a one-word name as the whole name
 * (spec 5), and the Profile and Settings forms send it back as it is.
 */
export const optionalLastName = z.string().check(z.trim(), z.maxLength(100, 'Last name must be at most 100 characters'));

/** PUT /api/user/profile and the Profile / Settings forms. */
export const updateProfileSchema = z.object({
  firstName: name('First name'),
  lastName: optionalLastName,
  company: z.optional(z.string().check(z.trim(), z.maxLength(200, 'Company must be at most 200 characters'))),
});
export type UpdateProfileInput = z.infer<typeof updateProfileSchema>;

/** The password rule in words, shown under every field that sets a password. */
export const PASSWORD_POLICY_HINT = 'At least 8 characters with upper- and lower-case letters, a number and a symbol.';

/** Sign-up form (first name, last name, e-mail, password). Cognito's default password policy. */
export const signUpSchema = z.object({
  firstName: name('First name'),
  lastName: name('Last name'),
  email: z.string().check(z.trim(), z.email('Valid email is required')),
  password: z
    .string()
    .check(
      z.minLength(8, 'Password must be at least 8 characters'),
      z.regex(/[a-z]/, 'Password needs a lower-case letter'),
      z.regex(/[A-Z]/, 'Password needs an upper-case letter'),
      z.regex(/[0-9]/, 'Password needs a number'),
      z.regex(/[^A-Za-z0-9]/, 'Password needs a symbol'),
    ),
});
export type SignUpInput = z.infer<typeof signUpSchema>;

export const signInSchema = z.object({
  email: z.string().check(z.trim(), z.email('Valid email is required')),
  password: z.string().check(z.minLength(1, 'Password is required')),
});

export const confirmSignUpSchema = z.object({
  email: z.string().check(z.trim(), z.email('Valid email is required')),
  code: z.string().check(z.trim(), z.regex(/^\d{6}$/, 'Enter the 6-digit code')),
});

export const initialsOf = (firstName?: string, lastName?: string): string => {
  const words = `${firstName ?? ''} ${lastName ?? ''}`.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return 'U';
  if (words.length === 1) return words[0]!.charAt(0).toUpperCase();
  return (words[0]!.charAt(0) + words[words.length - 1]!.charAt(0)).toUpperCase();
};
