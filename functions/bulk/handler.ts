import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { bulkCreateBodySchema, type BulkJob } from '../../shared/schemas/bulk';
import { dynamo, sqs } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { NotFoundError } from '../core/errors';
import { httpHandler, Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { dynamoIntegrationStore } from '../integrations/integration-store';
import { CHUNK_ROWS, CHUNK_WINDOW, sqsBulkJobStarter, sqsBulkQueue } from './bulk-jobs';
import { sqsQueueWait } from './queue-wait';
import { startProvisioning } from '../provisioning/provisioning-jobs';
import { startSend } from '../mail/credential-sends';
import { sqsCredentialsQueue } from '../mail/sqs-credentials-queue';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { dynamoPlanReader } from '../usage/plan-store';
import { dynamoBulkStore } from './bulk-store';
import { userTimeZone } from '../analytics/counters';
import { recordUnqueuedChunk } from './process-chunk';
import { createBulkAccounts } from './create-bulk-accounts';
import { inflateRows } from './compressed-rows';
import { fingerprintOf, idempotencyKeyOf, idempotent, type StoredAnswer } from './idempotency';
import { rejectedRowsReport } from './rejected-rows';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const store = dynamoBulkStore(db, tableName);
const integrations = dynamoIntegrationStore(db, tableName);
const provision = startProvisioning({
  db,
  tableName,
  queue: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')),
  now: () => new Date(),
  newId: timeOrderedId,
  plan: dynamoPlanReader(db, tableName),
  integration: (userId, id) => integrations.get(userId, id),
});
const send = startSend({
  db,
  tableName,
  queue: sqsCredentialsQueue(sqs(), requireEnv('MAIL_QUEUE_URL')),
  now: () => new Date(),
  newId: timeOrderedId,
  plan: dynamoPlanReader(db, tableName),
  // The mail worker issues one-time links (functions/credential-links).
  linksAvailable: true,
});
const create = createBulkAccounts({
  store,
  timeZone: (userId) => userTimeZone(db, tableName, userId),
  cipher: appCipher,
  randomBytes,
  now: () => new Date(),
  newId: timeOrderedId,
  jobs: sqsBulkJobStarter(db, tableName, sqs(), requireEnv('BULK_QUEUE_URL'), recordUnqueuedChunk({ db, tableName, store, now: () => new Date(), newId: timeOrderedId, bulkQueue: sqsBulkQueue(sqs(), requireEnv('BULK_QUEUE_URL')) })),
  integration: (userId, id) => integrations.get(userId, id),
  provision: (userId, projectId, integrationId, waitForAccounts) => provision(userId, projectId, { integrationId, mode: 'provision' }, { waitForAccounts }),
  sendCredentials: (userId, projectId, options, waitForAccounts) => send(userId, projectId, { ...options, scope: 'all', overrideSuppression: false }, { waitForAccounts }),
});
const once = idempotent({ db, tableName, cipher: appCipher, now: () => new Date(), writeAll: (items) => store.writeAll(items) });
const rejectedRows = rejectedRowsReport({ db, tableName });

export const handler = httpHandler({
  'POST /api/bulk-create': route({
    body: bulkCreateBodySchema,
    run: async ({ userId, body, event }) => {
      const key = idempotencyKeyOf(event.headers);
      const work = async (): Promise<StoredAnswer> => {
        const result = await create(userId, inflateRows(body));
        if (result.kind === 'queued') {
          // Why it waits, from the start: the dialog shows it before its first poll.
          const wait = result.job.status === 'queued' ? await sqsQueueWait(sqs(), requireEnv('BULK_QUEUE_URL'), Math.min(CHUNK_WINDOW, Math.ceil(result.job.total / CHUNK_ROWS))) : {};
          return { statusCode: 202, body: { project: result.project, job: { ...result.job, ...wait }, summary: result.summary } };
        }
        return { statusCode: 200, body: { project: result.project, accounts: result.accounts, summary: result.summary } };
      };
      if (!key) {
        const answer = await work();
        return new Response(answer.statusCode, answer.body);
      }
      const answer = await once(userId, key, fingerprintOf(body), work);
      return new Response(answer.statusCode, answer.body, answer.replayed ? { 'idempotent-replayed': 'true' } : {});
    },
  }),
  'GET /api/bulk-jobs/{id}': route({
    run: async ({ userId, pathParameters }) => {
      const id = pathParameters.id ?? '';
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.bulkJob(userId, id), ConsistentRead: true }));
      if (!Item) throw new NotFoundError('Job not found');
      const job: BulkJob = {
        id: String(Item.id),
        projectId: String(Item.projectId),
        status: Item.status as BulkJob['status'],
        total: Number(Item.total),
        done: Number(Item.done ?? 0),
        failedCount: Number(Item.failedCount ?? 0),
        createdAt: String(Item.createdAt),
        updatedAt: String(Item.updatedAt),
        ...(typeof Item.completedAt === 'string' ? { completedAt: Item.completedAt } : {}),
        ...(typeof Item.reason === 'string' ? { reason: Item.reason } : {}),
      };
      // Still waiting for a worker: say so, and why, instead of a silent 0%.
      if (job.status === 'queued') return { ...job, ...(await sqsQueueWait(sqs(), requireEnv('BULK_QUEUE_URL'), Math.min(Number(Item.window ?? Item.chunks ?? 0), Number(Item.chunks ?? 0)))) };
      return job;
    },
  }),
  'GET /api/projects/{id}/rejected-rows': route({
    run: async ({ userId, pathParameters }) => {
      const id = pathParameters.id ?? '';
      const { filename, body } = await rejectedRows(userId, id);
      return new Response(200, body, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${filename.replace(/"/g, '')}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      });
    },
  }),
});
