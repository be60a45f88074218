import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { dynamoProjectStore } from '../projects/project-store';
import { dashboardStats, recentActivity } from './dashboard';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const stats = dashboardStats({ db, tableName, projects: dynamoProjectStore(db, tableName), now: () => new Date() });
const activity = recentActivity({ db, tableName });

export const handler = httpHandler({
  'GET /api/dashboard/stats': route({ run: ({ userId }) => stats(userId) }),
  'GET /api/dashboard/recent-activity': route({ run: ({ userId }) => activity(userId) }),
});
