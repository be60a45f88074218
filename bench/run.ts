/**
 * `npm run bench`: prints the figures the issues ask for. Measures, never asserts.
 *  1. Lambda bundles: minified size and cold import time of each route group and worker,
 *     bundled with the same esbuild options as lib/constructs/app-function.ts, and what each is made
 *     of (its largest packages or app folders, from esbuild's metafile).
 *  2. Web app: gzip size of the JS the signed-out landing page loads first.
 *  3. Local stack: `npm start` from a stopped state to the app answering, then Ctrl-C and a
 *     check that no emulator process is left behind.
 *  4. Password generation rate and CSV parsing time (bench/generation.ts).
 *  5. Bulk creation, search and worker memory against the local stack (bench/bulk.ts).
 *  7. Provisioning of 10,000 accounts to real SCIM servers beside a bare client (bench/provisioning.ts).
 *  8. Credential e-mails: 10,000 to the SES emulator beside a bare SendEmail loop, pacing at
 *     14/s, redelivery and suppression (bench/mail.ts).
 *  9. GET /api/analytics p95 for a user with 100 accounts and one with 1,000,000 (bench/analytics.ts:
 *     the large user's counters are written as the bulk path writes them, said in the output).
 * 10. Fair bulk queue: a 100-row uploaded (queued) job, a 100-row creation answered at once and a
 *     1,500-row job while another user's 250,000-row uploaded job runs, beside the same on an
 *     idle stack, and the ratios (bench/fair.ts).
 * 11. 250,000 rows uploaded to S3 and created, beside a bare BatchWrite (bench/upload.ts; port offset 12500).
 * 12. `lifecycle`: issue 27's three figures (bench/lifecycle.ts), each of its parts in a process of
 *     its own (each starts a local stack; see bench/own-process.ts), also runnable alone:
 *     `add-people`: adding 100 people to a project of 50,000 beside creating a project of 100, ratio <= 1.2x
 *       (bench/add-people.ts: the 50,000 are written into the table, said in the output; port offset 35000);
 *     `project-delete`: deleting a project of 50,000 accounts (no platform) beside a bare BatchWrite delete of
 *       its items, <= 1.5x, and the peak RSS of the process running its chunks, < 256 MB
 *       (bench/project-deletion.ts; port offset 37500);
 *     `actions`: deactivating 10,000 provisioned accounts on a SCIM server beside a bare client's PATCHes at the
 *       same concurrency, <= 1.25x, 0 accounts left in a wrong state (bench/account-actions.ts; port offset 35000).
 *  6. Exports of 100,000 accounts to csv and xlsx by the export worker's Lambda bundle beside a bare
 *     paged Query, and the synchronous project CSV download of a project at its 10,000-account cap
 *     (bench/exports.ts: peak RSS, heap and CPU time of each, in a process of its own).
 * 14. The Account Database's filtered pages (GET /api/accounts): p95 at 1,000 accounts against a large
 *     user (DIRECTORY_BENCH_ACCOUNTS, default 200,000, written into the table: said in the output),
 *     and the items a page reads (bench/directory.ts, part `directory`; port offset 22500).
 * 15. Many customers at once (bench/tenants.ts, part `tenants`; port offset 47500): TENANTS (10)
 *     customers x PEOPLE (2,000), each with its own SCIM directory, imported, provisioned and
 *     e-mailed together; per customer the times, slowest over fastest, a small customer beside a
 *     large one against alone, lost and duplicated accounts and e-mails (docs/capacity.md).
 * 16. `sync`: a 50,000-person file synced into a 50,000-account project (1% new, changed, missing): the
 *     preview against a bare paged Query of the project plus the file's read, <= 1.5x and < 30 s, and
 *     the items the apply writes (bench/sync.ts, written into the table: said in the output; port offset 52500).
 * 17. `bulk-request`: the bulk API function's largest JSON request (50,000 rows gzipped) in the bundled handler, in a
 *     process of its own: peak RSS, CPU time and AWS requests against its memory and timeout (bench/bulk-request.ts; port offset 40000).
 * Each part runs on its own (bench/sections.ts): one that fails is reported as
 * `FAILED: <part>: <reason>`, the others still run, and the exit code is 1 if any failed.
 * Ports: offsets 30000 (start), 40000 (bulk), 45000 (exports) 25000 (provisioning), 50000 (mail), 35000 (analytics,
 * add-people, actions), 37500 (project-delete), 12500 (upload), 15000 (fair) and 52500 (sync), plus TEST_PORT_SHIFT (bench/ports.ts).
 */
