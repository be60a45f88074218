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
import { sqsBulkJobStarter } from './bulk-jobs';
import { dynamoBulkStore } from './bulk-store';
import { createBulkAccounts } from './create-bulk-accounts';
import { inflateRows } from './compressed-rows';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const create = createBulkAccounts({
  store: dynamoBulkStore(db, tableName),
  cipher: appCipher,
  randomBytes,
  now: () => new Date(),
  newId: timeOrderedId,
  jobs: sqsBulkJobStarter(db, tableName, sqs(), requireEnv('BULK_QUEUE_URL')),
});

export const handler = httpHandler({
  'POST /api/bulk-create': route({
    body: bulkCreateBodySchema,
    run: async ({ userId, body }) => {
      const result = await create(userId, inflateRows(body));
      if (result.kind === 'queued') return new Response(202, { project: result.project, job: result.job, summary: result.summary });
      return { project: result.project, accounts: result.accounts, summary: result.summary };
    },
  }),
  'GET /api/bulk-jobs/{id}': route({
    run: async ({ userId, pathParameters }) => {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.bulkJob(userId, pathParameters.id ?? ''), ConsistentRead: true }));
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
      };
      return job;
    },
  }),
});
