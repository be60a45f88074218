/** Child process of bench/bulk.ts: one bulk-worker invocation with a 500-row chunk; prints peak RSS. */
import type { Context, SQSEvent } from 'aws-lambda';
import { CHUNK_ROWS } from '../functions/bulk/bulk-jobs';
import type { BulkChunkMessage } from '../functions/bulk/bulk-chunk';

const userId = process.env.BENCH_USER_ID!;
const message: BulkChunkMessage = {
  userId,
  jobId: 'memory-probe',
  projectId: 'memory-probe',
  projectName: 'Memory probe',
  accountType: 'Standard User',
  createdAt: new Date().toISOString(),
  passwordSettings: { minLength: 12, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: true, avoidAmbiguous: false },
  existingAccounts: 0,
  chunk: 0,
  rows: Array.from({ length: CHUNK_ROWS }, (_, i) => ({ row: i + 1, firstName: `Mem${i}`, lastName: 'Probe', email: `mem${i}@example.com`, base: `memprobe${i}`, k: 0 })),
};
// The job and project the chunk belongs to, as the API writes them.
const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient, PutCommand } = await import('@aws-sdk/lib-dynamodb');
const { keys } = await import('../functions/core/keys');
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const now = new Date().toISOString();
await db.send(new PutCommand({ TableName: 'bulkonboard', Item: { ...keys.bulkJob(userId, 'memory-probe'), id: 'memory-probe', projectId: 'memory-probe', status: 'queued', total: CHUNK_ROWS, done: 0, failedCount: 0, createdAt: now, updatedAt: now, lockOwner: 'memory-probe', startedAt: Date.now(), projectName: 'Memory probe' } }));
await db.send(new PutCommand({ TableName: 'bulkonboard', Item: { ...keys.project(userId, 'memory-probe'), id: 'memory-probe', name: 'Memory probe', accountType: 'Standard User', status: 'active', accountCount: 0, failedCount: 0, createdAt: now, updatedAt: now } }));
const { handler } = await import('../functions/workers/bulk-worker');
const before = process.memoryUsage().rss;
const started = performance.now();
const result = await handler({ Records: [{ messageId: 'm1', receiptHandle: 'r', body: JSON.stringify(message), attributes: {} }] } as unknown as SQSEvent, {
  awsRequestId: 'probe',
  functionName: 'bulk-worker',
  getRemainingTimeInMillis: () => 60_000,
} as Context);
const peakMb = process.resourceUsage().maxRSS / 1024;
console.log(
  `bulk-worker, one ${CHUNK_ROWS}-row chunk: ${(performance.now() - started).toFixed(0)} ms, peak RSS ${peakMb.toFixed(0)} MB (process incl. tsx; RSS before the call ${(before / 1048576).toFixed(0)} MB; target < 256 MB); failures ${JSON.stringify(result.batchItemFailures)}`,
);
