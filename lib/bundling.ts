import path from 'node:path';

/**
 * esbuild settings of every Lambda bundle, shared by the CDK function construct and
 * `npm run bench` (which measures the same bundles).
 */
export const lambdaBundling = {
  target: 'node24',
  /** Prefer the ESM builds of dependencies (better tree shaking). */
  mainFields: ['module', 'main'],
  /** CommonJS dependencies still call require(); give the ESM bundle one. */
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  /** See functions/core/lambda-credentials.ts. */
  alias: {
    '@aws-sdk/credential-provider-node': path.resolve(import.meta.dirname, '..', 'functions', 'core', 'lambda-credentials.ts'),
  },
} as const;
