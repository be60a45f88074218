import { createExportSchema } from '../../shared/schemas/export';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { dynamoProjectStore } from '../projects/project-store';
import { sqsExportQueue } from './export-queue';
import { dynamoExportStore } from './export-store';
import { startAccountDataExport, startExport } from './start-export';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const exports = dynamoExportStore(db, tableName);
const now = () => new Date();
const queue = sqsExportQueue(sqs(), requireEnv('EXPORTS_QUEUE_URL'));
const start = startExport({ exports, projects: dynamoProjectStore(db, tableName), queue, now, newId: timeOrderedId });
const startAccountData = startAccountDataExport({ exports, queue, now, newId: timeOrderedId });

export const handler = httpHandler({
  'POST /api/exports': route({ body: createExportSchema, run: async ({ userId, body }) => new Response(202, await start(userId, body)) }),
  'POST /api/exports/account-data': route({ run: async ({ userId }) => new Response(202, await startAccountData(userId)) }),
});
