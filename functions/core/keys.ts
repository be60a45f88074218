/**
 * The table's key builders. Every key of every item is built here and nowhere else; the access
 * patterns they serve are listed in docs/data-model.md.
 */
export const entityTypes = ['User'] as const;
export type EntityType = (typeof entityTypes)[number];

export const keys = {
  user: (userId: string) => ({ PK: `USER#${userId}`, SK: 'PROFILE' }) as const,
};
