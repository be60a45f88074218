import { build as esbuild, type Metafile } from 'esbuild';
import { esbuildOptions } from '../lib/lambda-bundles';
import { layerPackagesOf } from '../lib/package-layer';

/**
 * Bundles `entry` as the app bundles a Lambda (lib/lambda-bundles.ts): minified ESM for Lambda's
 * Node, the packages of the function's layer (`layerOf`) left out.
 */
export async function bundleLikeLambda(entry: string, outfile: string, layerOf: string): Promise<Metafile> {
  // Shipped in a Lambda layer, not in the bundle (lib/package-layer.ts).
  const result = await esbuild({ ...esbuildOptions(layerPackagesOf[layerOf] ?? []), entryPoints: [entry], outfile, metafile: true });
  return result.metafile;
}

/**
 * What a bundle is made of (issue 29, item 5), from esbuild's metafile: its bytes by package
 * (node_modules/<name>, scoped names whole) or, for the app's own code, by folder (functions/core,
 * shared/schemas ...), largest first.
 */
export function bundleParts(metafile: Metafile): { name: string; bytes: number }[] {
  const output = Object.values(metafile.outputs).find((candidate) => candidate.entryPoint);
  if (!output) return [];
  const parts = new Map<string, number>();
  for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const name = inPackage ? inPackage[1]! : file.replace(/^(\.\.\/)+/, '').split('/').slice(0, 2).join('/');
    parts.set(name, (parts.get(name) ?? 0) + bytesInOutput);
  }
  return [...parts].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}
