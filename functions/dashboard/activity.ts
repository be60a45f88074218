import { keys } from '../core/keys';

/** Activity items live for a year. */
const ACTIVITY_TTL_SECONDS = 365 * 24 * 3600;

export const activityItem = (userId: string, timestamp: string, id: string, title: string) => ({
  ...keys.activity(userId, timestamp, id),
  entityType: 'Activity',
  title,
  timestamp,
  expiresAt: Math.floor(Date.parse(timestamp) / 1000) + ACTIVITY_TTL_SECONDS,
});
