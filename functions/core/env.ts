// zod/mini keeps every Lambda bundle small: this module is in all of them.
import * as z from 'zod/mini';

/**
 * Process environment, parsed once at cold start. Each function receives only the variables of
 * the resources it may touch (see groupAccess in shared/routes.ts), so resource variables are
 * optional here and `requireEnv` fails loudly when a function uses one it was not given.
 */
const name = z.optional(z.string().check(z.minLength(1)));
const url = z.optional(z.url());

const envSchema = z.object({
  TABLE_NAME: name,
  EXPORT_BUCKET: name,
  MAIL_QUEUE_URL: url,
  BULK_QUEUE_URL: url,
  EXPORTS_QUEUE_URL: url,
  PROVISIONING_QUEUE_URL: url,
  ACCOUNT_DELETION_QUEUE_URL: url,
  BULK_UPLOADS_QUEUE_URL: url,
  SES_FROM_ADDRESS: z.optional(z.email()),
  SES_CONFIGURATION_SET: name,
  USER_POOL_ID: name,
  USER_POOL_CLIENT_ID: name,
  /** Secrets Manager secret holding the password-encryption key (AWS). */
  ENCRYPTION_KEY_SECRET_ARN: name,
  /** File holding the password-encryption key (local stack). */
  ENCRYPTION_KEY_FILE: name,
  /** Where the export worker writes a file before its PUT (local stack: under its data folder); unset: the system's temporary folder (Lambda's /tmp). */
  EXPORT_TEMP_DIR: name,
  /** Signing secret of the Stripe webhook endpoint (`whsec_...`); the local stack generates one. */
  STRIPE_WEBHOOK_SECRET: name,
  /** Stripe API secret key (`sk_...`), given directly (local stack against Stripe's test mode). */
  STRIPE_SECRET_KEY: name,
  /** Secrets Manager secret holding `{"secretKey","webhookSecret"}` (AWS). */
  STRIPE_SECRET_ARN: name,
  /** The Pro plan's monthly Stripe price (`price_...`). */
  STRIPE_PRICE_ID: name,
  /** 'local': the local test checkout of `npm start` stands in for Stripe. */
  BILLING_MODE: z.optional(z.enum(['local'])),
  /**
   * Comma-separated origins that integrations may call although they are private (the local
   * stack's and tests' fake platforms). Never set on AWS.
   */
  OUTBOUND_ALLOWED_ORIGINS: name,
  /**
   * The local stack's SCIM directory (bin/local/scim-server.ts): base URL, and the key each user's
   * tenant token is made with (functions/integrations/local-scim-tenant.ts). Never set on AWS.
   */
  LOCAL_SCIM_URL: url,
  LOCAL_SCIM_TENANT_KEY: name,
  /** Credential e-mails a second for all mail workers together (SES's sending quota; default 14; 0: no pacing). */
  MAIL_SEND_RATE: z.optional(z.string().check(z.regex(/^\d+(\.\d+)?$/))),
  /** Credential e-mails one customer may send in a UTC day (default 50,000; 0: no cap). docs/email.md. */
  MAIL_DAILY_CAP: z.optional(z.string().check(z.regex(/^\d+$/))),
  /** The share of MAIL_SEND_RATE left free for Cognito's codes, 0 to 0.5 (default 0.1). */
  MAIL_RESERVED_SHARE: z.optional(z.string().check(z.regex(/^0(\.\d+)?$/))),
  /** A customer whose bounce rate over its recent e-mails passes this share (0 to 1, default 0.05) has its sends paused. */
  MAIL_BOUNCE_CUTOFF: z.optional(z.string().check(z.regex(/^(0(\.\d+)?|1)$/))),
  /** Public URL of the web app, used in e-mails. */
  APP_URL: url,
  /** Local emulators only: s3rver needs path-style addressing. */
  S3_FORCE_PATH_STYLE: z.optional(z.enum(['true', 'false'])),
});
export type Env = z.infer<typeof envSchema>;

let parsed: Env | undefined;

export function env(): Env {
  if (!parsed) {
    const result = envSchema.safeParse(process.env);
    if (!result.success) {
      throw new Error(`Invalid environment: ${z.prettifyError(result.error)}`);
    }
    parsed = result.data;
  }
  return parsed;
}

export function requireEnv<K extends keyof Env>(name: K): NonNullable<Env[K]> {
  const value = env()[name];
  if (value === undefined) throw new Error(`Missing environment variable ${name}`);
  return value as NonNullable<Env[K]>;
}

/** Tests that change process.env call this to re-parse it. */
export function resetEnvForTests(): void {
  parsed = undefined;
}
