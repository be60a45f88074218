import fs from 'node:fs';
import path from 'node:path';
import { buildSync, type BuildOptions, type OutputFile } from 'esbuild';
import { queues, routeGroups, schedules } from '../shared/routes';
import { lambdaBundling } from './bundling';
import { layerPackagesOf } from './package-layer';
import { projectRoot } from './settings';

/**
 * Every Lambda bundle of the app is built here: one esbuild build over all the handlers that share
 * a set of layer packages (five builds for the whole app instead of one esbuild process per
 * function), in memory, once per process. Each function's asset then takes its two files
 * (index.mjs and its source map) straight into the cloud assembly: no staging folder in the temp
 * directory, and the shared dependencies (the AWS SDK above all) are parsed once per build instead
 * of once per function. `cdk synth`, the infra tests and `npm run bench` all bundle through
 * `esbuildOptions`, so they measure and test what is deployed.
 */

/** The esbuild options of a Lambda bundle whose layer ships `external` (lib/package-layer.ts). */
export function esbuildOptions(external: readonly string[]): BuildOptions {
  return {
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: lambdaBundling.target,
    mainFields: [...lambdaBundling.mainFields],
    banner: { js: lambdaBundling.banner },
    alias: { ...lambdaBundling.alias },
    external: [...external],
    // File and line numbers are enough for stack traces; the sources stay out of the zip.
    sourcemap: true,
    sourcesContent: false,
    // No license comments gathered at the end of each bundle (~170 bytes each): the bundle is deployed, not distributed, and the licenses stay in node_modules.
    legalComments: 'none',
    // Bundle AWS SDK v3 instead of using the runtime's copy: versions are pinned by
    // package-lock.json and tree shaking keeps only the clients a handler imports.
    logLevel: 'error',
  };
}

export interface LambdaEntry {
  /** Handler file relative to the project root, exporting `handler`. */
  entry: string;
  /** Packages its layer ships, left out of the bundle. */
  external: readonly string[];
}

/**
 * Every handler the app deploys, named as lib/stateless-stack.ts and lib/stateful-stack.ts name
 * them. An AppFunction whose entry is not here is still bundled, alone (`lambdaBundle`).
 */
export function appLambdaEntries(): LambdaEntry[] {
  const workers = queues.flatMap((queue) => [queue.worker, queue.deadLetterWorker].filter((worker): worker is NonNullable<typeof worker> => !!worker));
  return [
    ...routeGroups.map((group) => ({ entry: `functions/${group}/handler.ts`, external: layerPackagesOf[group] ?? [] })),
    ...workers.map((worker) => ({ entry: `functions/workers/${worker}.ts`, external: layerPackagesOf[worker] ?? [] })),
    ...schedules.map((schedule) => ({ entry: `functions/schedules/${schedule.name}.ts`, external: [] })),
    { entry: 'functions/security/sign-in-trigger.ts', external: [] },
  ];
}

export interface LambdaBundle {
  /** index.mjs, ending in its sourceMappingURL comment. */
  code: Uint8Array;
  /** index.mjs.map */
  sourceMap: Uint8Array;
}

const externalKey = (external: readonly string[]) => [...external].sort().join(',');
/** Bundles by entry, per set of layer packages; filled one build at a time, kept for the process. */
const builtGroups = new Map<string, Map<string, LambdaBundle>>();

/** Outputs of one esbuild build of `entries` (all with the same `external`), by entry. */
function build(entries: readonly string[], external: readonly string[]): Map<string, LambdaBundle> {
  // Never written: outdir only places the outputs (and the source maps' paths) in memory.
  const outdir = path.join(projectRoot, 'cdk.out', 'lambda-bundles');
  const outName = (index: number) => `${index}/index`;
  const result = buildSync({
    ...esbuildOptions(external),
    entryPoints: entries.map((entry, index) => ({ in: path.join(projectRoot, entry), out: outName(index) })),
    outdir,
    outExtension: { '.js': '.mjs' },
    write: false,
  });
  const byPath = new Map<string, OutputFile>(result.outputFiles.map((file) => [path.relative(outdir, file.path), file]));
  const bundles = new Map<string, LambdaBundle>();
  entries.forEach((entry, index) => {
    const code = byPath.get(`${outName(index)}.mjs`);
    const sourceMap = byPath.get(`${outName(index)}.mjs.map`);
    if (!code || !sourceMap) throw new Error(`esbuild wrote no bundle for ${entry}`);
    bundles.set(entry, { code: code.contents, sourceMap: sourceMap.contents });
  });
  return bundles;
}

/**
 * The bundle of `entry`: built with every app entry of the same layer packages the first time one
 * of them is asked for, alone otherwise.
 */
export function lambdaBundle(entry: string, external: readonly string[]): LambdaBundle {
  const key = externalKey(external);
  const siblings = appLambdaEntries().filter((candidate) => externalKey(candidate.external) === key);
  if (!siblings.some((candidate) => candidate.entry === entry)) return build([entry], external).get(entry)!;
  let group = builtGroups.get(key);
  if (!group) {
    group = build(
      siblings.map((sibling) => sibling.entry),
      external,
    );
    builtGroups.set(key, group);
  }
  return group.get(entry)!;
}

/** Writes the bundle of `entry` into `outputDir` as index.mjs and index.mjs.map. */
export function writeLambdaBundle(entry: string, external: readonly string[], outputDir: string): void {
  const bundle = lambdaBundle(entry, external);
  fs.writeFileSync(path.join(outputDir, 'index.mjs'), bundle.code);
  fs.writeFileSync(path.join(outputDir, 'index.mjs.map'), bundle.sourceMap);
}
