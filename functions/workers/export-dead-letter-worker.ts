import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { exportMessageSchema } from '../exports/export-message';
import { dynamoExportStore } from '../exports/export-store';
import { recordDeadExport } from '../exports/record-dead-export';

const record = recordDeadExport({ exports: dynamoExportStore(dynamo(), requireEnv('TABLE_NAME')), now: () => new Date() });

export const handler = queueWorker(exportMessageSchema, (message) => record(message));
