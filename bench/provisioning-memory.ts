/** Child process of bench/provisioning.ts: one provisioning-worker invocation with a full chunk (250 accounts); prints peak RSS. */
import type { Context, SQSEvent } from 'aws-lambda';
import type { ChunkMessage } from '../functions/provisioning/provisioning-message';

const userId = process.env.BENCH_USER_ID!;
const projectId = process.env.BENCH_PROJECT_ID!;
const integrationId = process.env.BENCH_INTEGRATION_ID!;
const jobId = 'memory-probe';
// The run the chunk belongs to, as the start step writes it.
const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient, PutCommand } = await import('@aws-sdk/lib-dynamodb');
const { keys } = await import('../functions/core/keys');
const { PROVISIONING_CHUNK_ACCOUNTS } = await import('../functions/provisioning/provisioning-jobs');
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const now = new Date().toISOString();
await db.send(
  new PutCommand({
    TableName: 'bulkonboard',
    Item: { ...keys.provisioningJob(userId, jobId), entityType: 'ProvisioningJob', id: jobId, userId, projectId, integrationId, mode: 'provision', status: 'running', total: PROVISIONING_CHUNK_ACCOUNTS, synced: 0, failed: 0, chunks: 1, chunksDone: 0, shards: 1, maxRow: PROVISIONING_CHUNK_ACCOUNTS, createdAt: now, updatedAt: now },
  }),
);
const message: ChunkMessage = { type: 'chunk', userId, jobId, chunk: 0, shard: 0, fromRow: 1, toRow: PROVISIONING_CHUNK_ACCOUNTS };
const { handler } = await import('../functions/workers/provisioning-worker');
const before = process.memoryUsage().rss;
const started = performance.now();
const result = await handler({ Records: [{ messageId: 'm1', receiptHandle: 'r', body: JSON.stringify(message), attributes: {} }] } as unknown as SQSEvent, {
  awsRequestId: 'probe',
  functionName: 'provisioning-worker',
  getRemainingTimeInMillis: () => 150_000,
} as Context);
const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
const { Item } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.provisioningJob(userId, jobId), ConsistentRead: true }));
const peakMb = process.resourceUsage().maxRSS / 1024;
console.log(
  `provisioning-worker, one ${PROVISIONING_CHUNK_ACCOUNTS}-account chunk (single POSTs): ${(performance.now() - started).toFixed(0)} ms, ${Item?.synced ?? '?'} synced, ` +
    `peak RSS ${peakMb.toFixed(0)} MB (process incl. tsx; RSS before the call ${(before / 1048576).toFixed(0)} MB; target < 256 MB); failures ${JSON.stringify(result.batchItemFailures)}`,
);
