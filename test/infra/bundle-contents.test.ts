import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { appLambdaEntries, esbuildOptions } from '../../lib/lambda-bundles';
import { layerPackagesOf } from '../../lib/package-layer';
import { projectRoot } from '../../lib/settings';

/** The files (packages' and the app's) with code in a function's Lambda bundle, from esbuild's metafile (a file tree-shaken away has none). */
async function bundledInputs(name: string, entry: string, external: readonly string[] = layerPackagesOf[name] ?? []): Promise<string[]> {
  const result = await build({
    ...esbuildOptions(external),
    entryPoints: [path.join(projectRoot, entry)],
    outfile: path.join(projectRoot, 'cdk.out', 'bundle-contents-test', `${name.replace(/[^a-z0-9-]/gi, '_')}.mjs`),
    write: false,
    metafile: true,
  });
  const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint)!;
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
}

// Issue 29, item 5: a function bundles only what it uses (npm run bench -- lambdas prints what each is made of).
describe('what a Lambda bundle holds', () => {
  it('the mail dead-letter worker bundles no SES client, renderer or link issuer: a given-up chunk sends nothing', async () => {
    const inputs = await bundledInputs('mail-dead-letter-worker', 'functions/workers/mail-dead-letter-worker.ts');
    expect(inputs.filter((file) => /node_modules\/@aws-sdk\/client-sesv2\/|functions\/mail\/(render-tools|credential-mailer)\.ts|functions\/credential-links\/issue-credential-link\.ts/.test(file))).toEqual([]);
  });

  it('the bulk-upload dead-letter worker only removes the failed upload: no upload form, size or read of the file', async () => {
    const inputs = await bundledInputs('bulk-upload-dead-letter-worker', 'functions/workers/bulk-upload-dead-letter-worker.ts');
    expect(inputs.filter((file) => /node_modules\/@aws-sdk\/s3-presigned-post\/|functions\/bulk\/upload-requests\.ts|node_modules\/@aws-sdk\/client-s3\//.test(file))).toEqual([]);
  });

  // The directory client ships in their layer and loads on the first LDAP call (functions/core/ldapts.ts).
  it.each([
    ['integrations', 'functions/integrations/handler.ts'],
    ['provisioning-worker', 'functions/workers/provisioning-worker.ts'],
  ])('%s bundles no ldapts: its layer ships it', async (name, entry) => {
    expect(layerPackagesOf[name]).toContain('ldapts');
    const inputs = await bundledInputs(name, entry);
    expect(inputs.filter((file) => file.includes('node_modules/ldapts/'))).toEqual([]);
    expect(inputs.some((file) => file.endsWith('functions/core/ldapts.ts'))).toBe(true);
  });

  // A worker learns its queues from shared/queues.ts, not from the route table and access lists beside them (~4 KB).
  it.each([
    ['provisioning-worker', 'functions/workers/provisioning-worker.ts'],
    ['bulk-worker', 'functions/workers/bulk-worker.ts'],
    ['export-worker', 'functions/workers/export-worker.ts'],
    ['mail-worker', 'functions/workers/mail-worker.ts'],
  ])('%s bundles no route table', async (name, entry) => {
    const inputs = await bundledInputs(name, entry);
    expect(inputs.filter((file) => file.endsWith('shared/routes.ts'))).toEqual([]);
  });

  // Only the integrations function (connection test, 'Check against platform') and the worker call a platform.
  it('the provisioning function carries no platform adapter, directory client or its layer', async () => {
    expect(layerPackagesOf.provisioning).toBeUndefined();
    const inputs = await bundledInputs('provisioning', 'functions/provisioning/handler.ts');
    expect(inputs.filter((file) => /functions\/provisioning\/(adapters\/|check-people\.ts)|functions\/core\/ldapts\.ts|node_modules\/ldapts\//.test(file))).toEqual([]);
  });

  // They hand out links, check an upload's size or remove it, or store an export file with one PUT: signed with SigV4 alone (functions/core/s3-links.ts), not by the S3 client.
  it.each([
    ['auth', 'functions/auth/handler.ts'],
    ['export-worker', 'functions/workers/export-worker.ts'],
    ['export-history', 'functions/export-history/handler.ts'],
    ['bulk', 'functions/bulk/handler.ts'],
    ['bulk-upload-dead-letter-worker', 'functions/workers/bulk-upload-dead-letter-worker.ts'],
    ['bulk-upload-worker', 'functions/workers/bulk-upload-worker.ts'],
  ])('%s signs its S3 calls without the S3 client', async (name, entry) => {
    const inputs = await bundledInputs(name, entry);
    expect(inputs.filter((file) => /node_modules\/@aws-sdk\/(client-s3|s3-request-presigner|s3-presigned-post|lib-storage)\//.test(file))).toEqual([]);
    expect(inputs.some((file) => file.endsWith('functions/core/s3-links.ts'))).toBe(true);
  });

  // The functions that parse nothing with zod's classic API: the schemas (and constants) they reach are
  // zod/mini or free of zod, which keeps ~55-75 KB of zod out of each (docs/deploy.md, "Function bundles").
  const miniOnly = [
    'functions/auth/handler.ts',
    'functions/user/handler.ts',
    'functions/integrations/handler.ts',
    'functions/billing/handler.ts',
    'functions/email-suppressions/handler.ts',
    'functions/export-history/handler.ts',
    'functions/mail-sends/handler.ts',
    'functions/security/handler.ts',
    'functions/subscription/handler.ts',
    'functions/security/sign-in-trigger.ts',
    'functions/schedules/project-expiry.ts',
    'functions/schedules/weekly-digest.ts',
    'functions/workers/account-deletion-worker.ts',
    'functions/workers/account-deletion-dead-letter-worker.ts',
    'functions/workers/bulk-upload-dead-letter-worker.ts',
    'functions/workers/export-dead-letter-worker.ts',
    'functions/workers/mail-worker.ts',
    'functions/workers/mail-dead-letter-worker.ts',
    'functions/workers/mail-events-worker.ts',
    'functions/workers/provisioning-worker.ts',
    'functions/workers/provisioning-dead-letter-worker.ts',
    'functions/workers/export-worker.ts',
    'functions/accounts/handler.ts',
    'functions/workers/bulk-upload-worker.ts',
    'functions/bulk/handler.ts',
    'functions/projects/handler.ts',
    'functions/exports/handler.ts',
    'functions/workers/bulk-worker.ts',
    'functions/workers/bulk-dead-letter-worker.ts',
    'functions/provisioning/handler.ts',
    'functions/email-templates/handler.ts',
    'functions/credential-links/handler.ts',
  ];
  it.each(miniOnly)("%s bundles no code of zod's classic API", async (entry) => {
    const { external } = appLambdaEntries().find((candidate) => candidate.entry === entry)!;
    const inputs = await bundledInputs(entry, entry, external);
    expect(inputs.filter((file) => file.includes('node_modules/zod/v4/classic/'))).toEqual([]);
  });

  it('an HTTP function bundles the public routes, not the route table: the HTTP layer reads publicRouteKeys only', async () => {
    const result = await build({ ...esbuildOptions([]), entryPoints: [path.join(projectRoot, 'functions/user/handler.ts')], write: false, outfile: path.join(projectRoot, 'cdk.out', 'bundle-contents-test', 'user-routes.mjs') });
    const code = new TextDecoder().decode(result.outputFiles.find((file) => file.path.endsWith('.mjs'))!.contents);
    expect(code).toContain('/api/auth/sign-in/totp');
    // A route of another group, which only the table holds.
    expect(code).not.toContain('/api/security/reset-passwords/');
  });
});
