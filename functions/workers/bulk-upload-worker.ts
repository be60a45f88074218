import { dynamo, s3 } from '../core/clients';
import { workerRetry } from '../core/dynamo-retry';
import { requireEnv } from '../core/env';
import { timeOrderedId } from '../core/ids';
import { queueWorker } from '../core/queue-worker';
import { appCreateBulkAccounts } from '../bulk/app-creation';
import { dynamoBulkStore } from '../bulk/bulk-store';
import { readUpload } from '../bulk/bulk-uploads';
import { s3UploadObjects } from '../bulk/upload-objects';
import { uploadMessageSchema } from '../bulk/upload-message';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const read = readUpload({
  db,
  tableName,
  objects: s3UploadObjects(s3(), requireEnv('EXPORT_BUCKET')),
  now: () => new Date(),
  newId: timeOrderedId,
  create: appCreateBulkAccounts(db, tableName, dynamoBulkStore(db, tableName, workerRetry)),
});

export const handler = queueWorker(uploadMessageSchema, (message) => read(message));
