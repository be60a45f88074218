import { describe, expect, it } from 'vitest';
import { keys } from '../../functions/core/keys';
import { MAX_ACCOUNT_SHARDS } from '../../functions/accounts/account-partitions';
import { globalItemKinds, globalKeysNamedBy, globalKeysOfUser, globalReferenceItem } from '../../functions/account-deletion/global-reference';

/**
 * Account deletion must find every item a user owns (issue 26: the one-time link items were never
 * registered, and outlived their user). Every key builder of keys.ts is called here: its key must
 * lie in the partitions the erasure reads (the user's own, the side partitions, each project's),
 * or the builder must be listed in global-reference.ts's globalItemKinds with how its items are
 * found. The table is typed by keys.ts's builders, so a new builder does not compile until it is
 * classified here.
 */
const u = '0190a0b0-0000-7000-8000-000000000001';
const p = '0190a0b0-0000-7000-8000-000000000002';

type Sample = { PK: string } | string | readonly string[] | null;
/** null: not a base-table item key (an id, index attributes, an index partition, a constant). */
const samples: Record<keyof typeof keys, () => Sample> = {
  user: () => keys.user(u),
  project: () => keys.project(u, p),
  projectsOf: () => keys.projectsOf(u),
  account: () => keys.account(u, p, 7, MAX_ACCOUNT_SHARDS),
  accountsOf: () => keys.accountsOf(u, p),
  accountPartitions: () => keys.accountPartitions(u, p, MAX_ACCOUNT_SHARDS),
  accountId: () => null,
  accountStatesOf: () => keys.accountStatesOf(u, p),
  accountStateBlock: () => keys.accountStateBlock(u, p, 'MAIL', 1, 3),
  accountStatusList: () => keys.accountStatusList(u, p, 'failed', 1, 3),
  accountStatusListPrefix: () => null,
  accountHistory: () => keys.accountHistory(u, p, 7, '2026-11-27T00:00:00.000Z', p),
  accountHistoryOf: () => keys.accountHistoryOf(u, p, 7),
  accountHistoryBlock: () => keys.accountHistoryBlock(u, p, 1, 3, p),
  accountHistoryBlocksOf: () => keys.accountHistoryBlocksOf(u, p, 1, 3),
  accountAttributeIndex: () => keys.accountAttributeIndex(u, p, 'department', 'sales', 7),
  accountAttributeIndexOf: () => keys.accountAttributeIndexOf(u, p, 'department', 'sales'),
  accountAttributeCount: () => keys.accountAttributeCount(u, p, 'department', 'sales'),
  accountLink: () => keys.accountLink(u, p, 7, p),
  accountLinksOf: () => keys.accountLinksOf(u, p, 7),
  accountSearch: () => null,
  accountSearchPartition: () => null,
  projectExpiry: () => null,
  expiryDue: () => null,
  projectReminder: () => keys.projectReminder(u, p),
  projectReminderEntry: () => null,
  remindersDue: () => null,
  reminderSent: () => keys.reminderSent(u, p, '2030-03-10', 7),
  reminderJob: () => keys.reminderJob(u, `${p}.2030-03-10.3`),
  reminderJobChunk: () => keys.reminderJobChunk(u, `${p}.2030-03-10.3`, 2),
  allAccountSearchPartitions: () => null,
  username: () => keys.username(u, 'ann.lee.2026'),
  usernamePartition: () => keys.usernamePartition(u, 'ann.lee.2026'),
  usernameBlock: () => keys.usernameBlock(u, 'ann.lee.2026', p, 2, 0),
  usernameBlockPrefix: () => null,
  allUsernamePartitions: () => keys.allUsernamePartitions(u),
  activity: () => keys.activity(u, '2026-11-27T00:00:00.000Z', p),
  activitiesOf: () => keys.activitiesOf(u),
  bulkJob: () => keys.bulkJob(u, p),
  bulkJobChunk: () => keys.bulkJobChunk(u, p, 1),
  bulkJobWaitingChunk: () => keys.bulkJobWaitingChunk(u, p, 4),
  legacyBulkJobWaitingChunk: () => keys.legacyBulkJobWaitingChunk(u, p, 4),
  bulkUpload: () => keys.bulkUpload(u, p),
  provisioningJob: () => keys.provisioningJob(u, p),
  provisioningChunk: () => keys.provisioningChunk(u, p, 1),
  provisioningLease: () => keys.provisioningLease(u, p, 1),
  passwordReset: () => keys.passwordReset(u, p),
  passwordResetChunk: () => keys.passwordResetChunk(u, p, 1),
  projectDeletion: () => keys.projectDeletion(u, p),
  projectDeletionChunk: () => keys.projectDeletionChunk(u, p, 1),
  projectDeletionChunkStart: () => keys.projectDeletionChunkStart(u, p, 1),
  syncPreview: () => keys.syncPreview(u, p),
  syncPreviewPart: () => keys.syncPreviewPart(u, p, 'changed', 0),
  syncPreviewPartsOf: () => keys.syncPreviewPartsOf(u, p),
  directoryWalkPart: () => keys.directoryWalkPart(u, p, 0),
  accountAction: () => keys.accountAction(u, p),
  accountActionChunk: () => keys.accountActionChunk(u, p, 1),
  directoryAction: () => keys.directoryAction(u, p),
  jobFailure: () => keys.jobFailure(u, keys.accountAction(u, p).SK, 7),
  jobFailuresOf: () => keys.jobFailuresOf(u, keys.passwordReset(u, p).SK),
  provisioningJobsOf: () => keys.provisioningJobsOf(u),
  rejectedRowsPart: () => keys.rejectedRowsPart(u, p, 0),
  rejectedRowsOf: () => keys.rejectedRowsOf(u, p),
  rejectedRowsAddPart: () => keys.rejectedRowsAddPart(u, p, p, 0),
  bulkIdempotency: () => keys.bulkIdempotency(u, 'key-1'),
  bulkIdempotencyPart: () => keys.bulkIdempotencyPart(u, 'key-1', 0),
  export: () => keys.export(u, p),
  exportsOf: () => keys.exportsOf(u),
  integration: () => keys.integration(u, p),
  integrationTurn: () => keys.integrationTurn(u, p),
  integrationsOf: () => keys.integrationsOf(u),
  emailTemplate: () => keys.emailTemplate(u, p),
  emailTemplatesOf: () => keys.emailTemplatesOf(u),
  emailTemplateDefault: () => keys.emailTemplateDefault(u),
  mailSend: () => keys.mailSend(u, p),
  mailSendChunk: () => keys.mailSendChunk(u, p, 0),
  mailDay: () => keys.mailDay(u, '2026-11-28'),
  mailRateWindow: () => keys.mailRateWindow(1_764_000_000),
  mailMessage: () => keys.mailMessage('ses-message-1'),
  emailSuppression: () => keys.emailSuppression(u, 'ann@example.com'),
  emailSuppressionsOf: () => keys.emailSuppressionsOf(u),
  credentialLink: () => keys.credentialLink('hash'),
  credentialLinkIssue: () => keys.credentialLinkIssue(u, p, `${p}.000001`),
  notification: () => keys.notification(u, p),
  notificationsOf: () => keys.notificationsOf(u),
  unreadNotification: () => keys.unreadNotification(u, p),
  unreadNotificationsAndMarkerOf: () => keys.unreadNotificationsAndMarkerOf(u),
  unreadNotificationsIndexed: () => keys.unreadNotificationsIndexed(u),
  userSettings: () => keys.userSettings(u),
  digestSubscriber: () => keys.digestSubscriber(u),
  digestSubscribers: () => null,
  securityEvent: () => keys.securityEvent(u, p),
  securityEventsOf: () => keys.securityEventsOf(u),
  signInGuard: () => keys.signInGuard('email-hash'),
  session: () => keys.session(u, p),
  sessionsOf: () => keys.sessionsOf(u),
  globalReference: () => keys.globalReference(u, keys.credentialLink('hash')),
  globalReferencesOf: () => keys.globalReferencesOf(u),
  userSidePartitions: () => keys.userSidePartitions(u),
  projectPartitions: () => keys.projectPartitions(u, p, MAX_ACCOUNT_SHARDS),
  statsTotal: () => keys.statsTotal(u),
  statsMonth: () => keys.statsMonth(u, '2026-11'),
  statsExpiry: () => keys.statsExpiry(u, '2027-01-01'),
  stripeEvent: () => keys.stripeEvent('evt_1'),
  migration: () => keys.migration('expiry-index'),
  stripeCustomer: () => keys.stripeCustomer('cus_1'),
};

