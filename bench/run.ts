/**
 * `npm run bench`: prints the figures the issues ask for. Measures, never asserts.
 *  1. Lambda bundles: minified size and cold import time of each route group and worker,
 *     bundled with the same esbuild options as lib/constructs/app-function.ts.
 *  2. Web app: gzip size of the JS the signed-out landing page loads first.
 *  3. Local stack: `npm start` from a stopped state to the app answering, then Ctrl-C and a
 *     check that no emulator process is left behind.
 *  4. Password generation rate and CSV parsing time (bench/generation.ts).
 *  5. Bulk creation, search and worker memory against the local stack (bench/bulk.ts).
 *  6. Exports of 100,000 accounts to csv and xlsx beside a bare paged Query (bench/exports.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build as esbuild } from 'esbuild';
import { build as viteBuild } from 'vite';
import { queues, routeGroups } from '../shared/routes';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { bulkBench } from './bulk';
import { exportsBench } from './exports';
import { generationBench } from './generation';
import { lambdaBundling } from '../lib/bundling';
import { dependencyClosure, layerPackagesOf } from '../lib/package-layer';

const out = path.join(projectRoot, 'bench', 'out');
fs.mkdirSync(out, { recursive: true });
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const directorySize = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? directorySize(full) : entry.isFile() ? fs.statSync(full).size : 0);
  }, 0);

async function lambdaBundles() {
  console.log('\n== Lambda bundles (minified ESM, AWS SDK bundled; targets: < 500 KB, cold import < 150 ms)');
  const entries = [
    ...routeGroups.map((g) => ({ name: g, entry: `functions/${g}/handler.ts` })),
    ...queues.flatMap((q) => [q.worker, q.deadLetterWorker].flatMap((w) => (w ? [{ name: w, entry: `functions/workers/${w}.ts` }] : []))),
  ];
  const env = {
    ...process.env,
    TABLE_NAME: 't',
    MAIL_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/q',
    BULK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/b',
    EXPORTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/e',
    EXPORT_BUCKET: 'exports',
    SES_FROM_ADDRESS: 'a@example.com',
    AWS_REGION: 'us-east-1',
  };
  for (const { name, entry } of entries) {
    const outfile = path.join(out, `${name}.mjs`);
    await esbuild({
      entryPoints: [path.join(projectRoot, entry)],
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
      external: [...(layerPackagesOf[name] ?? [])],
      logLevel: 'error',
    });
    const size = fs.statSync(outfile).size;
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const result = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(outfile)}); console.log(performance.now() - t);`],
        { env, encoding: 'utf8' },
      );
      if (result.status !== 0) throw new Error(`${name}: import failed\n${result.stderr.slice(-800)}`);
      times.push(Number(result.stdout.trim()));
    }
    const layer = layerPackagesOf[name];
    if (layer) {
      const bytes = [...dependencyClosure(layer).values()].reduce((sum, dir) => sum + directorySize(dir), 0);
      console.log(`  ${name}: ${layer.join(', ')} in a layer, ${(bytes / 1048576).toFixed(1)} MB unzipped`);
    }
    console.log(`  ${name.padEnd(14)} ${kb(size).padStart(10)}   cold import median ${median(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})`);
  }
}

async function webFirstScreen() {
  console.log('\n== Web app first screen (signed-out landing; target < 200 KB gzip)');
  await viteBuild({ configFile: path.join(projectRoot, 'frontend', 'vite.config.ts'), logLevel: 'error' });
  const dist = path.join(projectRoot, 'frontend', 'dist');
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const gzip = (file: string) => zlib.gzipSync(fs.readFileSync(path.join(dist, file))).length;
  let total = 0;
  for (const file of initial) {
    total += gzip(file);
    console.log(`  ${file.padEnd(50)} ${kb(gzip(file))} gzip`);
  }
  console.log(`  entry scripts and modulepreloads from index.html: ${kb(total)} gzip`);
  const all = fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js'));
  const everything = all.reduce((sum, f) => sum + gzip(`assets/${f}`), 0);
  console.log(`  all JS chunks (lazy routes included): ${all.length} files, ${kb(everything)} gzip`);
}

async function localStackStart() {
  console.log('\n== `npm start` from a stopped state to the app answering (target < 20 s)');
  const ports = portsFromEnv({}, 30_000);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-start');
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const run of ['first start (empty data folder)', 'second start (existing data)']) {
    const began = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      cwd: projectRoot,
      env: { ...process.env, LOCAL_PORT_OFFSET: '30000', LOCAL_DATA_DIR: dataDir, LOG_REQUESTS: 'false' },
      stdio: 'ignore',
    });
    let answered = false;
    while (performance.now() - began < 60_000) {
      try {
        const response = await fetch(`http://127.0.0.1:${ports.app}/`);
        if (response.ok) {
          answered = true;
          break;
        }
      } catch {
        // not yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - began) / 1000;
    console.log(`  ${run}: ${answered ? `${seconds.toFixed(1)} s` : 'did not answer within 60 s'}`);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
    const leftovers = spawnSync('pgrep', ['-f', `${dataDir}`], { encoding: 'utf8' }).stdout.trim();
    console.log(`  after Ctrl-C: ${leftovers ? `LEFTOVER processes ${leftovers.replace(/\n/g, ' ')}` : 'no emulator process left'}`);
  }
}

// `npm run bench -- lambdas web start` runs only the named parts.
const parts = { lambdas: lambdaBundles, web: webFirstScreen, start: localStackStart, generation: generationBench, bulk: bulkBench, exports: exportsBench };
const chosen = process.argv.slice(2).filter((a): a is keyof typeof parts => a in parts);
for (const name of chosen.length ? chosen : (Object.keys(parts) as (keyof typeof parts)[])) await parts[name]();
