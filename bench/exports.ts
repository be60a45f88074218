/**
 * Exports against the local stack (DynamoDB Local in memory, s3rver): 100,000 accounts of one
 * Pro user, exported to csv and to xlsx by the real export use case, each in a child process so
 * its peak RSS is the worker's. Times are printed beside a bare paged Query of the same rows
 * (same page size) in the same run: the emulator sets the floor, the ratio is the figure. Last,
 * the synchronous project download (GET /api/projects/{id}/export) of the same rows, uncapped:
 * the figure its cap, SYNC_EXPORT_MAX_ACCOUNTS, is decided from (docs/deploy.md).
 *
 * Run as a child (BENCH_EXPORT_CHILD=query|csv|xlsx|sync) it performs one measurement and prints JSON.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
const USER_ID = 'bench-exports-user';
const PROJECT_ID = '01900000-0000-7000-8000-000000000001';
const PROJECT_NAME = 'Export bench';

interface Measurement {
  ms: number;
  peakMb: number;
  rows: number;
  sizeBytes?: number;
  status?: string;
  error?: string;
}

/** What a child loads: only the worker's own modules, so its RSS is the worker's, not the emulators'. */
async function workerModules() {
  const [lib, clients, encryption, env, keys, pages, item, files, store, run, projects, accountData] = await Promise.all([
    import('@aws-sdk/lib-dynamodb'),
    import('../functions/core/clients'),
    import('../functions/core/encryption'),
    import('../functions/core/env'),
    import('../functions/core/keys'),
    import('../functions/exports/account-pages'),
    import('../functions/exports/export-item'),
    import('../functions/exports/export-files'),
    import('../functions/exports/export-store'),
    import('../functions/exports/run-export'),
    import('../functions/projects/project-store'),
    import('../functions/exports/account-data/account-data-source'),
  ]);
  return { ...lib, ...clients, ...encryption, ...env, ...keys, ...pages, ...item, ...files, ...store, ...run, ...projects, ...accountData };
}

async function child(mode: string): Promise<Measurement> {
  if (mode === 'seed') return seed();
  const { dynamo, requireEnv, QueryCommand, keys, ACCOUNT_PAGE_SIZE, dynamoExportStore, newExportRecord, runExport, dynamoProjectStore, dynamoAccountPages, dynamoAccountDataSource, appCipher, s3ExportFiles, s3 } =
    await workerModules();
  const db = dynamo();
  const tableName = requireEnv('TABLE_NAME');
  if (mode === 'query') {
    const started = performance.now();
    let rows = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.accountsOf(USER_ID, PROJECT_ID).PK },
          Limit: ACCOUNT_PAGE_SIZE,
          ExclusiveStartKey: start,
        }),
      );
      rows += page.Items?.length ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return { ms: performance.now() - started, peakMb: process.resourceUsage().maxRSS / 1024, rows };
  }
  if (mode === 'sync') return syncExport();
  const format = mode === 'xlsx' ? 'xlsx' : 'csv';
  const exports = dynamoExportStore(db, tableName);
  const record = newExportRecord({ id: `bench-${format}-${Date.now()}`, userId: USER_ID, projectId: PROJECT_ID, projectName: PROJECT_NAME, format, now: new Date() });
  await exports.create(record);
  const run = runExport({
    exports,
    projects: dynamoProjectStore(db, tableName),
    accountPages: dynamoAccountPages(db, tableName),
    accountData: dynamoAccountDataSource(db, tableName),
    cipher: appCipher,
    files: s3ExportFiles(s3(), requireEnv('EXPORT_BUCKET')),
    now: () => new Date(),
  });
  await appCipher(); // key loading is a cold-start cost, not the export's
  const started = performance.now();
  await run({ userId: USER_ID, exportId: record.id });
  const ms = performance.now() - started;
  const item = (await exports.get(USER_ID, record.id))!;
  return {
    ms,
    peakMb: process.resourceUsage().maxRSS / 1024,
    rows: Number(item.rowCount ?? 0),
    sizeBytes: Number(item.sizeBytes ?? 0),
    status: String(item.status),
    ...(typeof item.error === 'string' ? { error: item.error } : {}),
  };
}

