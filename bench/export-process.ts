/**
 * Child process of bench/exports.ts. bench/exports.ts bundles this file as the export worker's
 * Lambda is bundled (lib/bundling.ts; exceljs and archiver left to node_modules, as to the layer)
 * and runs the bundle with plain `node`, so a measured process carries what Lambda's does, not
 * tsx's transform and source maps. One measurement per process (BENCH_EXPORT_CHILD), printed as
 * one JSON line:
 *  - `seed`: the bench user's project of BENCH_EXPORT_ROWS accounts, and a project at the
 *    synchronous download's cap (SYNC_EXPORT_MAX_ACCOUNTS);
 *  - `query`: a bare paged Query of the large project (the floor);
 *  - `csv` / `xlsx`: the export worker's own handler on one SQS record (its remaining time
 *    BENCH_EXPORT_TIME_MS: on a busy machine the emulator's pace, not the worker's, sets the wall
 *    time, so the parent compares both it and the worker's CPU time with the real timeout);
 *  - `sync`: GET /api/projects/{id}/export's use case on the project at the cap, and the gzip the
 *    HTTP layer applies to a large body.
 * Besides the peak RSS, the peaks of the V8 heap and of the memory outside it (sampled every 20 ms).
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Context, SQSEvent } from 'aws-lambda';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../functions/core/clients';
import { appCipher, secretContext } from '../functions/core/encryption';
import { requireEnv } from '../functions/core/env';
import { keys } from '../functions/core/keys';
import { accountItem } from '../functions/accounts/account-item';
import { dynamoBulkStore } from '../functions/bulk/bulk-store';
import { ACCOUNT_PAGE_SIZE } from '../functions/exports/account-pages';
import { newExportRecord } from '../functions/exports/export-item';
import { dynamoExportStore } from '../functions/exports/export-store';
import { exportProjectCsv } from '../functions/projects/export-project-csv';
import { projectItem } from '../functions/projects/project-item';
import { dynamoProjectStore } from '../functions/projects/project-store';
import { createPasswordGenerator } from '../shared/generation/password';
import { defaultPasswordSettings } from '../shared/schemas/bulk';
import { SYNC_EXPORT_MAX_ACCOUNTS } from '../shared/schemas/project';

const BENCH_EXPORT_USER = 'bench-exports-user';
/** The large project (BENCH_EXPORT_ROWS) and the one at the synchronous download's cap. */
const BENCH_EXPORT_PROJECTS = { large: '01900000-0000-7000-8000-000000000001', atCap: '01900000-0000-7000-8000-000000000002' } as const;

export interface ExportMeasurement {
  ms: number;
  /** CPU time of the process during the work (user + system): what the worker's own code costs, the emulators' waits left out. */
  cpuMs: number;
  peakMb: number;
  /** RSS once the code is loaded, before the measured work. */
  importedMb: number;
  peakHeapUsedMb: number;
  peakExternalMb: number;
  rows: number;
  sizeBytes?: number;
  status?: string;
  error?: string;
}

const mb = (bytes: number) => Math.round(bytes / 1048576);
const db = dynamo();
const tableName = requireEnv('TABLE_NAME');

/** Runs `work` with the clock and a 20 ms sampler of the heap and the memory outside it. */
async function measured(work: () => Promise<Omit<ExportMeasurement, 'ms' | 'cpuMs' | 'peakMb' | 'importedMb' | 'peakHeapUsedMb' | 'peakExternalMb'>>): Promise<ExportMeasurement> {
  const importedMb = mb(process.memoryUsage().rss);
  let peakHeap = 0;
  let peakExternal = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    peakHeap = Math.max(peakHeap, usage.heapUsed);
    peakExternal = Math.max(peakExternal, usage.external);
  };
  const sampler = setInterval(sample, 20);
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const result = await work();
    sample();
    const { user, system } = process.cpuUsage(cpu);
    return { ms: performance.now() - started, cpuMs: (user + system) / 1000, peakMb: mb(process.resourceUsage().maxRSS * 1024), importedMb, peakHeapUsedMb: mb(peakHeap), peakExternalMb: mb(peakExternal), ...result };
  } finally {
    clearInterval(sampler);
  }
}

