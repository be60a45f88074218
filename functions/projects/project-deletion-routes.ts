import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { ValidationError } from '../core/errors';
import { Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { requestOrigin } from '../security/security-events';
import { getProjectDeletion, startProjectDeletion } from './project-deletion';

/** `?removeFromPlatform=true|false` (default true: a provisioned project's accounts are removed there first). */
const removeFromPlatformOf = (value: string | undefined): boolean => {
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw new ValidationError('removeFromPlatform must be true or false');
};

/** DELETE /api/projects/{id} (202 with the job) and GET /api/project-deletions/{id}, for the projects handler. */
export function projectDeletionRoutes() {
  const db = dynamo();
  const tableName = requireEnv('TABLE_NAME');
  const deps = { db, tableName, now: () => new Date(), queue: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')) };
  const start = startProjectDeletion({
    ...deps,
    newId: timeOrderedId,
    events: { db, tableName },
    async integrationName(userId, integrationId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.integration(userId, integrationId), ProjectionExpression: '#n', ExpressionAttributeNames: { '#n': 'name' } }));
      return typeof Item?.name === 'string' ? Item.name : undefined;
    },
  });
  const read = getProjectDeletion(deps);
  return {
    'DELETE /api/projects/{id}': route({
      run: async ({ userId, pathParameters, query, event }) => new Response(202, await start(userId, pathParameters.id ?? '', removeFromPlatformOf(query.removeFromPlatform), requestOrigin(event))),
    }),
    'GET /api/project-deletions/{id}': route({ run: ({ userId, pathParameters }) => read(userId, pathParameters.id ?? '') }),
  };
}
