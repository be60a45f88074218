/**
 * The table's key builders. Every key of every item is built here and nowhere else; the access
 * patterns they serve are listed in docs/data-model.md. Every key starts from the owner's id
 * (the JWT subject), so one user's requests can only ever address that user's items.
 */
export const entityTypes = ['User', 'Project', 'Account', 'Activity', 'BulkJob', 'Export', 'StripeEvent', 'StripeCustomer', 'Integration', 'EmailTemplate', 'EmailTemplateDefault', 'RejectedRows', 'BulkIdempotency', 'BulkIdempotencyPart', 'Username', 'UsernameBlock', 'ProvisioningJob', 'ProvisioningChunk', 'ProvisioningLease', 'MailSend', 'MailSendChunk', 'MailMessage', 'EmailSuppression', 'CredentialLink', 'Notification', 'UserSettings', 'CredentialLinkIssue', 'DigestSubscriber', 'GlobalReference', 'SecurityEvent', 'SignInGuard', 'Session', 'PasswordReset', 'PasswordResetChunk', 'ProjectDeletion', 'ProjectDeletionChunk', 'ProjectDeletionChunkStart', 'AccountAction', 'AccountActionChunk', 'UserStats', 'AccountStates', 'AccountHistory', 'JobFailure', 'AccountLink', 'Migration', 'AccountStatusList', 'UnreadNotification', 'AccountAttributeIndex', 'SyncPreview', 'SyncPreviewPart', 'IntegrationTurn', 'MailRateWindow', 'MailDay', 'AccountHistoryBlock', 'ProjectReminder', 'ReminderSent'] as const;
export type EntityType = (typeof entityTypes)[number];

const userPk = (userId: string) => `USER#${userId}`;
const SHARD_CHARACTERS = 'abcdefghijklmnopqrstuvwxyz0123456789_';
const shardOf = (term: string) => {
  const first = term.charAt(0);
  return /[a-z0-9]/.test(first) ? first : '_';
};
const accountSearchPartition = (userId: string, term: string) => `${userPk(userId)}#ACCOUNTS#${shardOf(term)}`;
/**
 * Usernames are `<base>` or `<base>-<n>`: the partition follows from a hash of the base (FNV-1a),
 * so one base's names share a partition (one Query finds them) while an import's names spread
 * evenly over USERNAME_PARTITIONS partitions (by first letter, 'j' alone would take ~13%).
 */
export const USERNAME_PARTITIONS = 37;
/**
 * A large job's waiting chunks (~20 KB each, ~500 for a 250,000-row upload) are spread over this
 * many partitions of their own: in the user's partition they were ~10 MB written into one
 * partition key at once (DynamoDB takes ~1,000 WCU a second per partition), beside every other
 * item of the user.
 */
export const WAITING_CHUNK_PARTITIONS = 8;
const usernameBase = (username: string) => username.replace(/-\d+$/, '');
const usernameShard = (username: string) => {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(usernameBase(username))) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % USERNAME_PARTITIONS;
};
const usernamePartition = (userId: string, username: string) => `${userPk(userId)}#USERNAMES#${usernameShard(username)}`;

const USERNAME_BLOCK_PREFIX = 'USERNAMEBLOCK#';
const EXPIRY_PARTITION = 'EXPIRY';
const REMINDER_PARTITION = 'REMIND';

const accountPartition = (userId: string, projectId: string, shard: number) => `${userPk(userId)}#PROJECT#${projectId}${shard ? `#SHARD#${shard}` : ''}`;

/** Row numbers padded so the sort key keeps the file's order. */
const rowKey = (row: number) => String(row).padStart(6, '0');

