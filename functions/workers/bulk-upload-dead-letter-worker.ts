import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { recordDeadUpload } from '../bulk/upload-endings';
import { signedUploadRemover } from '../bulk/upload-remover';
import { uploadQueueMessageSchema } from '../bulk/upload-message';
import { recordDeadPreview } from '../sync/sync-endings';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const record = recordDeadUpload({ db, tableName, objects: signedUploadRemover(requireEnv('EXPORT_BUCKET')), now: () => new Date() });
const deadPreview = recordDeadPreview({ db, tableName, now: () => new Date() });

export const handler = queueWorker(uploadQueueMessageSchema, async (message) => {
  if (!('type' in message)) return record(message);
  // A preview whose reading failed every delivery fails with a reason; an apply's step that did is logged by the queue worker (its jobs keep their own state).
  if (message.type === 'sync-preview') await deadPreview(message.userId, message.previewId);
});
