/**
 * Exports against the local stack (DynamoDB Local in memory, s3rver): BENCH_EXPORT_ROWS (100,000)
 * accounts of one Pro user, exported to csv and to xlsx by the export worker's own handler; its
 * wall time and its CPU time (stretched to the vCPU share of the worker's memory) are compared with
 * the worker's timeout. Each measurement runs in a child process of its own with the worker's
 * Lambda bundle (bench/export-process.ts, bundled as the export worker is, run with plain `node`),
 * so its peak RSS is what the worker's Lambda holds, not tsx's. Times are printed beside a bare
 * paged Query of the same rows (same page size) in the same run: the emulator sets the floor, the
 * ratio is the figure. Last, the synchronous project download (GET /api/projects/{id}/export) of
 * a project at its cap, SYNC_EXPORT_MAX_ACCOUNTS (a larger one is refused and sent to the Export
 * Center; docs/deploy.md). BENCH_EXPORT_ONLY narrows the run (e.g. `xlsx`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleLikeLambda } from './lambda-bundle';
import type { ExportMeasurement } from './export-process';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
/** BENCH_EXPORT_ONLY=xlsx (or csv, sync, comma-separated): measure only those; all three by default. */
const ONLY = new Set((process.env.BENCH_EXPORT_ONLY ?? 'csv,xlsx,sync').split(',').map((part) => part.trim()));

type Mode = 'seed' | 'query' | 'csv' | 'xlsx' | 'sync';

/** Async spawn: s3rver runs in this process, so its event loop must keep turning while the child works. */
async function measure(bundle: string, mode: Mode): Promise<ExportMeasurement> {
  // The measured children get the heap a 256 MB Lambda would give (Node sizes it from the memory
  // limit there); without a limit, Node grows the heap lazily and RSS says little about the need.
  const heap = mode === 'seed' ? [] : ['--max-old-space-size=160'];
  const child = spawn(process.execPath, [...heap, bundle], {
    cwd: path.dirname(bundle),
    // The handler is given 30 minutes: on a busy machine DynamoDB Local's pace sets the wall time (the worker's CPU time is compared with its timeout below).
    env: { ...process.env, BENCH_EXPORT_CHILD: mode, BENCH_EXPORT_ROWS: String(ROWS), BENCH_EXPORT_TIME_MS: String(30 * 60_000) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await new Promise((resolve) => child.on('close', resolve));
  try {
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ExportMeasurement;
  } catch {
    throw new Error(`export bench child (${mode}) failed: ${stderr.slice(-1000)}`);
  }
}

const memory = (m: ExportMeasurement) => `peak RSS ${m.peakMb} MB (${m.importedMb} MB once loaded; V8 heap used at most ${m.peakHeapUsedMb} MB, outside it ${m.peakExternalMb} MB)`;

export async function exportsBench(): Promise<void> {
  const { portsFromEnv, projectRoot } = await import('../bin/local/settings');
  const { startLocalStack } = await import('../bin/local/stack');
  const { benchOffset } = await import('./ports');
  const { SYNC_EXPORT_MAX_ACCOUNTS } = await import('../shared/schemas/project');
  const { queues } = await import('../shared/routes');
  const { workerMemorySize, workerTimeout } = await import('../lib/stateless-stack');
  const timeoutMs = workerTimeout(queues.find((queue) => queue.name === 'exports')!).toMilliseconds();
  console.log(
    `\n== Exports against the local stack: ${ROWS.toLocaleString('en-US')} accounts to csv and xlsx by the worker's Lambda bundle ` +
      `(targets: < 3x and < 6x a bare paged Query, inside the worker's ${timeoutMs / 1000} s, peak RSS < 256 MB)`,
  );
  const load = () => os.loadavg().map((value) => value.toFixed(1)).join(' / ');
  console.log(`  machine load (1/5/15 min) at the start: ${load()}`);
  const bundle = path.join(projectRoot, 'bench', 'out', 'export-process.mjs');
  await bundleLikeLambda(path.join(projectRoot, 'bench', 'export-process.ts'), bundle, 'export-worker');
  const dataDir = path.join(projectRoot, '.test-data', 'bench-exports');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(45_000)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    // Every measurement, seeding too, runs in a fresh child: no client or key cached from another stack of this process.
    const seeded = await measure(bundle, 'seed');
    console.log(`  seeded ${seeded.rows.toLocaleString('en-US')} accounts in ${(seeded.ms / 1000).toFixed(1)} s`);

    await measure(bundle, 'query'); // warm DynamoDB Local's JVM on the partition
    const query = await measure(bundle, 'query');
    console.log(`  bare paged Query (Limit 1000, as the worker): ${(query.ms / 1000).toFixed(2)} s (CPU ${(query.cpuMs / 1000).toFixed(1)} s) for ${query.rows.toLocaleString('en-US')} rows (child ${memory(query)})`);
    for (const [format, target] of [['csv', 3], ['xlsx', 6]] as const) {
      if (!ONLY.has(format)) continue;
      const result = await measure(bundle, format);
      const ratio = result.ms / query.ms;
      // Lambda gives a function CPU in proportion to its memory (one vCPU at 1,769 MB): the worker's own CPU time, stretched to its share, bounds its time on AWS.
      const lambdaCpuS = result.cpuMs / 1000 / (workerMemorySize / 1769);
      console.log(
        `  ${format.padEnd(4)} export: ${(result.ms / 1000).toFixed(2)} s (${((result.ms / timeoutMs) * 100).toFixed(0)}% of the worker's timeout), ${result.rows.toLocaleString('en-US')} rows, ` +
          `CPU ${(result.cpuMs / 1000).toFixed(1)} s (at ${workerMemorySize} MB's share of a vCPU about ${lambdaCpuS.toFixed(0)} s, ${((lambdaCpuS * 1000 / timeoutMs) * 100).toFixed(0)}% of the timeout), ` +
          `${((result.sizeBytes ?? 0) / 1048576).toFixed(1)} MB, status ${result.status}${result.error ? ` (${result.error})` : ''}; ratio ${ratio.toFixed(2)}x (target < ${target}x); ` +
          `worker ${memory(result)}; target < 256 MB`,
      );
    }
    const sync = ONLY.has('sync') ? await measure(bundle, 'sync') : undefined;
    if (sync) console.log(
      `  sync CSV (GET /api/projects/{id}/export, 10 s Lambda) at its cap of ${SYNC_EXPORT_MAX_ACCOUNTS.toLocaleString('en-US')} accounts (larger projects go to the Export Center): ` +
        `${(sync.ms / 1000).toFixed(2)} s for ${sync.rows.toLocaleString('en-US')} rows (${((sync.ms / sync.rows) * 1000).toFixed(0)} ms per 1,000, of which the bare Query ` +
        `${((query.ms / query.rows) * 1000).toFixed(0)} ms), response ${(sync.sizeBytes! / 1048576).toFixed(1)} MB gzipped+base64 (limit 6 MB); ${memory(sync)}; target < 256 MB`,
    );
    console.log(`  machine load (1/5/15 min) at the end: ${load()}`);
  } finally {
    await stack.stop();
  }
}
