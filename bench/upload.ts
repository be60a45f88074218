/**
 * 250,000 rows from upload to every account stored (the S3 path, docs/bulk-files.md), beside a
 * BatchWrite of 250,000 ready account items into the same DynamoDB Local in the same run.
 * Measures, never asserts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { bundleLikeLambda } from './lambda-bundle';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { benchOffset } from './ports';
import { startLocalStack } from '../bin/local/stack';
import { createTestUser } from '../test/support/cognito-users';
import { accountItem } from '../functions/accounts/account-item';
import { dynamoBulkStore } from '../functions/bulk/bulk-store';
import { aesGcmCipher, secretContext } from '../functions/core/encryption';
import { keys } from '../functions/core/keys';
import type { BulkJob } from '../shared/schemas/bulk';
import type { BulkUpload, BulkUploadForm } from '../shared/schemas/bulk-upload';

const ROWS = Number(process.env.BENCH_UPLOAD_ROWS ?? 250_000);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * bench/upload-worker-process.ts with the worker, bundled as lib/constructs/app-function.ts bundles
 * a Lambda (lib/bundling.ts): the child runs this bundle with plain `node`, as Lambda runs the
 * worker's, so its RSS is not tsx's (its esbuild transform and source maps cost Lambda nothing).
 */
async function bundledWorkerProcess(): Promise<string> {
  const outfile = path.join(projectRoot, 'bench', 'out', 'upload-worker-process.mjs');
  await bundleLikeLambda(path.join(projectRoot, 'bench', 'upload-worker-process.ts'), outfile, 'bulk-upload-worker');
  return outfile;
}

export async function uploadBench(): Promise<void> {
  console.log('\n== 250,000 rows uploaded to S3 and created (DynamoDB Local in memory)');
  const dataDir = path.join(projectRoot, '.test-data', 'bench-upload');
  fs.rmSync(dataDir, { recursive: true, force: true });
  // The upload worker runs in a process of its own (bench/upload-worker-process.ts), as on Lambda: its peak RSS is its own.
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(12_500)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined, externalWorkers: ['bulk-upload-worker'] });
  let worker: ChildProcess | undefined;
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const user = await createTestUser(stack.urls.cognito, stack.userPool);
    const api = async <T>(p: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${stack.urls.app}${p}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    await api('/api/auth/user');
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));
    await import('../functions/workers/bulk-worker');

    // The baseline: the same number of ready account items, by the same writer.
    const store = dynamoBulkStore(db, 'bulkonboard');
    const cipher = aesGcmCipher(randomBytes(32));
    const items = Array.from({ length: ROWS }, (_, i) =>
      accountItem({
        id: keys.accountId('baseline', i + 1), userId: user.sub, projectId: 'baseline', projectName: 'Baseline', row: i + 1,
        firstName: `First${i}`, lastName: 'Bench', email: `b${i}@example.com`, username: `baseline${i}`,
        passwordCiphertext: cipher.encrypt('Abcdefgh1234!', secretContext.account(user.sub, keys.accountId('baseline', i + 1))),
        accountType: 'Standard User', isActive: true, externalStatus: 'pending', createdAt: new Date().toISOString(),
      }),
    );
    const baseStart = performance.now();
    await store.writeAll(items);
    const baseline = performance.now() - baseStart;

    const lines = ['First Name,Last Name,Email'];
    for (let i = 0; i < ROWS; i++) lines.push(`First${i},Upload,u${i}@example.com`);
    const file = `${lines.join('\n')}\n`;
    const workerBundle = await bundledWorkerProcess();
    // Started before the clock, like a warm Lambda container: it waits for the start message.
    const child = spawn(process.execPath, [workerBundle], { cwd: projectRoot, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    worker = child;
    let workerOut = '';
    let workerErr = '';
    child.stdout.on('data', (d: Buffer) => (workerOut += d.toString()));
    child.stderr.on('data', (d: Buffer) => (workerErr += d.toString()));
    const workerExit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const began = performance.now();
    const form = await api<BulkUploadForm>('/api/bulk-uploads', {});
    const data = new FormData();
    for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
    data.append('file', new Blob([file]), 'people.csv');
    await fetch(form.url, { method: 'POST', body: data });
    const uploaded = performance.now() - began;
    await api(`/api/bulk-uploads/${form.id}/start`, { projectName: 'Bench upload' });
    let state: BulkUpload;
    for (;;) {
      state = await api<BulkUpload>(`/api/bulk-uploads/${form.id}`);
      if (state.status === 'queued' || state.status === 'failed' || state.status === 'checked') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const read = performance.now() - began;
    if (state.status !== 'queued') throw new Error(`the upload ${state.status}: ${state.reason ?? ''}`);
    const code = await workerExit;
    const probe = /^\{.*\}$/m.exec(workerOut);
    if (code !== 0 || !probe) throw new Error(`the upload worker process exited with ${code}: ${workerErr.slice(-800)}`);
    const workerRun = JSON.parse(probe[0]) as { ms: number; peakRssMb: number; importedRssMb: number; peakHeapUsedMb: number; peakExternalMb: number };
    let job: BulkJob;
    for (;;) {
      job = await api<BulkJob>(`/api/bulk-jobs/${form.id}`);
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const total = performance.now() - began;
    console.log(
      `  ${ROWS} rows (${(file.length / 1048576).toFixed(1)} MB): uploaded in ${seconds(uploaded)}, read and queued at ${seconds(read)}, all stored in ${seconds(total)} (job ${job.status}, ${job.done} done, ${job.failedCount} failed); ` +
        `BatchWrite of ${ROWS} ready items ${seconds(baseline)}; ratio ${(total / baseline).toFixed(2)}x (target <= 1.5x); ` +
        `upload worker peak RSS ${workerRun.peakRssMb} MB (its own process running the worker's Lambda bundle with plain node: ${workerRun.importedRssMb} MB after import; ` +
        `while it ran, V8 heap used at most ${workerRun.peakHeapUsedMb} MB and memory outside the heap ${workerRun.peakExternalMb} MB; target < 256 MB)`,
    );
    console.log(`  peak RSS of the bench process (stack, bulk workers, baseline items): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    if (worker && worker.exitCode === null) worker.kill();
    await stack.stop();
  }
}
