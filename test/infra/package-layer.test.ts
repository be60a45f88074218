import { describe, expect, it } from 'vitest';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { dependencyClosure, layerPackagesOf } from '../../lib/package-layer';
import { buildTestApp } from './synth-app';
import { build } from 'esbuild';
import path from 'node:path';
import { esbuildOptions } from '../../lib/lambda-bundles';
import { projectRoot } from '../../lib/settings';

describe('packages shipped in a layer', () => {
  it('takes a package with all its dependencies from node_modules', () => {
    const closure = [...dependencyClosure(['exceljs']).keys()];
    expect(closure).toContain('node_modules/exceljs');
    // exceljs's own archiver: nested under it since the app depends on a newer one (Export All Data).
    expect(closure.some((dir) => /(^|\/)node_modules\/archiver$/.test(dir))).toBe(true);
    expect(closure).toContain('node_modules/jszip');
  });

  it('gives each function that needs one a layer and keeps the package out of its bundle', () => {
    const { stateless } = buildTestApp({ skipBundling: true });
    const template = Template.fromStack(stateless);
    for (const [name, packages] of Object.entries(layerPackagesOf)) {
      template.hasResourceProperties('AWS::Lambda::LayerVersion', {
        Description: `${packages.join(', ')} for ${name}`,
        CompatibleRuntimes: ['nodejs24.x'],
        CompatibleArchitectures: ['arm64'],
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: Match.stringLikeRegexp(`-${name}$`),
        Layers: Match.arrayWith([Match.objectLike({ Ref: Match.stringLikeRegexp('Layer') })]),
      });
    }
  });

  it("keeps the export worker's zip and Excel packages out of its bundle (issue 29, item 5: archiver was a third of its 979 KB)", async () => {
    const result = await build({
      ...esbuildOptions(layerPackagesOf['export-worker'] ?? []),
      entryPoints: [path.join(projectRoot, 'functions', 'workers', 'export-worker.ts')],
      outfile: path.join(projectRoot, 'cdk.out', 'layer-test', 'export-worker.mjs'),
      write: false,
      metafile: true,
    });
    const bundled = Object.keys(result.metafile.inputs).filter((file) => /node_modules\/(archiver|exceljs|compress-commons|crc32-stream|zip-stream|lazystream|readdir-glob|tar-stream)\//.test(file));
    expect(bundled).toEqual([]);
    const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint)!;
    expect(output.bytes).toBeLessThan(700 * 1024);
  });
});
