import { updateSecuritySettingsSchema } from '../../shared/schemas/security';
import { resetPasswordsSchema } from '../../shared/schemas/reset-passwords';
import { twoFactorCodeSchema } from '../../shared/schemas/two-factor';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { cognito, dynamo, sqs } from '../core/clients';
import { appCipher } from '../core/encryption';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { dynamoPlanReader } from '../usage/plan-store';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { getPasswordReset, startPasswordReset } from './reset-passwords';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { sqsMailSender } from '../mail/sqs-mail-queue';
import { listSecurityEvents } from './security-event-list';
import { requestOrigin } from './security-events';
import { securityOverview } from './security-overview';
import { dynamoSecuritySettingsStore, getSecuritySettings, updateSecuritySettings } from './security-settings';
import { disableTwoFactor, enableTwoFactor, setUpTwoFactor } from './two-factor';
import { cognitoSoftwareTokens, dynamoTwoFactorStore } from './two-factor-adapters';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const now = () => new Date();
const events = { db, tableName, mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')) };
const settingsDeps = { store: dynamoSecuritySettingsStore(db, tableName), events, now };
const getSettings = getSecuritySettings(settingsDeps);
const putSettings = updateSecuritySettings(settingsDeps);
const readDeps = { db, tableName, now };
const listEvents = listSecurityEvents(readDeps);
const overview = securityOverview(readDeps);
const twoFactorDeps = { tokens: cognitoSoftwareTokens(cognito()), store: dynamoTwoFactorStore(db, tableName), cipher: appCipher, events, now };
const setUp = setUpTwoFactor(twoFactorDeps);
const enable = enableTwoFactor(twoFactorDeps);
const disable = disableTwoFactor(twoFactorDeps);
// Reset Passwords: a job on the provisioning queue (its worker holds the platforms' adapters).
const resetDeps = { db, tableName, now, queue: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')) };
const startReset = startPasswordReset({
  ...resetDeps,
  newId: timeOrderedId,
  events,
  plan: dynamoPlanReader(db, tableName),
  async integrationName(userId, integrationId) {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.integration(userId, integrationId), ProjectionExpression: '#n', ExpressionAttributeNames: { '#n': 'name' } }));
    return typeof Item?.name === 'string' ? Item.name : undefined;
  },
});
const readResetJob = getPasswordReset(resetDeps);

export const handler = httpHandler({
  'GET /api/security/settings': route({ passwordExpired: 'allow', run: ({ userId }) => getSettings(userId) }),
  'PUT /api/security/settings': route({ body: updateSecuritySettingsSchema, run: ({ userId, body, event }) => putSettings(userId, body, requestOrigin(event)) }),
  'GET /api/security/events': route({ run: ({ userId, query }) => listEvents(userId, query) }),
  'GET /api/security/overview': route({ run: ({ userId }) => overview(userId) }),
  'POST /api/security/two-factor/setup': route({ run: ({ userId, accessToken }) => setUp(userId, accessToken) }),
  'POST /api/security/two-factor/enable': route({ body: twoFactorCodeSchema, run: ({ userId, accessToken, body, event }) => enable(userId, accessToken, body.code, requestOrigin(event)) }),
  'POST /api/security/two-factor/disable': route({ body: twoFactorCodeSchema, run: ({ userId, accessToken, body, event }) => disable(userId, accessToken, body.code, requestOrigin(event)) }),
  'POST /api/security/reset-passwords': route({
    body: resetPasswordsSchema,
    run: async ({ userId, body, event }) => new Response(202, await startReset(userId, body.projectId, requestOrigin(event), { accountIds: body.accountIds, filter: body.filter })),
  }),
  'GET /api/security/reset-passwords/{id}': route({ run: ({ userId, pathParameters }) => readResetJob(userId, pathParameters.id ?? '') }),
});
