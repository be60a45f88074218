/**
 * The table's key builders. Every key of every item is built here and nowhere else; the access
 * patterns they serve are listed in docs/data-model.md. Every key starts from the owner's id
 * (the JWT subject), so one user's requests can only ever address that user's items.
 */
export const entityTypes = ['User', 'Project', 'Account', 'Activity', 'BulkJob', 'Export', 'StripeEvent', 'StripeCustomer', 'Integration', 'EmailTemplate', 'EmailTemplateDefault', 'RejectedRows', 'BulkIdempotency', 'BulkIdempotencyPart'] as const;
export type EntityType = (typeof entityTypes)[number];

const userPk = (userId: string) => `USER#${userId}`;
const SHARD_CHARACTERS = 'abcdefghijklmnopqrstuvwxyz0123456789_';
const shardOf = (term: string) => {
  const first = term.charAt(0);
  return /[a-z0-9]/.test(first) ? first : '_';
};
const accountSearchPartition = (userId: string, term: string) => `${userPk(userId)}#ACCOUNTS#${shardOf(term)}`;

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
   * username among its owner's accounts. Each index partition holds the terms that start with
   * one character, so a prefix query reads one small partition (and writes spread over 37).
   */
  accountSearch: (userId: string, fields: { firstName: string; lastName: string; email: string; username: string }, accountId: string) => ({
    GSI1PK: accountSearchPartition(userId, fields.firstName),
    GSI1SK: `${fields.firstName}#${accountId}`,
    GSI2PK: accountSearchPartition(userId, fields.lastName),
    GSI2SK: `${fields.lastName}#${accountId}`,
    GSI3PK: accountSearchPartition(userId, fields.email),
    GSI3SK: `${fields.email}#${accountId}`,
    GSI4PK: accountSearchPartition(userId, fields.username),
    GSI4SK: `${fields.username}#${accountId}`,
  }),
  /** The index partition of the terms that start like `term`. */
  accountSearchPartition: (userId: string, term: string) => accountSearchPartition(userId, term),
  /** Every search partition of a user (for reading all usernames). */
  allAccountSearchPartitions: (userId: string) => [...SHARD_CHARACTERS].map((c) => `${userPk(userId)}#ACCOUNTS#${c}`),

  activity: (userId: string, timestamp: string, id: string) => ({ PK: userPk(userId), SK: `ACTIVITY#${timestamp}#${id}` }) as const,
  activitiesOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'ACTIVITY#' }) as const,

  bulkJob: (userId: string, jobId: string) => ({ PK: userPk(userId), SK: `BULKJOB#${jobId}` }) as const,
  bulkJobChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `BULKJOB#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,

  /**
   * A project's full rejected-rows report, in parts (an item holds at most 400 KB): its own
   * partition, so neither the project list nor the account pages ever read it.
   */
  rejectedRowsPart: (userId: string, projectId: string, part: number) => ({ PK: `${userPk(userId)}#PROJECT#${projectId}#REJECTED`, SK: `PART#${rowKey(part)}` }) as const,
  rejectedRowsOf: (userId: string, projectId: string) => ({ PK: `${userPk(userId)}#PROJECT#${projectId}#REJECTED` }) as const,

  /** A POST /api/bulk-create Idempotency-Key of the user, and the parts of its stored (encrypted) answer. */
  bulkIdempotency: (userId: string, key: string) => ({ PK: userPk(userId), SK: `IDEMPOTENCY#${key}` }) as const,
  bulkIdempotencyPart: (userId: string, key: string, part: number) => ({ PK: userPk(userId), SK: `IDEMPOTENCY#${key}#PART#${rowKey(part)}` }) as const,

  export: (userId: string, exportId: string) => ({ PK: userPk(userId), SK: `EXPORT#${exportId}` }) as const,
  /** Query: a user's exports, newest first (ids are time-ordered). */
  exportsOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'EXPORT#' }) as const,

  integration: (userId: string, integrationId: string) => ({ PK: userPk(userId), SK: `INTEGRATION#${integrationId}` }) as const,
  /** Query: a user's integrations, newest first (ids are time-ordered). */
  integrationsOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'INTEGRATION#' }) as const,

  emailTemplate: (userId: string, templateId: string) => ({ PK: userPk(userId), SK: `EMAIL_TEMPLATE#${templateId}` }) as const,
  /** Query: a user's e-mail templates. */
  emailTemplatesOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'EMAIL_TEMPLATE#' }) as const,
  /** Which template is the user's default: one item, so two saves cannot both make theirs the default. */
  emailTemplateDefault: (userId: string) => ({ PK: userPk(userId), SK: 'EMAIL_TEMPLATE_DEFAULT' }) as const,

  /**
   * Stripe's webhook calls carry no user token: these two items are keyed by Stripe's ids and
   * written only by the signature-verified webhook. A processed event id (handled once, TTL)...
   */
  stripeEvent: (eventId: string) => ({ PK: `STRIPE_EVENT#${eventId}`, SK: 'EVENT' }) as const,
  /** ... and a Stripe customer's user id, written at checkout completion. */
  stripeCustomer: (customerId: string) => ({ PK: `STRIPE_CUSTOMER#${customerId}`, SK: 'CUSTOMER' }) as const,
};
