import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias set in
 * lib/bundling.ts). Lambda hands every function its role's credentials in environment variables;
 * the SDK's full default chain (profiles, SSO, web identity, instance metadata) is ~80 KB of
 * dead weight there. The local stack runs the handlers unbundled, with the full chain.
 */
export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
