import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { exportMessageSchema } from '../exports/export-message';
import { dynamoExportStore } from '../exports/export-store';
import { recordDeadExport } from '../exports/record-dead-export';
import { exportFailed } from '../notifications/events';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const record = recordDeadExport({ exports: dynamoExportStore(db, tableName), now: () => new Date(), notifyFailed: (input) => exportFailed({ db, tableName }, input) });

export const handler = queueWorker(exportMessageSchema, (message) => record(message));
