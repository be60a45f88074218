import { z } from 'zod';

/**
 * Process environment, parsed once at cold start. Each function receives only the variables of
 * the resources it may touch (see groupAccess in shared/routes.ts), so resource variables are
 * optional here and `requireEnv` fails loudly when a function uses one it was not given.
 */
const envSchema = z.object({
  TABLE_NAME: z.string().min(1).optional(),
  EXPORT_BUCKET: z.string().min(1).optional(),
  MAIL_QUEUE_URL: z.string().url().optional(),
  BULK_QUEUE_URL: z.string().url().optional(),
  EXPORTS_QUEUE_URL: z.string().url().optional(),
  SES_FROM_ADDRESS: z.string().email().optional(),
  SES_CONFIGURATION_SET: z.string().min(1).optional(),
  USER_POOL_ID: z.string().min(1).optional(),
  USER_POOL_CLIENT_ID: z.string().min(1).optional(),
  /** Public URL of the web app, used in e-mails. */
  APP_URL: z.string().url().optional(),
  /** Local emulators only: s3rver needs path-style addressing. */
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).optional(),
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
