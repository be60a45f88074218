import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { projectRoot } from './settings';

/**
 * Packages too large to bundle into a function (exceljs is ~1 MB minified with its dependencies)
 * ship in a Lambda layer instead, so every function bundle stays small. Functions load them with
 * `createRequire(import.meta.url)(name)`, which resolves through Lambda's NODE_PATH
 * (/opt/nodejs/node_modules). The layer is assembled from the project's own node_modules at synth
 * time: no network, versions pinned by package-lock.json.
 */
export const layerPackagesOf: Readonly<Record<string, readonly string[]>> = {
  // archiver: the zip of Export All Data and of an xlsx export (functions/exports/zip-output.ts).
  'export-worker': ['archiver'],
  billing: ['stripe'],
  // Ends the deleted user's Stripe subscription and customer (functions/billing/stripe-billing.ts).
  'account-deletion-worker': ['stripe'],
  'email-templates': ['sanitize-html'],
  // The shared renderer of credential e-mails: the stored-template allow-list and the text part.
  'mail-worker': ['sanitize-html', 'html-to-text'],
  // The directory client, loaded on the first LDAP call only (functions/core/ldapts.ts): the
  // connection test and the dry run (the integrations function), LDAP/AD provisioning (the worker).
  integrations: ['ldapts'],
  'provisioning-worker': ['ldapts'],
};

/** The package and every package it depends on, as installed under node_modules. */
export function dependencyClosure(packages: readonly string[], root = projectRoot): Map<string, string> {
  const found = new Map<string, string>();
  const locate = (name: string, from: string): string => {
    for (let dir = from; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
      if (dir === path.dirname(dir) || dir === path.dirname(root)) throw new Error(`${name} is not installed (npm ci)`);
    }
  };
  const visit = (name: string, from: string) => {
    const dir = locate(name, from);
    const key = path.relative(root, dir);
    if (found.has(key)) return;
    found.set(key, dir);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency, dir);
  };
  for (const name of packages) visit(name, root);
  return found;
}

/**
 * The layer's files are copied by the asset's local bundling straight into the cloud assembly
 * (nodejs/node_modules/...), only when the stack is bundled: no staging folder in the temp
 * directory, nothing copied for a synth that skips bundling. Its hash is the packages' names and
 * versions, so an unchanged layer is not copied again into the same assembly.
 */
export class PackageLayer extends Construct {
  readonly layer: LayerVersion;

  constructor(scope: Construct, id: string, props: { packages: readonly string[]; description: string }) {
    super(scope, id);
    const closure = dependencyClosure(props.packages);
    const versions = [...closure]
      .map(([relative, dir]) => `${relative}@${(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? ''}`)
      .sort();
    this.layer = new LayerVersion(this, 'Layer', {
      code: Code.fromAsset(path.join(projectRoot, 'node_modules'), {
        assetHashType: AssetHashType.CUSTOM,
        assetHash: createHash('sha256').update(versions.join('\n')).digest('hex'),
        bundling: {
          image: DockerImage.fromRegistry('copy-in-process'),
          command: ['copy', ...props.packages],
          local: {
            tryBundle(outputDir) {
              for (const [relative, dir] of closure) {
                fs.cpSync(dir, path.join(outputDir, 'nodejs', relative), { recursive: true, dereference: true });
              }
              return true;
            },
          },
        },
      }),
      compatibleRuntimes: [Runtime.NODEJS_24_X],
      compatibleArchitectures: [Architecture.ARM_64],
      description: props.description,
    });
  }
}