const partitionsOf = (sample: Sample): string[] => (sample === null ? [] : typeof sample === 'string' ? [sample] : Array.isArray(sample) ? [...(sample as readonly string[])] : [(sample as { PK: string }).PK]);
/** What the erasure reads: the user's partition, its side partitions, and every partition of each project. */
const erased = new Set([keys.user(u).PK, ...keys.userSidePartitions(u), ...keys.projectPartitions(u, p, MAX_ACCOUNT_SHARDS)]);

describe('every item a user owns is found by account deletion (one list: global-reference.ts)', () => {
  it('classifies every key builder of keys.ts', () => {
    expect(Object.keys(samples).sort()).toEqual(Object.keys(keys).sort());
  });

  it.each(Object.keys(samples) as (keyof typeof keys)[])('%s: under the partitions the erasure reads, or a listed global kind', (name) => {
    const listed = name in globalItemKinds;
    for (const pk of partitionsOf(samples[name]())) {
      if (listed) expect(erased.has(pk), `${name} is listed as global, but its key ${pk} is the user's own`).toBe(false);
      else expect(erased.has(pk), `${name}: ${pk} is read by no erasure step; list it in globalItemKinds with how it is found`).toBe(true);
    }
  });

  it('finds the global items: through a reference, an issue record (links issued before references), or the user id', () => {
    const link = keys.credentialLink('hash');
    expect(globalKeysNamedBy(globalReferenceItem(u, link))).toEqual([link]);
    expect(globalKeysNamedBy({ ...keys.credentialLinkIssue(u, p, `${p}.000001`), tokenHash: 'hash' })).toEqual([link]);
    expect(globalKeysNamedBy({ ...keys.project(u, p), userId: u })).toEqual([]);
    expect(globalKeysOfUser(u)).toEqual([keys.digestSubscriber(u)]);
    const byUserId = Object.entries(globalItemKinds).filter(([, how]) => how === 'user id').map(([name]) => name);
    expect(byUserId).toEqual(['digestSubscriber']);
  });
});
