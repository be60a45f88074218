/**
 * Child process of bench/project-deletion.ts: the deletion of one project as the provisioning
 * worker runs it (start, plan, every chunk and the project step, two chunks at a time: the queue's
 * maxConcurrency), with its messages kept here instead of on SQS. bench/project-deletion.ts bundles
 * this file as a Lambda is bundled (bench/lambda-bundle.ts) and runs it with plain `node`, and it
 * imports the provisioning worker's whole handler first, so the process carries what the worker's
 * Lambda carries (its bundle), not tsx's transform and source maps. Prints one JSON line: the time
 * from the start to the end, the job's end, the process's peak RSS, its RSS after the import, and
 * the peaks of the V8 heap and of the memory outside it (sampled every 20 ms during the job).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { timeOrderedId } from '../functions/core/ids';
import { getProjectDeletion, planDeletion, startProjectDeletion } from '../functions/projects/project-deletion';
import { deletionChunk } from '../functions/projects/project-deletion-chunk';
import type { DeleteChunkMessage, ProvisioningMessage } from '../functions/provisioning/provisioning-message';

const userId = process.env.BENCH_USER_ID!;
const projectId = process.env.BENCH_PROJECT_ID!;
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: process.env.BENCH_DYNAMODB_URL!, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
  marshallOptions: { removeUndefinedValues: true },
});
const queued: DeleteChunkMessage[] = [];
const deps = { db, tableName: 'bulkonboard', now: () => new Date(), queue: { send: async (messages: readonly ProvisioningMessage[]) => void queued.push(...messages.filter((m): m is DeleteChunkMessage => m.type === 'delete-chunk')) } };
const chunk = deletionChunk({
  ...deps,
  cipher: () => Promise.reject(new Error('no platform')),
  integration: async () => undefined,
  adapterFor: () => {
    throw new Error('no platform');
  },
  pacingOf: () => ({ concurrency: 1 }),
});
// The worker's code, as its Lambda loads it (its handler is not used: the deletion's functions are driven below).
await import('../functions/workers/provisioning-worker');
const before = process.memoryUsage().rss;
let peakHeap = 0;
let peakExternal = 0;
const sample = setInterval(() => {
  const usage = process.memoryUsage();
  peakHeap = Math.max(peakHeap, usage.heapUsed);
  peakExternal = Math.max(peakExternal, usage.external + usage.arrayBuffers);
}, 20);
const started = performance.now();
const job = await startProjectDeletion({ ...deps, newId: timeOrderedId, events: { db, tableName: 'bulkonboard' }, integrationName: async () => undefined })(userId, projectId, false, { ipAddress: '127.0.0.1', userAgent: 'bench' });
await planDeletion(deps)(userId, job.id);
await Promise.all(
  Array.from({ length: 2 }, async () => {
    for (;;) {
      const next = queued.shift();
      if (next) {
        await chunk(next);
        continue;
      }
      const state = await getProjectDeletion(deps)(userId, job.id);
      if (state.status === 'completed' || state.status === 'failed') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }),
);
const ms = performance.now() - started;
clearInterval(sample);
const end = await getProjectDeletion(deps)(userId, job.id);
console.log(JSON.stringify({ ms, status: end.status, removed: end.removed, projectDeleted: end.projectDeleted, peakMb: process.resourceUsage().maxRSS / 1024, beforeMb: before / 1048576, peakHeapMb: peakHeap / 1048576, peakExternalMb: peakExternal / 1048576 }));