import '../bin/local/log-level';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { bundleLikeLambda, bundleParts } from './lambda-bundle';
import { build as viteBuild } from 'vite';
import { queues, routeGroups } from '../shared/routes';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { bulkBench } from './bulk';
import { tenantsBench } from './tenants';
import { exportsBench } from './exports';
import { generationBench } from './generation';
import { provisioningBench } from './provisioning';
import { mailBench } from './mail';
import { analyticsBench } from './analytics';
import { fairBench } from './fair';
import { uploadBench } from './upload';
import { addPeopleBench } from './add-people';
import { lifecycleBench, lifecycleParts } from './lifecycle';
import { inOwnProcess } from './own-process';
import { projectDeletionBench } from './project-deletion';
import { accountActionsBench } from './account-actions';
import { directoryBench } from './directory';
import { syncBench } from './sync';
import { bulkRequestBench } from './bulk-request';
import { benchPortShift as portShift } from './ports';
import { runSections } from './sections';
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
  console.log(`  machine load (1/5/15 min): ${os.loadavg().map((load) => load.toFixed(1)).join(' / ')} on ${os.availableParallelism()} cores`);
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
    PROVISIONING_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/p',
    EXPORT_BUCKET: 'exports',
    SES_FROM_ADDRESS: 'a@example.com',
    ACCOUNT_DELETION_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/d',
    BULK_UPLOADS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/u',
    APP_URL: 'https://app.example.com',
    USER_POOL_ID: 'us-east-1_bench',
    USER_POOL_CLIENT_ID: 'bench',
    AWS_REGION: 'us-east-1',
  };
  for (const { name, entry } of entries) {
    const outfile = path.join(out, `${name}.mjs`);
    const metafile = await bundleLikeLambda(path.join(projectRoot, entry), outfile, name);
    const size = fs.statSync(outfile).size;
    const times: number[] = [];
    // The import's CPU time beside its wall time: on a busy machine the wall time waits for a core, the CPU time much less so.
    const cpuTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const result = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `const t = performance.now(), c = process.cpuUsage(); await import(${JSON.stringify(outfile)}); const u = process.cpuUsage(c); console.log(performance.now() - t, (u.user + u.system) / 1000);`],
        { env, encoding: 'utf8' },
      );
      if (result.status !== 0) throw new Error(`${name}: import failed\n${result.stderr.slice(-800)}`);
      const [wall, cpu] = result.stdout.trim().split(' ').map(Number);
      times.push(wall!);
      cpuTimes.push(cpu!);
    }
    const layer = layerPackagesOf[name];
    if (layer) {
      const bytes = [...dependencyClosure(layer).values()].reduce((sum, dir) => sum + directorySize(dir), 0);
      console.log(`  ${name}: ${layer.join(', ')} in a layer, ${(bytes / 1048576).toFixed(1)} MB unzipped`);
    }
    console.log(
      `  ${name.padEnd(14)} ${kb(size).padStart(10)}${size > 500 * 1024 ? ' (over 500 KB)' : ''}   cold import median ${median(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}), CPU median ${median(cpuTimes).toFixed(0)} ms`,
    );
    // What it is made of: the largest packages (or the app's own folders), from esbuild's metafile.
    console.log(`      largest: ${bundleParts(metafile).slice(0, 6).map((part) => `${part.name} ${kb(part.bytes)}`).join(', ')}`);
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

