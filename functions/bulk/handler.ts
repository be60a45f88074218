import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { bulkCreateBodySchema, type BulkJob } from '../../shared/schemas/bulk';
import { bulkUploadStartSchema } from '../../shared/schemas/bulk-upload';
import { dynamo, sqs } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { NotFoundError } from '../core/errors';
import { httpHandler, Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { CHUNK_ROWS, CHUNK_WINDOW } from './bulk-jobs';
import { sqsQueueWait } from './queue-wait';
import { dynamoBulkStore } from './bulk-store';
import { appCreateBulkAccounts } from './app-creation';
import { createUploadForm, readUploadState, startUpload, uploadRejectedRows } from './bulk-uploads';
import { signedUploadObjects } from './upload-requests';
import { inflateRows } from './compressed-rows';
import { fingerprintOf, idempotencyKeyOf, idempotent, type StoredAnswer } from './idempotency';
import { rejectedRowsReport } from './rejected-rows';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { plural } from '../../shared/text/plural';
import { syncApplySchema, syncPreviewStartSchema } from '../../shared/schemas/account-sync';
import { startSyncPreview, syncPreviewCsv, syncRowsPage, type SyncMessage } from '../sync/sync-preview';
import { applySyncPreview, readSyncPreview } from '../sync/sync-apply';
import { dynamoPlanReader } from '../usage/plan-store';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const store = dynamoBulkStore(db, tableName);
const create = appCreateBulkAccounts(db, tableName, store);
const uploadsQueueUrl = requireEnv('BULK_UPLOADS_QUEUE_URL');
const uploads = {
  db,
  tableName,
  objects: signedUploadObjects(requireEnv('EXPORT_BUCKET')),
  now: () => new Date(),
  newId: timeOrderedId,
  queue: async (message: { userId: string; uploadId: string }) => {
    await sqs().send(new SendMessageCommand({ QueueUrl: uploadsQueueUrl, MessageBody: JSON.stringify(message) }));
  },
};
const syncQueue = async (message: SyncMessage, delaySeconds?: number) => {
  await sqs().send(new SendMessageCommand({ QueueUrl: uploadsQueueUrl, MessageBody: JSON.stringify(message), ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}) }));
};
const sync = { db, tableName, objects: uploads.objects, now: () => new Date(), newId: timeOrderedId, queue: syncQueue };
const applySync = applySyncPreview({ ...sync, plan: dynamoPlanReader(db, tableName), events: { db, tableName } });
const csvResponse = ({ filename, body }: { filename: string; body: string }) =>
  new Response(200, body, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${filename.replace(/"/g, '')}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
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
        // People added to an existing project: a security event (who, what, how many).
        if (body.projectId !== undefined) {
          const count = result.kind === 'created' ? result.summary.successful : result.job.total;
          await recordSecurityEvent({ db, tableName }, {
            userId,
            type: 'accounts_added',
            description: `${plural(count, 'account')} ${result.kind === 'created' ? 'added' : 'being added'} to the project "${result.project.name}"`,
            severity: 'low',
            at: new Date(),
            ...requestOrigin(event),
          });
        }
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
        ...Object.fromEntries((['provisioningJobId', 'provisioningError', 'mailSendId', 'mailSendError'] as const).filter((key) => typeof Item[key] === 'string').map((key) => [key, String(Item[key])])),
      };
      // Still waiting for a worker: say so, and why, instead of a silent 0%.
      if (job.status === 'queued') return { ...job, ...(await sqsQueueWait(sqs(), requireEnv('BULK_QUEUE_URL'), Math.min(Number(Item.window ?? Item.chunks ?? 0), Number(Item.chunks ?? 0)))) };
      return job;
    },
  }),
  'POST /api/bulk-uploads': route({ run: async ({ userId }) => new Response(201, await createUploadForm(uploads)(userId)) }),
  'POST /api/bulk-uploads/{id}/start': route({
    body: bulkUploadStartSchema,
    run: async ({ userId, pathParameters, body, event }) => {
      const started = await startUpload(uploads)(userId, pathParameters.id ?? '', body);
      // People added to a project from a large file: recorded when its reading starts (the rows are counted later).
      if (body.projectId !== undefined && !body.checkOnly) {
        await recordSecurityEvent({ db, tableName }, { userId, type: 'accounts_added', description: `People being added to a project from an uploaded file (upload ${started.id})`, severity: 'low', at: new Date(), ...requestOrigin(event) });
      }
      return new Response(202, started);
    },
  }),
  'GET /api/bulk-uploads/{id}': route({ run: ({ userId, pathParameters }) => readUploadState(uploads)(userId, pathParameters.id ?? '') }),
  'GET /api/bulk-uploads/{id}/rejected-rows': route({ run: async ({ userId, pathParameters }) => csvResponse(await uploadRejectedRows(uploads)(userId, pathParameters.id ?? '')) }),
  'POST /api/projects/{id}/sync-previews': route({
    body: syncPreviewStartSchema,
    run: async ({ userId, pathParameters, body }) => new Response(202, await startSyncPreview(sync)(userId, pathParameters.id ?? '', body.uploadId)),
  }),
  'GET /api/sync-previews/{id}': route({ run: ({ userId, pathParameters }) => readSyncPreview(sync)(userId, pathParameters.id ?? '') }),
  'GET /api/sync-previews/{id}/rows': route({
    run: ({ userId, pathParameters, query }) => syncRowsPage(sync)(userId, pathParameters.id ?? '', query.section, query.page),
  }),
  'GET /api/sync-previews/{id}/csv': route({ run: async ({ userId, pathParameters }) => csvResponse(await syncPreviewCsv(sync)(userId, pathParameters.id ?? '')) }),
  'POST /api/sync-previews/{id}/apply': route({
    body: syncApplySchema,
    run: async ({ userId, pathParameters, body, event }) => new Response(202, await applySync(userId, pathParameters.id ?? '', body, requestOrigin(event))),
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
