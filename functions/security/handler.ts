import { updateSecuritySettingsSchema } from '../../shared/schemas/security';
import { resetPasswordsSchema } from '../../shared/schemas/reset-passwords';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Response } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { getPasswordReset, startPasswordReset } from './reset-passwords';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { sqsMailSender } from '../mail/sqs-mail-queue';
import { requestOrigin } from './security-events';
import { dynamoSecuritySettingsStore, getSecuritySettings, updateSecuritySettings } from './security-settings';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const now = () => new Date();
const events = { db, tableName, mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')) };
const settingsDeps = { store: dynamoSecuritySettingsStore(db, tableName), events, now };
const getSettings = getSecuritySettings(settingsDeps);
const putSettings = updateSecuritySettings(settingsDeps);
// Reset Passwords: a job on the provisioning queue (its worker holds the platforms' adapters).
const resetDeps = { db, tableName, now, queue: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')) };
const startReset = startPasswordReset({
  ...resetDeps,
  newId: timeOrderedId,
  events,
  async integrationName(userId, integrationId) {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.integration(userId, integrationId), ProjectionExpression: '#n', ExpressionAttributeNames: { '#n': 'name' } }));
    return typeof Item?.name === 'string' ? Item.name : undefined;
  },
});
const readResetJob = getPasswordReset(resetDeps);

export const handler = httpHandler({
  'GET /api/security/settings': route({ run: ({ userId }) => getSettings(userId) }),
  'PUT /api/security/settings': route({ body: updateSecuritySettingsSchema, run: ({ userId, body, event }) => putSettings(userId, body, requestOrigin(event)) }),
  'POST /api/security/reset-passwords': route({
    body: resetPasswordsSchema,
    run: async ({ userId, body, event }) => new Response(202, await startReset(userId, body.projectId, requestOrigin(event))),
  }),
  'GET /api/security/reset-passwords/{id}': route({ run: ({ userId, pathParameters }) => readResetJob(userId, pathParameters.id ?? '') }),
});
