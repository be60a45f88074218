import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { analytics } from './analytics';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const read = analytics({ db, tableName, now: () => new Date() });

export const handler = httpHandler({
  'GET /api/analytics': route({ run: ({ userId }) => read(userId) }),
});