export const keys = {
  user: (userId: string) => ({ PK: userPk(userId), SK: 'PROFILE' }) as const,

  project: (userId: string, projectId: string) => ({ PK: userPk(userId), SK: `PROJECT#${projectId}` }) as const,
  /** Query: a user's projects, newest first (ids are time-ordered). */
  projectsOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'PROJECT#' }) as const,

  /**
   * A project's accounts spread over `shards` partitions by row number (row % shards), so an
   * import writes to many partitions at once instead of one (a partition takes 1,000 WCU/s).
   * Shard 0 is the project's partition as it always was: projects written before sharding, and
   * small ones (shards = 1), are read as before. The project item says how many shards it has.
   */
  account: (userId: string, projectId: string, row: number, shards = 1) =>
    ({ PK: accountPartition(userId, projectId, row % Math.max(1, shards)), SK: `ACCOUNT#${rowKey(row)}` }) as const,
  /** Query: a project's accounts in file order (shard 0: all of them when the project has one shard). */
  accountsOf: (userId: string, projectId: string) => ({ PK: accountPartition(userId, projectId, 0) }) as const,
  /** Every partition of a project's accounts. */
  accountPartitions: (userId: string, projectId: string, shards = 1) => Array.from({ length: Math.max(1, shards) }, (_, shard) => accountPartition(userId, projectId, shard)),
  accountId: (projectId: string, row: number) => `${projectId}.${rowKey(row)}`,
  /** Query: the state blocks of a project's accounts (functions/accounts/account-states.ts). */
  accountStatesOf: (userId: string, projectId: string) => ({ PK: `${accountPartition(userId, projectId, 0)}#STATE` }) as const,
  /** One state block: a channel's entries for the rows of one shard from `fromRow` on. */
  accountStateBlock: (userId: string, projectId: string, channel: string, fromRow: number, shard: number) =>
    ({ PK: `${accountPartition(userId, projectId, 0)}#STATE`, SK: `${channel}#${rowKey(fromRow)}#${String(shard).padStart(2, '0')}` }) as const,

  /**
   * The rows of one PROV state block whose platform status is `status` (failed, removed: the
   * exceptions), beside the block in the project's STATE partition, written with it
   * (account-state-writer.ts): the Account Database's "Sync Failed" filter reads these instead of
   * passing over every account (docs/data-model.md, "The Account Database as a directory"). Its own
   * prefix: the blocks' range reads (`PROV#…`) never see one.
   */
  accountStatusList: (userId: string, projectId: string, status: string, fromRow: number, shard: number) =>
    ({ PK: `${accountPartition(userId, projectId, 0)}#STATE`, SK: `LIST#${status}#${rowKey(fromRow)}#${String(shard).padStart(2, '0')}` }) as const,
  accountStatusListPrefix: (status: string) => `LIST#${status}#`,

  /**
   * What happened to an account that no other record keeps (an edit, and the lifecycle actions to
   * come), in one partition per project beside its state blocks: sort key `<row>#<ISO time>#<id>`,
   * so one account's entries are a begins_with Query, newest first with ScanIndexForward false.
   * Listed in projectPartitions: deleting the project's data deletes them.
   */
  accountHistory: (userId: string, projectId: string, row: number, at: string, id: string) =>
    ({ PK: `${accountPartition(userId, projectId, 0)}#HISTORY`, SK: `${rowKey(row)}#${at}#${id}` }) as const,
  /** Query: one account's history entries (begins_with on SK). */
  accountHistoryOf: (userId: string, projectId: string, row: number) => ({ PK: `${accountPartition(userId, projectId, 0)}#HISTORY`, SKPrefix: `${rowKey(row)}#` }) as const,
  /**
   * What one account action did to a block of accounts (the rows of one ACT state block: 50
   * accounts of a shard, account-states.ts), in the same partition: one item per block and job,
   * an attribute per account (`r<row>`) instead of an item per account
   * (functions/accounts/account-history-blocks.ts). Sort key `BLOCK#<first row>#<shard>#<jobId>`
   * (after every `<row>#` key, so an account's own entries never see them); a job id is
   * time-ordered, so a block's items are newest first with ScanIndexForward false.
   */
  accountHistoryBlock: (userId: string, projectId: string, fromRow: number, shard: number, jobId: string) =>
    ({ PK: `${accountPartition(userId, projectId, 0)}#HISTORY`, SK: `BLOCK#${rowKey(fromRow)}#${String(shard).padStart(2, '0')}#${jobId}` }) as const,
  /** Query: the history items of one block (begins_with on SK). */
  accountHistoryBlocksOf: (userId: string, projectId: string, fromRow: number, shard: number) =>
    ({ PK: `${accountPartition(userId, projectId, 0)}#HISTORY`, SKPrefix: `BLOCK#${rowKey(fromRow)}#${String(shard).padStart(2, '0')}#` }) as const,

  /**
   * The Account Database's Attribute filter (docs/data-model.md, pattern 77): one small item per
   * extra column of an account, in one partition per project, sorted by column, value (case
   * folded, see attributeValueKey) and row, so the accounts of a project with department = Sales
   * are one Query in row order. Listed in projectPartitions.
   */
  accountAttributeIndex: (userId: string, projectId: string, key: string, valueKey: string, row: number) =>
    ({ PK: `${accountPartition(userId, projectId, 0)}#ATTR`, SK: `${key}#${valueKey}#${rowKey(row)}` }) as const,
  /**
   * How many of a project's accounts hold one column value (the Attribute filter's exact count,
   * functions/accounts/attribute-counts.ts): in the index's partition, after every entry (a column
   * key starts with a letter, '~' sorts after them), so no entry range ever reads one.
   */
  accountAttributeCount: (userId: string, projectId: string, key: string, valueKey: string) => ({ PK: `${accountPartition(userId, projectId, 0)}#ATTR`, SK: `~COUNT#${key}#${valueKey}` }) as const,
  /** Query: the index entries of one column value in a project (begins_with / BETWEEN on SK). */
  accountAttributeIndexOf: (userId: string, projectId: string, key: string, valueKey: string) => ({ PK: `${accountPartition(userId, projectId, 0)}#ATTR`, SKPrefix: `${key}#${valueKey}#` }) as const,

  /**
   * The one-time links issued to an account (functions/credential-links): one small item per
   * link (`tokenHash`, `sendId`), written with the link, in one partition per project (sort key
   * `<row>#<sendId>`), so deleting the account finds its links by a begins_with Query.
   * Listed in projectPartitions.
   */
  accountLink: (userId: string, projectId: string, row: number, sendId: string) => ({ PK: `${accountPartition(userId, projectId, 0)}#LINKS`, SK: `${rowKey(row)}#${sendId}` }) as const,
  /** Query: one account's links (begins_with on SK). */
  accountLinksOf: (userId: string, projectId: string, row: number) => ({ PK: `${accountPartition(userId, projectId, 0)}#LINKS`, SKPrefix: `${rowKey(row)}#` }) as const,

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
  /**
   * A project's place in the ProjectsByExpiry index (sparse: only a project whose expiration date
   * is set and not handled yet has these attributes): one index partition sorted by the date, so
   * the expiry sweep Queries the due ones (docs/data-model.md, "Expiry").
   */
  projectExpiry: (userId: string, projectId: string, date: string) => ({ ExpiryPK: EXPIRY_PARTITION, ExpirySK: `${date}#${userId}#${projectId}` }) as const,
  /** Query on ProjectsByExpiry: every project to expire, by date. */
  expiryDue: () => ({ ExpiryPK: EXPIRY_PARTITION }) as const,
  /**
   * A project's expiry reminder ('Remind account holders N days before'): one item per project in
   * its `#REMIND` partition (listed in projectPartitions), in the ProjectsByExpiry index's own
   * partition `REMIND` while it waits, sorted by the day it is due (the date minus N days), so the
   * hourly sweep Queries the due ones beside the expiries (functions/schedules/expiry-reminders.ts).
   */
  projectReminder: (userId: string, projectId: string) => ({ PK: `${accountPartition(userId, projectId, 0)}#REMIND`, SK: 'REMINDER' }) as const,
  projectReminderEntry: (userId: string, projectId: string, remindOn: string) => ({ ExpiryPK: REMINDER_PARTITION, ExpirySK: `${remindOn}#${userId}#${projectId}` }) as const,
  /** Query on ProjectsByExpiry: every reminder waiting, by the day it is due. */
  remindersDue: () => ({ ExpiryPK: REMINDER_PARTITION }) as const,
  /** One account reminded of one expiration date (the claim that makes it once): beside the reminder. */
  reminderSent: (userId: string, projectId: string, date: string, row: number) => ({ PK: `${accountPartition(userId, projectId, 0)}#REMIND`, SK: `SENT#${date}#${rowKey(row)}` }) as const,
  /**
   * A project's expiry reminder run as a job (functions/schedules/expiry-reminder-job.ts), beside
   * the reminder (erased with the project): its id `<projectId>.<date>.<days>` (reminderJobId), one
   * job per reminder; its chunks' done markers beside it.
   */
  reminderJob: (userId: string, jobId: string) => ({ PK: `${accountPartition(userId, jobId.split('.')[0]!, 0)}#REMIND`, SK: `JOB#${jobId}` }) as const,
  reminderJobChunk: (userId: string, jobId: string, chunk: number) => ({ PK: `${accountPartition(userId, jobId.split('.')[0]!, 0)}#REMIND`, SK: `JOB#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,
  /** Every search partition of a user (for reading all usernames). */
  allAccountSearchPartitions: (userId: string) => [...SHARD_CHARACTERS].map((c) => `${userPk(userId)}#ACCOUNTS#${c}`),

  /**
   * A username of the user, on the base table: the only place its uniqueness is decided
   * (conditional put; strongly consistent prefix reads). Never an index: indexes are eventually
   * consistent on AWS.
   */
  username: (userId: string, username: string) => ({ PK: usernamePartition(userId, username), SK: `USERNAME#${username}` }) as const,
  /** Query: the partition of a base's names (`<base>`, `<base>-2` ...: begins_with on SK `USERNAME#<base>`). */
  usernamePartition: (userId: string, base: string) => usernamePartition(userId, base),
  /**
   * The names one chunk of a job gave in one username partition (`part`: a block that would grow
   * past its size bound goes on in the next part), in the same partition as those names' items,
   * so deleting the user's username partitions deletes them too. Its own prefix, not under
   * `USERNAME#`: a base's begins_with query never reads a block by accident.
   */
  usernameBlock: (userId: string, username: string, jobId: string, chunk: number, part: number) =>
    ({ PK: usernamePartition(userId, username), SK: `${USERNAME_BLOCK_PREFIX}${jobId}#${rowKey(chunk)}#${part}` }) as const,
  usernameBlockPrefix: USERNAME_BLOCK_PREFIX,
  allUsernamePartitions: (userId: string) => Array.from({ length: USERNAME_PARTITIONS }, (_, shard) => `${userPk(userId)}#USERNAMES#${shard}`),

  activity: (userId: string, timestamp: string, id: string) => ({ PK: userPk(userId), SK: `ACTIVITY#${timestamp}#${id}` }) as const,
  activitiesOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'ACTIVITY#' }) as const,

  bulkJob: (userId: string, jobId: string) => ({ PK: userPk(userId), SK: `BULKJOB#${jobId}` }) as const,
  bulkJobChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `BULKJOB#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,
  /** A chunk waiting for its turn on the bulk queue (functions/bulk/bulk-jobs.ts), in one of WAITING_CHUNK_PARTITIONS side partitions by its number. */
  bulkJobWaitingChunk: (userId: string, jobId: string, chunk: number) =>
    ({ PK: `${userPk(userId)}#BULKWAITING#${chunk % WAITING_CHUNK_PARTITIONS}`, SK: `BULKJOB#${jobId}#WAITING#${rowKey(chunk)}` }) as const,
  /** Where a waiting chunk was kept before they were spread (a job under way during the release that spread them). */
  legacyBulkJobWaitingChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `BULKJOB#${jobId}#WAITING#${rowKey(chunk)}` }) as const,

  /** A CSV uploaded to S3 for a bulk creation (functions/bulk/bulk-uploads.ts): options, progress, report. */
  bulkUpload: (userId: string, uploadId: string) => ({ PK: userPk(userId), SK: `BULKUPLOAD#${uploadId}` }) as const,

  /** A provisioning run (functions/provisioning) and the marker of each of its finished chunks. */
  provisioningJob: (userId: string, jobId: string) => ({ PK: userPk(userId), SK: `PROVJOB#${jobId}` }) as const,
  provisioningChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `PROVJOB#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,
  /** Who is working on a chunk now (one delivery at a time): its own prefix, so run queries never read it. */
  provisioningLease: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `PROVLEASE#${jobId}#${rowKey(chunk)}` }) as const,
  /** A Reset Passwords job (functions/security/reset-passwords.ts) and its finished chunks; its chunks' leases are provisioningLease (ids are unique). */
  passwordReset: (userId: string, jobId: string) => ({ PK: userPk(userId), SK: `PWRESET#${jobId}` }) as const,
  passwordResetChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `PWRESET#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,
  /** A project's deletion (functions/projects/project-deletion.ts) and its chunks (their progress and done markers); leases: provisioningLease. */
  projectDeletion: (userId: string, jobId: string) => ({ PK: userPk(userId), SK: `PROJDEL#${jobId}` }) as const,
  projectDeletionChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `PROJDEL#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,
  /** What a deletion chunk started from (its accounts' counts), beside its marker: no doneAt, so the engine's chunk reads pass it by. */
  projectDeletionChunkStart: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `PROJDEL#${jobId}#CHUNK#${rowKey(chunk)}#START` }) as const,
  /** An account action (Deactivate / Reactivate / Delete over some of a project's accounts: functions/account-actions) and its finished chunks; leases are provisioningLease. */
  /** A sync preview of a file against a project (functions/sync), its apply's progress on it. */
  syncPreview: (userId: string, previewId: string) => ({ PK: userPk(userId), SK: `SYNCPREVIEW#${previewId}` }) as const,
  /**
   * One part of a preview's section (up to 500 entries), or its apply's tally of one part, in the
   * user's SYNC side partition (account deletion erases it; the TTL removes it after 7 days): a
   * page is one GetItem, a section one Query.
   */
  syncPreviewPart: (userId: string, previewId: string, section: string, part: number) => ({ PK: `${userPk(userId)}#SYNC`, SK: `${previewId}#${section}#${rowKey(part)}` }) as const,
  syncPreviewPartsOf: (userId: string, previewId: string) => ({ PK: `${userPk(userId)}#SYNC`, SKPrefix: `${previewId}#` }) as const,
  /**
   * One part (up to DIRECTORY_WALK_PART_IDS, 500, project ids) of the order a directory listing by project
   * walks, written by its first page (functions/accounts/directory-walk.ts) in the user's WALK side
   * partition (account deletion erases it; the TTL removes it after 7 days): a later page reads the
   * part holding its place, never every project.
   */
  directoryWalkPart: (userId: string, walkId: string, part: number) => ({ PK: `${userPk(userId)}#WALK`, SK: `${walkId}#${rowKey(part)}` }) as const,
  accountAction: (userId: string, jobId: string) => ({ PK: userPk(userId), SK: `ACCTACTION#${jobId}` }) as const,
  accountActionChunk: (userId: string, jobId: string, chunk: number) => ({ PK: userPk(userId), SK: `ACCTACTION#${jobId}#CHUNK#${rowKey(chunk)}` }) as const,
  /** An action over a selection of the Account Database (functions/account-jobs/directory-actions.ts): its per-project jobs named on it. */
  directoryAction: (userId: string, actionId: string) => ({ PK: userPk(userId), SK: `DIRACTION#${actionId}` }) as const,
  /**
   * One account a job over accounts (a Reset Passwords job, an account action) could not handle,
   * by its row, beside the job item (`<job SK>#FAILED#<row>`): the job's failures list reads these
   * (account-jobs/job-failures.ts) instead of the project's accounts. Written with the chunk's tally.
   */
  jobFailure: (userId: string, jobSk: string, row: number) => ({ PK: userPk(userId), SK: `${jobSk}#FAILED#${rowKey(row)}` }) as const,
  /** Query: a job's failed accounts in row order (begins_with). */
  jobFailuresOf: (userId: string, jobSk: string) => ({ PK: userPk(userId), SKPrefix: `${jobSk}#FAILED#` }) as const,
  /** Query: a user's provisioning runs and their chunk markers (begins_with). */
  provisioningJobsOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'PROVJOB#' }) as const,

  /**
   * A project's full rejected-rows report, in parts (an item holds at most 400 KB): its own
   * partition, so neither the project list nor the account pages ever read it.
   */
  rejectedRowsPart: (userId: string, projectId: string, part: number) => ({ PK: `${userPk(userId)}#PROJECT#${projectId}#REJECTED`, SK: `PART#${rowKey(part)}` }) as const,
  /** The rows an add of people to the project (functions/bulk/add-people.ts, job `jobId`) refused, in the same partition after the creation's: `ADD#<jobId>#<part>`. */
  rejectedRowsAddPart: (userId: string, projectId: string, jobId: string, part: number) => ({ PK: `${userPk(userId)}#PROJECT#${projectId}#REJECTED`, SK: `ADD#${jobId}#${rowKey(part)}` }) as const,
  rejectedRowsOf: (userId: string, projectId: string) => ({ PK: `${userPk(userId)}#PROJECT#${projectId}#REJECTED` }) as const,

  /** A POST /api/bulk-create Idempotency-Key of the user, and the parts of its stored (encrypted) answer. */
  bulkIdempotency: (userId: string, key: string) => ({ PK: userPk(userId), SK: `IDEMPOTENCY#${key}` }) as const,
  bulkIdempotencyPart: (userId: string, key: string, part: number) => ({ PK: userPk(userId), SK: `IDEMPOTENCY#${key}#PART#${rowKey(part)}` }) as const,

  export: (userId: string, exportId: string) => ({ PK: userPk(userId), SK: `EXPORT#${exportId}` }) as const,
  /** Query: a user's exports, newest first (ids are time-ordered). */
  exportsOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'EXPORT#' }) as const,

  integration: (userId: string, integrationId: string) => ({ PK: userPk(userId), SK: `INTEGRATION#${integrationId}` }) as const,
  /**
   * Whose turn it is to call an integration's platform (functions/account-jobs/integration-turn.ts):
   * one chunk delivery at a time, with the platform's token bucket carried from one holder to the
   * next. Its own prefix, so the integrations' Query (`INTEGRATION#`) never reads it.
   */
  integrationTurn: (userId: string, integrationId: string) => ({ PK: userPk(userId), SK: `INTTURN#${integrationId}` }) as const,
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
  /** A credentials send (a job like a provisioning run) and its chunks: functions/mail. */
  mailSend: (userId: string, sendId: string) => ({ PK: userPk(userId), SK: `MAILSEND#${sendId}` }) as const,
  mailSendChunk: (userId: string, sendId: string, chunk: number) => ({ PK: userPk(userId), SK: `MAILSEND#${sendId}#CHUNK#${rowKey(chunk)}` }) as const,
  /** The e-mails a customer was allowed on a UTC day (YYYY-MM-DD) against the daily cap (functions/mail/send-share.ts). */
  mailDay: (userId: string, day: string) => ({ PK: userPk(userId), SK: `MAILDAY#${day}` }) as const,
  /** One window of the installation's SES rate, shared by every customer (functions/mail/send-share.ts). Global, owned by no user. */
  mailRateWindow: (window: number) => ({ PK: `MAILRATE#${window}`, SK: 'RATE' }) as const,
  /** One e-mail SES accepted, by SES's MessageId: SES events name only that id, this finds the account (and owner) it was for. */
  mailMessage: (sesMessageId: string) => ({ PK: `MAILMSG#${sesMessageId}`, SK: 'MAILMSG' }) as const,
  /** An address that bounced or complained: credential e-mails to it are skipped unless overridden for one send. */
  emailSuppression: (userId: string, email: string) => ({ PK: userPk(userId), SK: `SUPPRESSION#${email.trim().toLowerCase()}` }) as const,
  emailSuppressionsOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'SUPPRESSION#' }) as const,
  /** A one-time credential link, by the SHA-256 of its token (the token itself is never stored in clear). */
  credentialLink: (tokenHash: string) => ({ PK: `CREDLINK#${tokenHash}`, SK: 'CREDLINK' }) as const,
  /**
   * The link issued to one account by one send (its token encrypted): a redelivered send finds it
   * and mails the same URL again instead of a second link.
   */
  credentialLinkIssue: (userId: string, sendId: string, accountId: string) => ({ PK: userPk(userId), SK: `CREDLINKISSUE#${sendId}#${accountId}` }) as const,
  /** In-app notifications, newest first by time-ordered id, in their own partition (kept 90 days by TTL). */
  notification: (userId: string, notificationId: string) => ({ PK: `${userPk(userId)}#NOTIFICATIONS`, SK: `NOTIFICATION#${notificationId}` }) as const,
  notificationsOf: (userId: string) => ({ PK: `${userPk(userId)}#NOTIFICATIONS`, SKPrefix: 'NOTIFICATION#' }) as const,
  /**
   * A small item per unread notification, beside it (same TTL): the bell counts these with one
   * bounded Query instead of reading every notification of 90 days. Gone when it is read.
   */
  unreadNotification: (userId: string, notificationId: string) => ({ PK: `${userPk(userId)}#NOTIFICATIONS`, SK: `UNREAD#${notificationId}` }) as const,
  /**
   * The unread items and the marker below together: the marker's SK sorts after every `UNREAD#`
   * ('_' > '#'), so a descending read of this prefix brings it first (pattern 50: no GetItem of its own).
   */
  unreadNotificationsAndMarkerOf: (userId: string) => ({ PK: `${userPk(userId)}#NOTIFICATIONS`, SKPrefix: 'UNREAD' }) as const,
  /** Marks that a user's notifications written before the unread items existed were given theirs (one-time, at the first read). */
  unreadNotificationsIndexed: (userId: string) => ({ PK: `${userPk(userId)}#NOTIFICATIONS`, SK: 'UNREAD_INDEXED' }) as const,
  /** The user's settings (notifications, preferences); the account group is the profile item. */
  userSettings: (userId: string) => ({ PK: userPk(userId), SK: 'SETTINGS' }) as const,
  /**
   * Who asked for the weekly digest: one small item per subscriber in one partition, written with
   * the settings in one transaction, so the scheduled digest reads its recipients with a Query
   * (no Scan of the table). No route reads it: it names users, never their data.
   */
  digestSubscriber: (userId: string) => ({ PK: 'DIGEST#WEEKLY', SK: userPk(userId) }) as const,
  digestSubscribers: () => ({ PK: 'DIGEST#WEEKLY', SKPrefix: 'USER#' }) as const,

  /**
   * The user's security events (functions/security), newest first by time-ordered id, in their own
   * partition so the profile partition's queries never read them.
   */
  securityEvent: (userId: string, eventId: string) => ({ PK: `${userPk(userId)}#SECURITY`, SK: `EVENT#${eventId}` }) as const,
  securityEventsOf: (userId: string) => ({ PK: `${userPk(userId)}#SECURITY`, SKPrefix: 'EVENT#' }) as const,
  /**
   * Failed sign-ins in a row and the lock, by the SHA-256 of the lower-cased e-mail (a sign-in
   * names an e-mail, not a user id; an unknown e-mail is counted the same way, so the answer
   * never tells whether an account exists). Kept by TTL; account deletion deletes it by the e-mail.
   */
  signInGuard: (emailHash: string) => ({ PK: `SIGNIN#${emailHash}`, SK: 'GUARD' }) as const,
  /** A signed-in session of the user (its refresh token encrypted), so other sessions can be revoked. */
  session: (userId: string, sessionId: string) => ({ PK: `${userPk(userId)}#SESSIONS`, SK: `SESSION#${sessionId}` }) as const,
  sessionsOf: (userId: string) => ({ PK: `${userPk(userId)}#SESSIONS`, SKPrefix: 'SESSION#' }) as const,

  /**
   * A global item that belongs to the user (a one-time link, an SES message): its PK does not
   * start from USER#<id>, so whoever writes it also writes this reference in the user's
   * partition, naming its key; account deletion (functions/account-deletion) deletes the target
   * through it. The Stripe customer link needs none: the user item holds stripeCustomerId.
   */
  globalReference: (userId: string, target: { PK: string; SK: string }) => ({ PK: userPk(userId), SK: `GLOBALREF#${target.PK}#${target.SK}` }) as const,
  globalReferencesOf: (userId: string) => ({ PK: userPk(userId), SKPrefix: 'GLOBALREF#' }) as const,
  /** Every partition of a user beside USER#<id> that is not per project (those follow from the project items). */
  userSidePartitions: (userId: string) => [
    ...Array.from({ length: USERNAME_PARTITIONS }, (_, shard) => `${userPk(userId)}#USERNAMES#${shard}`),
    `${userPk(userId)}#NOTIFICATIONS`,
    `${userPk(userId)}#SECURITY`,
    `${userPk(userId)}#SESSIONS`,
    `${userPk(userId)}#SYNC`,
    `${userPk(userId)}#WALK`,
    ...Array.from({ length: WAITING_CHUNK_PARTITIONS }, (_, shard) => `${userPk(userId)}#BULKWAITING#${shard}`),
  ],
  /** Every partition of a project beside its first account partition: the other shards, the rejected rows, the accounts' state blocks and their history. */
  projectPartitions: (userId: string, projectId: string, shards = 1) => [
    ...Array.from({ length: Math.max(1, shards) }, (_, shard) => accountPartition(userId, projectId, shard)),
    `${userPk(userId)}#PROJECT#${projectId}#REJECTED`,
    `${accountPartition(userId, projectId, 0)}#STATE`,
    `${accountPartition(userId, projectId, 0)}#HISTORY`,
    `${accountPartition(userId, projectId, 0)}#LINKS`,
    `${accountPartition(userId, projectId, 0)}#ATTR`,
    `${accountPartition(userId, projectId, 0)}#REMIND`,
  ],

  /**
   * The user's analytics counters (functions/analytics), kept up to date with ADD by the writes
   * that do the work: one item of totals, one per month (YYYY-MM in the user's timezone) and one
   * per project expiration date, so analytics reads a bounded number of small items.
   */
  statsTotal: (userId: string) => ({ PK: userPk(userId), SK: 'STATS#TOTAL' }) as const,
  statsMonth: (userId: string, month: string) => ({ PK: userPk(userId), SK: `STATS#MONTH#${month}` }) as const,
  statsExpiry: (userId: string, date: string) => ({ PK: userPk(userId), SK: `STATS#EXPIRES#${date}` }) as const,

  /**
   * A one-time job over the whole table (functions/schedules/backfill-expiry-index.ts): how far it
   * got and whether it is done. Global, owned by no user.
   */
  migration: (name: string) => ({ PK: `MIGRATION#${name}`, SK: 'MIGRATION' }) as const,

  stripeEvent: (eventId: string) => ({ PK: `STRIPE_EVENT#${eventId}`, SK: 'EVENT' }) as const,
  /** ... and a Stripe customer's user id, written at checkout completion. */
  stripeCustomer: (customerId: string) => ({ PK: `STRIPE_CUSTOMER#${customerId}`, SK: 'CUSTOMER' }) as const,
};
