import { keys } from '../core/keys';

/**
 * The item to write beside a global item of a user (same transaction or right after it): account
 * deletion reads the user's GLOBALREF# items and deletes the items they name (delete-account.ts).
 */
export const globalReferenceItem = (userId: string, target: { PK: string; SK: string }) => ({
  ...keys.globalReference(userId, target),
  entityType: 'GlobalReference' as const,
  targetPK: target.PK,
  targetSK: target.SK,
});
