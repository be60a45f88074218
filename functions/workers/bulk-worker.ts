import { randomBytes } from 'node:crypto';
import { dynamo } from '../core/clients';
import { workerRetry } from '../core/dynamo-retry';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { timeOrderedId } from '../core/ids';
import { queueWorker } from '../core/queue-worker';
import { bulkChunkMessageSchema } from '../bulk/bulk-chunk';
import { dynamoBulkStore } from '../bulk/bulk-store';
import { processChunk } from '../bulk/process-chunk';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const processMessage = processChunk({ db, tableName, store: dynamoBulkStore(db, tableName, workerRetry), cipher: appCipher, randomBytes, now: () => new Date(), newId: timeOrderedId });

export const handler = queueWorker(bulkChunkMessageSchema, (message) => processMessage(message));
