import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { deletionMessageSchema } from '../account-deletion/deletion-message';
import { sqsDeletionQueue } from '../account-deletion/deletion-queue';
import { redriveDeletion } from '../account-deletion/redrive-deletion';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { keys } from '../core/keys';
import { queueWorker } from '../core/queue-worker';

const tableName = requireEnv('TABLE_NAME');
const redrive = redriveDeletion({
  // The user item alone (strongly consistent): does it still wait to be erased?
  profile: async (userId) => (await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true }))).Item,
  queue: sqsDeletionQueue(sqs(), requireEnv('ACCOUNT_DELETION_QUEUE_URL')),
});

export const handler = queueWorker(deletionMessageSchema, async (message) => {
  await redrive(message);
});
