import { createRequire } from 'node:module';
import type * as Ldapts from 'ldapts';

/**
 * ldapts (~55 KB minified) ships in the Lambda layer of the functions that talk to a directory
 * (lib/package-layer.ts: the integrations and provisioning API functions and the provisioning
 * worker), not in their bundles, and is loaded on the first LDAP call only: a function that never
 * calls a directory (most deliveries: SCIM, Okta, Graph, Salesforce) never loads it, and its cold
 * start does not either (issue 29, item 5). `require` resolves it through Lambda's NODE_PATH, and
 * through node_modules locally, as archiver in the export worker. `require` takes ldapts' CommonJS
 * build: an error class from its ESM build (a test's own `import`) is another class, so the
 * adapters' `instanceof` checks hold only for errors of clients made through `ldapts()`.
 */
let loaded: typeof Ldapts | undefined;
export const ldapts = (): typeof Ldapts => (loaded ??= createRequire(import.meta.url)('ldapts') as typeof Ldapts);
