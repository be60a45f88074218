import * as z from 'zod';

/**
 * Runtime configuration of the web app, served as /config.json by CloudFront (written at deploy
 * time) and by the local gateway (written by `npm start`). The browser reads it before anything.
 */
export const appConfigSchema = z.object({
  region: z.string().min(1),
  userPoolId: z.string().min(1),
  userPoolClientId: z.string().min(1),
  /** Set only for the local Cognito emulator; absent against AWS. */
  userPoolEndpoint: z.string().url().optional(),
  /**
   * The Cognito flow of sign-in: USER_PASSWORD_AUTH everywhere, used by the API's sign-in route
   * (POST /api/auth/sign-in, which counts failed attempts before Cognito is asked); the browser
   * no longer signs in against Cognito itself. USER_SRP_AUTH is still read from older configs.
   */
  authFlow: z.enum(['USER_SRP_AUTH', 'USER_PASSWORD_AUTH']),
  /** 'local' when served by `npm start`: the app may say where confirmation codes appear. */
  stage: z.enum(['local', 'aws']),
  /** Local mail viewer URL (local stage only). */
  mailViewerUrl: z.string().url().optional(),
});
export type AppConfig = z.infer<typeof appConfigSchema>;
