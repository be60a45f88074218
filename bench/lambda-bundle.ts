import { build as esbuild } from 'esbuild';
import { lambdaBundling } from '../lib/bundling';
import { layerPackagesOf } from '../lib/package-layer';

/**
 * Bundles `entry` as lib/constructs/app-function.ts bundles a Lambda (lib/bundling.ts): minified
 * ESM for Lambda's Node, the packages of the function's layer (`layerOf`) left out.
 */
export async function bundleLikeLambda(entry: string, outfile: string, layerOf: string): Promise<void> {
  await esbuild({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: lambdaBundling.target,
    mainFields: [...lambdaBundling.mainFields],
    banner: { js: lambdaBundling.banner },
    alias: { ...lambdaBundling.alias },
    // Shipped in a Lambda layer, not in the bundle (lib/package-layer.ts).
    external: [...(layerPackagesOf[layerOf] ?? [])],
    logLevel: 'error',
  });
}