/**
 * GET /api/projects/{id}/export as its Lambda runs it: the same use case (paged reads, passwords
 * decrypted, CSV built in memory) and the gzip the HTTP layer applies to a large body.
 */
async function syncExport(): Promise<Measurement> {
  const { dynamo, requireEnv, appCipher, dynamoProjectStore } = await workerModules();
  const { exportProjectCsv } = await import('../functions/projects/export-project-csv');
  const { gzipSync } = await import('node:zlib');
  // No cap here: the bench measures what the cap (SYNC_EXPORT_MAX_ACCOUNTS) is decided from.
  const exportCsv = exportProjectCsv({ projects: dynamoProjectStore(dynamo(), requireEnv('TABLE_NAME')), cipher: appCipher, maxAccounts: Number.POSITIVE_INFINITY });
  await appCipher(); // key loading is a cold-start cost, not the export's
  const started = performance.now();
  const { body } = await exportCsv(USER_ID, PROJECT_ID);
  const gzipped = gzipSync(body).toString('base64');
  return { ms: performance.now() - started, peakMb: process.resourceUsage().maxRSS / 1024, rows: body.split('\n').length - 2, sizeBytes: gzipped.length };
}

async function seed(): Promise<Measurement> {
  const { dynamo, requireEnv, PutCommand, keys, appCipher, secretContext } = await workerModules();
  const { accountItem } = await import('../functions/accounts/account-item');
  const { dynamoBulkStore } = await import('../functions/bulk/bulk-store');
  const { projectItem } = await import('../functions/projects/project-item');
  const { createPasswordGenerator } = await import('../shared/generation/password');
  const { defaultPasswordSettings } = await import('../shared/schemas/bulk');
  const db = dynamo();
  const tableName = requireEnv('TABLE_NAME');
  const now = new Date().toISOString();
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.user(USER_ID), entityType: 'User', id: USER_ID, subscriptionPlan: 'pro', createdAt: now, updatedAt: now } }));
  const project = { id: PROJECT_ID, userId: USER_ID, name: PROJECT_NAME, accountType: 'Standard User' as const, status: 'completed' as const, accountCount: ROWS, failedCount: 0, createdAt: now, updatedAt: now };
  await db.send(new PutCommand({ TableName: tableName, Item: projectItem(project) }));
  const cipher = await appCipher();
  const nextPassword = createPasswordGenerator(defaultPasswordSettings, randomBytes);
  const store = dynamoBulkStore(db, tableName);
  const started = performance.now();
  for (let from = 0; from < ROWS; from += 10_000) {
    const items = Array.from({ length: Math.min(10_000, ROWS - from) }, (_, k) => {
      const i = from + k;
      return accountItem({
        id: keys.accountId(PROJECT_ID, i + 1),
        userId: USER_ID,
        projectId: PROJECT_ID,
        projectName: PROJECT_NAME,
        row: i + 1,
        firstName: `First${i}`,
        // Some cells the formula guard must neutralise, as real lists have.
        lastName: i % 7 === 0 ? `=Formula${i}` : `Last${i}`,
        email: `person${i}@example.com`,
        username: `person${i}`,
        passwordCiphertext: cipher.encrypt(nextPassword(), secretContext.account(USER_ID, keys.accountId(PROJECT_ID, i + 1))),
        accountType: 'Standard User',
        isActive: true,
        externalStatus: 'pending',
        createdAt: now,
      });
    });
    await store.writeAll(items, { parallel: 8 });
  }
  return { ms: performance.now() - started, peakMb: process.resourceUsage().maxRSS / 1024, rows: ROWS };
}

const thisFile = fileURLToPath(import.meta.url);

