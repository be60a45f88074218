import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
  'export-worker': ['exceljs'],
  billing: ['stripe'],
  // Ends the deleted user's Stripe subscription and customer (functions/billing/stripe-billing.ts).
  'account-deletion-worker': ['stripe'],
  'email-templates': ['sanitize-html'],
  // The shared renderer of credential e-mails: the stored-template allow-list and the text part.
  'mail-worker': ['sanitize-html', 'html-to-text'],
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
 * Staging folders of this process's layers: the CDK reads them when the app is synthesized (after
 * the constructor), so they are removed when the process exits, not before. Without this every
 * synth (each infra test, each deploy) left a 55 MB folder in the temp directory.
 */
const stagingFolders = new Set<string>();
let cleanupRegistered = false;
function stagingFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layer-'));
  stagingFolders.add(dir);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.once('exit', () => {
      for (const folder of stagingFolders) fs.rmSync(folder, { recursive: true, force: true });
    });
  }
  return dir;
}

export class PackageLayer extends Construct {
  readonly layer: LayerVersion;

  constructor(scope: Construct, id: string, props: { packages: readonly string[]; description: string }) {
    super(scope, id);
    const staging = stagingFolder();
    for (const [relative, dir] of dependencyClosure(props.packages)) {
      fs.cpSync(dir, path.join(staging, 'nodejs', relative), { recursive: true, dereference: true });
    }
    this.layer = new LayerVersion(this, 'Layer', {
      code: Code.fromAsset(staging),
      compatibleRuntimes: [Runtime.NODEJS_24_X],
      compatibleArchitectures: [Architecture.ARM_64],
      description: props.description,
    });
  }
}
