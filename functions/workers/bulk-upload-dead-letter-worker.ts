import { dynamo, s3 } from '../core/clients';
import { requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { recordDeadUpload } from '../bulk/upload-endings';
import { s3UploadObjects } from '../bulk/upload-objects';
import { uploadMessageSchema } from '../bulk/upload-message';

const record = recordDeadUpload({ db: dynamo(), tableName: requireEnv('TABLE_NAME'), objects: s3UploadObjects(s3(), requireEnv('EXPORT_BUCKET')), now: () => new Date() });

export const handler = queueWorker(uploadMessageSchema, (message) => record(message));
