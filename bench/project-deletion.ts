/**
 * Deleting a project of 50,000 accounts (no platform) against a bare BatchWrite delete of the same
 * items, against DynamoDB Local of the local stack: the deletion must take no longer than 1.5x the
 * bare delete, and the process that runs its chunks must stay under 256 MB RSS.
 *  - The project is NOT created through the API (minutes here): its item (16 shards, as an import
 *    of that size has), its 50,000 account items and their username items are written straight
 *    into the table; the output says so. They are written twice: once for the bare delete, once
 *    for the deletion.
 *  - The deletion is the job as the worker runs it (start, plan, every chunk and the project step,
 *    project-deletion*.ts), in a process of its own (bench/project-deletion-worker.ts), two chunks
 *    at a time (the provisioning queue's maxConcurrency); the bare delete is BatchWriteItem of 25
 *    keys, 8 requests in flight.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { accountItem } from '../functions/accounts/account-item';
import { accountShardsFor } from '../functions/accounts/account-partitions';
import { keys } from '../functions/core/keys';
import { timeOrderedId } from '../functions/core/ids';
import { figure } from './own-process';
import { bundleLikeLambda } from './lambda-bundle';
import { benchOffset } from './ports';

const ACCOUNTS = 50_000;
const LIMIT = 1.5;
const RSS_LIMIT_MB = 256;
const TABLE = 'bulkonboard';
/** What the provisioning worker reads at its import (its handler is loaded, not used: the bench drives the deletion itself). */
const workerEnvironment = {
  TABLE_NAME: TABLE,
  PROVISIONING_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/p',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'x',
  AWS_SECRET_ACCESS_KEY: 'x',
};
type Key = { PK: string; SK: string };

async function batchWrite(db: DynamoDBDocumentClient, requests: Record<string, unknown>[]): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < requests.length; i += 25) batches.push(requests.slice(i, i + 25));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let batch = batches.pop(); batch; batch = batches.pop()) {
        let pending: unknown[] = batch;
        while (pending.length) {
          const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: pending as never } }));
          pending = UnprocessedItems?.[TABLE] ?? [];
        }
      }
    }),
  );
}

/** The project's item, accounts and username items, as the bulk job writes them; their keys. */
async function writeProject(db: DynamoDBDocumentClient, userId: string, projectId: string): Promise<Key[]> {
  const shards = accountShardsFor(ACCOUNTS);
  const createdAt = new Date().toISOString();
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: 'Large', accountType: 'Standard User', status: 'active', accountCount: ACCOUNTS, failedCount: 0, accountShards: shards, statsCounted: true, createdAt, updatedAt: createdAt },
    }),
  );
  const items: Record<string, unknown>[] = [];
  for (let row = 1; row <= ACCOUNTS; row++) {
    const username = `large${row}person${projectId.slice(-4)}`;
    items.push(
      accountItem({ id: keys.accountId(projectId, row), userId, projectId, projectName: 'Large', row, firstName: 'Large', lastName: `Person${row}`, email: `large.${row}@example.com`, username, passwordCiphertext: 'bench', accountType: 'Standard User', isActive: true, externalStatus: 'pending', createdAt }, shards),
      { ...keys.username(userId, username), entityType: 'Username', username, projectId },
    );
  }
  await batchWrite(db, items.map((Item) => ({ PutRequest: { Item } })));
  await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.user(userId), UpdateExpression: 'SET projectCount = :p, accountCount = :n', ExpressionAttributeValues: { ':p': 1, ':n': ACCOUNTS } }));
  return [keys.project(userId, projectId), ...items.map((item) => ({ PK: String(item.PK), SK: String(item.SK) }))];
}

export async function projectDeletionBench(): Promise<void> {
  console.log(`\n== Deleting a project of ${ACCOUNTS.toLocaleString('en-US')} accounts (no platform) against a bare BatchWrite delete of its items (DynamoDB Local)`);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-project-deletion');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(37_500)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const userId = `bench-${timeOrderedId()}`;
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.user(userId), entityType: 'User', id: userId } }));

    // 1. The bare delete of the same items.
    const bareKeys = await writeProject(db, userId, timeOrderedId());
    const started = performance.now();
    await batchWrite(db, bareKeys.map((Key) => ({ DeleteRequest: { Key } })));
    const bare = performance.now() - started;

    // 2. The deletion job, run as the worker runs it, in a process of its own (its peak RSS is the worker's).
    const projectId = timeOrderedId();
    await writeProject(db, userId, projectId);
    // The worker bundled as its Lambda is, run with plain node (no tsx); the heap held to what a 256 MB function gives it (V8 otherwise grows lazily on a large machine and collects late).
    const bundle = path.join(projectRoot, 'bench', 'out', 'project-deletion-worker.mjs');
    await bundleLikeLambda(path.join(projectRoot, 'bench', 'project-deletion-worker.ts'), bundle, 'provisioning-worker');
    const child = spawn(process.execPath, ['--max-old-space-size=160', bundle], {
      cwd: projectRoot,
      env: { ...process.env, ...workerEnvironment, BENCH_USER_ID: userId, BENCH_PROJECT_ID: projectId, BENCH_DYNAMODB_URL: stack.urls.dynamodb },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const line = stdout.trim().split('\n').pop() ?? '';
    if (code !== 0 || !line.startsWith('{')) throw new Error(`the deletion process failed (${code}): ${stderr.slice(-800)}`);
    const run = JSON.parse(line) as { ms: number; status: string; removed: number; projectDeleted: boolean; peakMb: number; beforeMb: number; peakHeapMb: number; peakExternalMb: number };
    if (run.status !== 'completed' || run.removed !== ACCOUNTS || !run.projectDeleted) throw new Error(`the deletion ended ${run.status}: ${run.removed} of ${ACCOUNTS} removed`);
    const ratio = run.ms / bare;
    figure(
      `project-delete ${ACCOUNTS.toLocaleString('en-US')} accounts: the job ${(run.ms / 1000).toFixed(1)} s, bare BatchWrite ${(bare / 1000).toFixed(1)} s, ratio ${ratio.toFixed(2)}x (target <= ${LIMIT}x); ` +
        `the worker process's peak RSS ${run.peakMb.toFixed(0)} MB (the worker's Lambda bundle with plain node, heap limited to 160 MB as in a 256 MB function; ${run.beforeMb.toFixed(0)} MB after its import; ` +
        `during the job peaks of ${run.peakHeapMb.toFixed(0)} MB V8 heap used and ${run.peakExternalMb.toFixed(0)} MB outside it; target < ${RSS_LIMIT_MB} MB) (the accounts were NOT created through the API: written into the table as the bulk job writes them)`,
    );
    if (ratio > LIMIT) throw new Error(`the deletion took ${ratio.toFixed(2)}x the bare delete (target <= ${LIMIT}x)`);
    if (run.peakMb >= RSS_LIMIT_MB) throw new Error(`peak RSS ${run.peakMb.toFixed(0)} MB (target < ${RSS_LIMIT_MB} MB)`);
  } finally {
    await stack.stop();
  }
}
