import { markReadSchema } from '../../shared/schemas/notifications';
import { updateProfileSchema } from '../../shared/schemas/user';
import { updateUserSettingsSchema } from '../../shared/schemas/user-settings';
import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { listNotifications, markNotificationsRead } from '../notifications/notifications';
import { updateProfile } from '../users/update-profile';
import { dynamoUserRepository } from '../users/user-repository';
import { dynamoSettingsStore, getUserSettings, updateUserSettings } from '../users/user-settings';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const now = () => new Date();
const users = dynamoUserRepository(db, tableName);
const update = updateProfile({ users, now });
const settingsDeps = { users, settings: dynamoSettingsStore(db, tableName), now };
const getSettings = getUserSettings(settingsDeps);
const putSettings = updateUserSettings(settingsDeps);
const list = listNotifications({ db, tableName, now });
const markRead = markNotificationsRead({ db, tableName, now });

export const handler = httpHandler({
  'PUT /api/user/profile': route({ body: updateProfileSchema, run: ({ userId, body }) => update(userId, body) }),
  'GET /api/user/settings': route({ run: ({ userId }) => getSettings(userId) }),
  'PUT /api/user/settings': route({ body: updateUserSettingsSchema, run: ({ userId, body }) => putSettings(userId, body) }),
  'GET /api/notifications': route({ run: ({ userId, query }) => list(userId, query) }),
  'POST /api/notifications/read': route({ body: markReadSchema, run: ({ userId, body }) => markRead(userId, body) }),
});