/** Stops a started `npm start` as Ctrl-C does, and waits (at most 15 s, then SIGKILL) until it has gone. */
async function stopStart(child: ChildProcess, exited: Promise<unknown>) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const gone = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 15_000))]);
  if (!gone) {
    child.kill('SIGKILL');
    await exited;
    throw new Error('did not stop within 15 s of Ctrl-C (killed)');
  }
}

async function localStackStart() {
  console.log('\n== `npm start` from a stopped state to the app answering (target < 20 s)');
  const offset = 30_000 + portShift;
  const ports = portsFromEnv({}, offset);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-start');
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const run of ['first start (empty data folder)', 'second start (existing data)']) {
    const began = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      cwd: projectRoot,
      env: { ...process.env, LOCAL_PORT_OFFSET: String(offset), LOCAL_DATA_DIR: dataDir, LOG_REQUESTS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Listening from the spawn on: a start that fails exits before anyone would wait for it.
    let output = '';
    let exitedEarly: number | string | null | undefined;
    const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    void exited.then((code) => (exitedEarly = code));
    // The stack says when it listens. Probing the app port before that would be a mistake: it is
    // in the ephemeral range, and a probe can connect to itself and take the port from the stack
    // (which then exits with EADDRINUSE: the start that once "did not answer within 60 s").
    const ready = new Promise<void>((resolve) => {
      const keep = (data: Buffer) => {
        output = (output + data.toString()).slice(-3000);
        if (output.includes('BulkOnboard is running locally')) resolve();
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
    });
    const outcome = await Promise.race([
      ready.then(() => 'ready' as const),
      exited.then(() => 'exited' as const),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000).unref()),
    ]);
    const answered = outcome === 'ready' && (await fetch(`http://127.0.0.1:${ports.app}/`)).ok;
    const seconds = (performance.now() - began) / 1000;
    if (!answered) {
      await stopStart(child, exited).catch(() => undefined);
      const why =
        outcome === 'exited' ? `exited (${exitedEarly}) before answering` : outcome === 'timeout' ? 'did not answer within 60 s' : 'answered GET / with an error';
      throw new Error(`${run}: npm start ${why}\nIts last output:\n${output.trim().split('\n').slice(-15).join('\n')}`);
    }
    console.log(`  ${run}: ${seconds.toFixed(1)} s`);
    await stopStart(child, exited);
    const leftovers = spawnSync('pgrep', ['-f', `${dataDir}`], { encoding: 'utf8' }).stdout.trim();
    console.log(`  after Ctrl-C: ${leftovers ? `LEFTOVER processes ${leftovers.replace(/\n/g, ' ')}` : 'no emulator process left'}`);
  }
}

// `npm run bench -- lambdas web start` runs only the named parts.
const parts = { lambdas: lambdaBundles, web: webFirstScreen, start: localStackStart, generation: generationBench, bulk: bulkBench, exports: exportsBench, provisioning: provisioningBench, mail: mailBench, analytics: analyticsBench, fair: fairBench, upload: uploadBench, lifecycle: lifecycleBench, 'add-people': addPeopleBench, 'project-delete': projectDeletionBench, actions: accountActionsBench, directory: directoryBench, tenants: tenantsBench, sync: syncBench, 'bulk-request': bulkRequestBench };
const named = process.argv.slice(2);
const unknown = named.filter((a) => !(a in parts));
if (unknown.length) {
  console.error(`Unknown bench part: ${unknown.join(', ')}. The parts: ${Object.keys(parts).join(', ')}.`);
  process.exit(2);
}
// The whole bench runs each of lifecycle's parts once, inside lifecycle.
const grouped = new Set<string>(lifecycleParts.map((part) => part.name));
const chosen = (named.length ? named : Object.keys(parts).filter((name) => !grouped.has(name))) as (keyof typeof parts)[];
// Several parts: each in a process of its own (bench/own-process.ts); a part that fails (or dies) is reported as failed and the next one runs.
const failures = await runSections(chosen.map((name) => ({ name, run: chosen.length > 1 ? inOwnProcess(name) : parts[name] })));
// A failed part may leave servers behind in this process (they would keep it running): end here.
process.exit(failures.length ? 1 : 0);
