import { updateSecuritySettingsSchema } from '../../shared/schemas/security';
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

export const handler = httpHandler({
  'GET /api/security/settings': route({ passwordExpired: 'allow', run: ({ userId }) => getSettings(userId) }),
  'PUT /api/security/settings': route({ body: updateSecuritySettingsSchema, run: ({ userId, body, event }) => putSettings(userId, body, requestOrigin(event)) }),
});