/** Async spawn: s3rver runs in this process, so its event loop must keep turning while the child works. */
async function measure(mode: 'seed' | 'query' | 'csv' | 'xlsx' | 'sync'): Promise<Measurement> {
  // The measured children get the heap a 256 MB Lambda would give (Node sizes it from the memory
  // limit there); without a limit, Node grows the heap lazily and RSS says little about the need.
  // The synchronous export runs in a route group's Lambda of 512 MB.
  const heap = mode === 'seed' ? [] : mode === 'sync' ? ['--max-old-space-size=400'] : ['--max-old-space-size=160'];
  const child = spawn(process.execPath, [...heap, '--import', 'tsx', thisFile], { cwd: path.dirname(path.dirname(thisFile)), env: { ...process.env, BENCH_EXPORT_CHILD: mode }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await new Promise((resolve) => child.on('close', resolve));
  try {
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Measurement;
  } catch {
    throw new Error(`export bench child (${mode}) failed: ${stderr.slice(-1000)}`);
  }
}

export async function exportsBench(): Promise<void> {
  const { portsFromEnv, projectRoot } = await import('../bin/local/settings');
  const { startLocalStack } = await import('../bin/local/stack');
  const { benchPortShift } = await import('./ports');
  const { SYNC_EXPORT_MAX_ACCOUNTS } = await import('../shared/schemas/project');
  console.log(`\n== Exports against the local stack: ${ROWS.toLocaleString('en-US')} accounts to csv and xlsx (targets: < 3x and < 6x a bare paged Query, peak RSS < 256 MB)`);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-exports');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, 45_000 + benchPortShift), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    // Every measurement, seeding too, runs in a fresh child: no client or key cached from another stack of this process.
    const seeded = await measure('seed');
    console.log(`  seeded ${seeded.rows.toLocaleString('en-US')} accounts in ${(seeded.ms / 1000).toFixed(1)} s`);

    await measure('query'); // warm DynamoDB Local's JVM on the partition
    const query = await measure('query');
    console.log(`  bare paged Query (Limit 1000, as the worker): ${(query.ms / 1000).toFixed(2)} s for ${query.rows.toLocaleString('en-US')} rows (child peak RSS ${query.peakMb.toFixed(0)} MB)`);
    for (const [format, target] of [['csv', 3], ['xlsx', 6]] as const) {
      const result = await measure(format);
      const ratio = result.ms / query.ms;
      console.log(
        `  ${format.padEnd(4)} export: ${(result.ms / 1000).toFixed(2)} s, ${result.rows.toLocaleString('en-US')} rows, ${((result.sizeBytes ?? 0) / 1048576).toFixed(1)} MB, ` +
          `status ${result.status}${result.error ? ` (${result.error})` : ''}; ratio ${ratio.toFixed(2)}x (target < ${target}x); ` +
          `worker peak RSS ${result.peakMb.toFixed(0)} MB (process incl. tsx; target < 256 MB)`,
      );
    }
    const sync = await measure('sync');
    const perThousandMs = (sync.ms / sync.rows) * 1000;
    console.log(
      `  sync CSV (GET /api/projects/{id}/export, 10 s Lambda): ${(sync.ms / 1000).toFixed(2)} s for ${sync.rows.toLocaleString('en-US')} rows ` +
        `(${perThousandMs.toFixed(0)} ms per 1,000, of which the bare Query ${((query.ms / query.rows) * 1000).toFixed(0)} ms), response ${(sync.sizeBytes! / 1048576).toFixed(1)} MB gzipped+base64 (limit 6 MB); ` +
        `peak RSS ${sync.peakMb.toFixed(0)} MB; at the cap of ${SYNC_EXPORT_MAX_ACCOUNTS.toLocaleString('en-US')} accounts (larger projects go to the Export Center) ` +
        `about ${((perThousandMs * SYNC_EXPORT_MAX_ACCOUNTS) / 1_000_000).toFixed(1)} s here`,
    );
  } finally {
    await stack.stop();
  }
}

const mode = process.env.BENCH_EXPORT_CHILD;
if (mode) {
  const result = await child(mode);
  console.log(JSON.stringify(result));
  process.exit(0);
}
