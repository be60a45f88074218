import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../lib/lambda-bundles';
import { layerPackagesOf } from '../../lib/package-layer';
import { projectRoot } from '../../lib/settings';

/** The files (packages' and the app's) with code in a function's Lambda bundle, from esbuild's metafile (a file tree-shaken away has none). */
async function bundledInputs(name: string, entry: string): Promise<string[]> {
  const result = await build({
    ...esbuildOptions(layerPackagesOf[name] ?? []),
    entryPoints: [path.join(projectRoot, entry)],
    outfile: path.join(projectRoot, 'cdk.out', 'bundle-contents-test', `${name}.mjs`),
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
    expect(inputs.filter((file) => /node_modules\/@aws-sdk\/s3-presigned-post\/|functions\/bulk\/upload-objects\.ts/.test(file))).toEqual([]);
  });

  it("the account deletion worker bundles zod/mini only, not zod's classic API: the security settings it reads are a zod/mini schema", async () => {
    const inputs = await bundledInputs('account-deletion-worker', 'functions/workers/account-deletion-worker.ts');
    expect(inputs.some((file) => file.includes('node_modules/zod/v4/mini/'))).toBe(true);
    expect(inputs.filter((file) => file.includes('node_modules/zod/v4/classic/'))).toEqual([]);
  });
});
