import { createExportSchema } from '../../shared/schemas/export';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { dynamoProjectStore } from '../projects/project-store';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { sqsExportQueue } from './export-queue';
import { dynamoExportStore } from './export-store';
import { startAccountDataExport, startDirectoryExport, startExport, startSecurityEventsExport } from './start-export';
import { directoryExportSchema } from '../../shared/schemas/account-directory';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const exports = dynamoExportStore(db, tableName);
const now = () => new Date();
const queue = sqsExportQueue(sqs(), requireEnv('EXPORTS_QUEUE_URL'));
const start = startExport({ exports, projects: dynamoProjectStore(db, tableName), queue, now, newId: timeOrderedId });
const startAccountData = startAccountDataExport({ exports, queue, now, newId: timeOrderedId });
const startSecurityEvents = startSecurityEventsExport({ exports, queue, now, newId: timeOrderedId });
const startDirectory = startDirectoryExport({ exports, projects: dynamoProjectStore(db, tableName), queue, now, newId: timeOrderedId });

export const handler = httpHandler({
  'POST /api/exports': route({ body: createExportSchema, run: async ({ userId, body }) => new Response(202, await start(userId, body)) }),
  // 'Export All' in the Account Database: what its filters select.
  'POST /api/exports/directory': route({ body: directoryExportSchema, run: async ({ userId, body }) => new Response(202, await startDirectory(userId, body)) }),
  // 'Export Logs' in the Security Center: every security event as a CSV file in the Export Center.
  'POST /api/exports/security-events': route({ run: async ({ userId }) => new Response(202, await startSecurityEvents(userId)) }),
  'POST /api/exports/account-data': route({
    run: async ({ userId, event }) => {
      const started = await startAccountData(userId);
      // Export All Data puts every password of the user in one file: a security event.
      await recordSecurityEvent({ db, tableName }, {
        userId,
        type: 'data_export',
        description: 'Export of all your data requested (profile, projects and accounts with their passwords)',
        severity: 'medium',
        at: now(),
        source: `data-export:${started.id}`,
        ...requestOrigin(event),
      });
      return new Response(202, started);
    },
  }),
});
