import { updateProfileSchema } from '../../shared/schemas/user';
import { requestAccountDeletion } from '../account-deletion/request-deletion';
import { sqsDeletionQueue } from '../account-deletion/deletion-queue';
import { dynamoDeletionRequestStore } from '../account-deletion/deletion-request-store';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { updateProfile } from '../users/update-profile';
import { dynamoUserRepository } from '../users/user-repository';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const now = () => new Date();
const update = updateProfile({ users: dynamoUserRepository(db, tableName), now });
const requestDeletion = requestAccountDeletion({
  store: dynamoDeletionRequestStore(db, tableName),
  queue: sqsDeletionQueue(sqs(), requireEnv('ACCOUNT_DELETION_QUEUE_URL')),
  now,
});

export const handler = httpHandler({
  'PUT /api/user/profile': route({ body: updateProfileSchema, run: ({ userId, body }) => update(userId, body) }),
  'DELETE /api/user/account': route({ whileDeleting: 'allow', run: async ({ userId }) => new Response(202, await requestDeletion(userId)) }),
});
