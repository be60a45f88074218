import { build as esbuild } from 'esbuild';
import { esbuildOptions } from '../lib/lambda-bundles';
import { layerPackagesOf } from '../lib/package-layer';

/**
 * Bundles `entry` as the app bundles a Lambda (lib/lambda-bundles.ts): minified ESM for Lambda's
 * Node, the packages of the function's layer (`layerOf`) left out.
 */
export async function bundleLikeLambda(entry: string, outfile: string, layerOf: string): Promise<void> {
  // Shipped in a Lambda layer, not in the bundle (lib/package-layer.ts).
  await esbuild({ ...esbuildOptions(layerPackagesOf[layerOf] ?? []), entryPoints: [entry], outfile });
}