async function seedProject(projectId: string, name: string, rows: number): Promise<void> {
  const now = new Date().toISOString();
  const project = { id: projectId, userId: BENCH_EXPORT_USER, name, accountType: 'Standard User' as const, status: 'completed' as const, accountCount: rows, failedCount: 0, createdAt: now, updatedAt: now };
  await db.send(new PutCommand({ TableName: tableName, Item: projectItem(project) }));
  const cipher = await appCipher();
  const nextPassword = createPasswordGenerator(defaultPasswordSettings, randomBytes);
  const store = dynamoBulkStore(db, tableName);
  for (let from = 0; from < rows; from += 10_000) {
    const items = Array.from({ length: Math.min(10_000, rows - from) }, (_, k) => {
      const i = from + k;
      const id = keys.accountId(projectId, i + 1);
      return accountItem({
        id,
        userId: BENCH_EXPORT_USER,
        projectId,
        projectName: name,
        row: i + 1,
        firstName: `First${i}`,
        // Some cells the formula guard must neutralise, as real lists have.
        lastName: i % 7 === 0 ? `=Formula${i}` : `Last${i}`,
        email: `person${i}@example.com`,
        username: `person${i}-${projectId.slice(-1)}`,
        passwordCiphertext: cipher.encrypt(nextPassword(), secretContext.account(BENCH_EXPORT_USER, id)),
        accountType: 'Standard User',
        isActive: true,
        externalStatus: 'pending',
        createdAt: now,
      });
    });
    await store.writeAll(items, { parallel: 8 });
  }
}

async function seed(rows: number): Promise<ExportMeasurement> {
  const now = new Date().toISOString();
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.user(BENCH_EXPORT_USER), entityType: 'User', id: BENCH_EXPORT_USER, subscriptionPlan: 'pro', createdAt: now, updatedAt: now } }));
  return measured(async () => {
    await seedProject(BENCH_EXPORT_PROJECTS.large, 'Export bench', rows);
    await seedProject(BENCH_EXPORT_PROJECTS.atCap, 'Export bench at the cap', SYNC_EXPORT_MAX_ACCOUNTS);
    return { rows: rows + SYNC_EXPORT_MAX_ACCOUNTS };
  });
}

async function bareQuery(): Promise<ExportMeasurement> {
  return measured(async () => {
    let rows = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.accountsOf(BENCH_EXPORT_USER, BENCH_EXPORT_PROJECTS.large).PK },
          Limit: ACCOUNT_PAGE_SIZE,
          ExclusiveStartKey: start,
        }),
      );
      rows += page.Items?.length ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return { rows };
  });
}

/** The export worker's handler, as Lambda calls it, on one export of the large project. */
async function workerExport(format: 'csv' | 'xlsx', remainingMs: number): Promise<ExportMeasurement> {
  const exports = dynamoExportStore(db, tableName);
  const record = newExportRecord({ id: `bench-${format}-${Date.now()}`, userId: BENCH_EXPORT_USER, projectId: BENCH_EXPORT_PROJECTS.large, projectName: 'Export bench', format, now: new Date() });
  await exports.create(record);
  const { handler } = await import('../functions/workers/export-worker');
  await appCipher(); // key loading is a cold-start cost, not the export's
  const deadline = Date.now() + remainingMs;
  const event = { Records: [{ messageId: 'bench', receiptHandle: 'bench', body: JSON.stringify({ userId: BENCH_EXPORT_USER, exportId: record.id }), attributes: { ApproximateReceiveCount: '3' } }] };
  const context = { awsRequestId: 'bench', functionName: 'export-worker', getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
  return measured(async () => {
    let failures = 0;
    let error: string | undefined;
    try {
      failures = (await handler(event as unknown as SQSEvent, context)).batchItemFailures.length;
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
    const item = (await exports.get(BENCH_EXPORT_USER, record.id))!;
    const reason = error ?? (typeof item.error === 'string' ? item.error : failures ? 'the message came back' : undefined);
    return { rows: Number(item.rowCount ?? 0), sizeBytes: Number(item.sizeBytes ?? 0), status: String(item.status), ...(reason ? { error: reason } : {}) };
  });
}

/** GET /api/projects/{id}/export as its Lambda runs it, on the project at the cap. */
async function syncExport(): Promise<ExportMeasurement> {
  const exportCsv = exportProjectCsv({ projects: dynamoProjectStore(db, tableName), cipher: appCipher });
  await appCipher(); // key loading is a cold-start cost, not the export's
  return measured(async () => {
    const { body, rows } = await exportCsv(BENCH_EXPORT_USER, BENCH_EXPORT_PROJECTS.atCap);
    return { rows, sizeBytes: gzipSync(body).toString('base64').length };
  });
}

const mode = process.env.BENCH_EXPORT_CHILD;
const result =
  mode === 'seed'
    ? await seed(Number(process.env.BENCH_EXPORT_ROWS ?? 100_000))
    : mode === 'query'
      ? await bareQuery()
      : mode === 'csv' || mode === 'xlsx'
        ? await workerExport(mode, Number(process.env.BENCH_EXPORT_TIME_MS ?? 30 * 60_000))
        : mode === 'sync'
          ? await syncExport()
          : undefined;
if (!result) throw new Error(`BENCH_EXPORT_CHILD: unknown mode ${mode}`);
console.log(JSON.stringify(result));
process.exit(0);
