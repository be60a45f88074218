import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { dynamo, sqs } from '../core/clients';
import { workerRetry } from '../core/dynamo-retry';
import { requireEnv } from '../core/env';
import { timeOrderedId } from '../core/ids';
import { queueWorker } from '../core/queue-worker';
import { appCreateBulkAccounts } from '../bulk/app-creation';
import { dynamoBulkStore } from '../bulk/bulk-store';
import { readUpload } from '../bulk/bulk-uploads';
import { signedUploadObjects } from '../bulk/upload-requests';
import { uploadQueueMessageSchema } from '../bulk/upload-message';
import { dynamoIntegrationStore } from '../integrations/integration-store';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { runSyncApply } from '../sync/sync-apply-worker';
import { runSyncPreview, type SyncMessage } from '../sync/sync-preview';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const objects = signedUploadObjects(requireEnv('EXPORT_BUCKET'));
const create = appCreateBulkAccounts(db, tableName, dynamoBulkStore(db, tableName, workerRetry));
const read = readUpload({ db, tableName, objects, now: () => new Date(), newId: timeOrderedId, create });
// A sync's next step goes back on this queue (functions/sync).
const queue = async (message: SyncMessage, delaySeconds?: number) => {
  await sqs().send(new SendMessageCommand({ QueueUrl: requireEnv('BULK_UPLOADS_QUEUE_URL'), MessageBody: JSON.stringify(message), ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}) }));
};
const integrations = dynamoIntegrationStore(db, tableName);
const preview = runSyncPreview({ db, tableName, objects, now: () => new Date(), queue });
const apply = runSyncApply({
  db,
  tableName,
  now: () => new Date(),
  newId: timeOrderedId,
  queue,
  actions: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')),
  integrationName: async (userId, id) => (await integrations.get(userId, id))?.name,
  create,
});

export const handler = queueWorker(uploadQueueMessageSchema, (message) => {
  if ('type' in message) return message.type === 'sync-preview' ? preview(message.userId, message.previewId) : apply(message.userId, message.previewId);
  return read(message);
});
