/**
 * Child process of bench/project-deletion.ts: the deletion of one project as the provisioning
 * worker runs it (start, plan, every chunk and the project step, two chunks at a time: the queue's
 * maxConcurrency), with its messages kept here instead of on SQS. Prints one JSON line: the time
 * from the start to the end, the job's end and the process's peak RSS.
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
  workers: 2,
});
const before = process.memoryUsage().rss;
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
const end = await getProjectDeletion(deps)(userId, job.id);
console.log(JSON.stringify({ ms, status: end.status, removed: end.removed, projectDeleted: end.projectDeleted, peakMb: process.resourceUsage().maxRSS / 1024, beforeMb: before / 1048576 }));
