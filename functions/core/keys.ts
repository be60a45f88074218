/**
 * The table's key builders. Every key of every item is built here and nowhere else; the access
 * patterns they serve are listed in docs/data-model.md. Every key starts from the owner's id
 * (the JWT subject), so one user's requests can only ever address that user's items.
 */
export const entityTypes = ['User', 'Project', 'Account', 'Activity', 'BulkJob'] as const;
export type EntityType = (typeof entityTypes)[number];

const userPk = (userId: string) => `USER#${userId}`;
/** Row numbers padded so the sort key keeps the file's order. */
const rowKey = (row: number) => String(row).padStart(6, '0');

export const keys = {
  user: (userId: string) => ({ PK: userPk(userId), SK: 'PROFILE' }) as const,

  project: (userId: string, projectId: string) => ({ PK: userPk(userId), SK: `PROJECT#${projectId}` }) as const,
  /** Query: a user's projects, newest first (ids are time-ordered). */
  projectsOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'PROJECT#' }) as const,

  account: (userId: string, projectId: string, row: number) =>
    ({ PK: `${userPk(userId)}#PROJECT#${projectId}`, SK: `ACCOUNT#${rowKey(row)}` }) as const,
  /** Query: a project's accounts in file order. */
  accountsOf: (userId: string, projectId: string) => ({ PK: `${userPk(userId)}#PROJECT#${projectId}` }) as const,
  accountId: (projectId: string, row: number) => `${projectId}.${rowKey(row)}`,

  /**
   * Index keys that make an account findable by prefix of first name, last name, e-mail and
   * username among all of its owner's accounts (one partition per user and index).
   */
  accountSearch: (userId: string, fields: { firstName: string; lastName: string; email: string; username: string }, accountId: string) => {
    const pk = `${userPk(userId)}#ACCOUNTS`;
    return {
      GSI1PK: pk,
      GSI1SK: `${fields.firstName}#${accountId}`,
      GSI2PK: pk,
      GSI2SK: `${fields.lastName}#${accountId}`,
      GSI3PK: pk,
      GSI3SK: `${fields.email}#${accountId}`,
      GSI4PK: pk,
      GSI4SK: `${fields.username}#${accountId}`,
    };
  },
  accountSearchPartition: (userId: string) => `${userPk(userId)}#ACCOUNTS`,

  activity: (userId: string, timestamp: string, id: string) => ({ PK: userPk(userId), SK: `ACTIVITY#${timestamp}#${id}` }) as const,
  activitiesOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'ACTIVITY#' }) as const,

  bulkJob: (userId: string, jobId: string) => ({ PK: userPk(userId), SK: `BULKJOB#${jobId}` }) as const,
  bulkJobChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `BULKJOB#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,
};
