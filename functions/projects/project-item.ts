import type { AccountType, PasswordSettings } from '../../shared/schemas/bulk';
import { projectEmailCounts } from '../../shared/schemas/email-status';
import type { Project } from '../../shared/schemas/project';
import { keys } from '../core/keys';
import { stateChannels } from '../accounts/state-channels';
import { orderedAttributeKeys } from '../../shared/schemas/attributes';

/** A project as stored: the view without the derived success rate, plus its owner. */
export interface ProjectRecord extends Omit<Project, 'successRate' | 'syncedCount' | 'syncFailedCount' | 'syncRemovedCount' | 'syncPendingCount' | 'emailCounts' | 'attributeKeys'> {
  /**
   * The keys of its accounts' extra columns, a string set (only ever added to: `ADD attributeKeys`
   * when accounts are written or edited), so exports know their columns before the first account.
   */
  attributeKeys?: Set<string>;
  syncedCount?: number;
  syncFailedCount?: number;
  syncRemovedCount?: number;
  userId: string;
  /** Partitions its accounts are spread over (functions/accounts/account-partitions.ts); none: 1. */
  accountShards?: number;
  /** Counted on the analytics counters when it was created (projects from before the counters are filled in once, functions/analytics). */
  statsCounted?: boolean;
  /** The generator rules its passwords were made with: Reset Passwords makes new ones the same way. */
  passwordSettings?: PasswordSettings;
}

/** The stored project; one with an expiration date is in the expiry index until it is handled (functions/schedules/sweep-expired-projects.ts). */
export const projectItem = (record: ProjectRecord) => ({
  ...keys.project(record.userId, record.id),
  entityType: 'Project',
  ...(record.expirationDate ? keys.projectExpiry(record.userId, record.id, record.expirationDate) : {}),
  ...record,
  // Its deactivated and expired accounts (none yet), kept by account actions from here on (docs/data-model.md).
  deactivatedCount: record.deactivatedCount ?? 0,
  expiredCount: record.expiredCount ?? 0,
  // No state blocks of any channel yet: readers by key skip them until a writer takes its channel out.
  noStatesYet: new Set(stateChannels),
  // Its accounts' extra column values are counted from the start (functions/accounts/attribute-counts.ts): the Attribute filter's count is exact.
  attributeCountsKept: true,
});

/** A project item's attribute keys (a string set as stored), in the order exports show them. */
export function projectAttributeKeys(item: Record<string, unknown>): string[] {
  const stored = item.attributeKeys;
  const keys = stored instanceof Set ? [...stored] : Array.isArray(stored) ? stored : [];
  return orderedAttributeKeys(keys.filter((key): key is string => typeof key === 'string'));
}

/** The keys a set of people's attributes use (undefined: none, so no empty set is ever written). */
export function attributeKeysOf(people: Iterable<{ attributes?: Record<string, string> }>): Set<string> | undefined {
  const found = new Set<string>();
  for (const person of people) for (const key of Object.keys(person.attributes ?? {})) found.add(key);
  return found.size ? found : undefined;
}

/** Percent of rows created, one decimal. */
export const successRate = (created: number, failed: number): number =>
  created + failed === 0 ? 100 : Math.round((created / (created + failed)) * 1000) / 10;

/** Synced, failed and removed are counted on the project item as each chunk of a run is done (docs/provisioning.md); pending is the rest. */
export function syncCounts(item: Record<string, unknown>, accountCount: number) {
  const syncedCount = Number(item.syncedCount ?? 0);
  const syncFailedCount = Number(item.syncFailedCount ?? 0);
  const syncRemovedCount = Number(item.syncRemovedCount ?? 0);
  return { syncedCount, syncFailedCount, syncRemovedCount, syncPendingCount: Math.max(0, accountCount - syncedCount - syncFailedCount - syncRemovedCount) };
}

export function projectView(record: Record<string, unknown> | ProjectRecord): Project {
  const item = record as Record<string, unknown>;
  const accountCount = Number(item.accountCount ?? 0);
  const failedCount = Number(item.failedCount ?? 0);
  const project: Project = {
    id: String(item.id),
    name: String(item.name),
    accountType: item.accountType as AccountType,
    status: item.status === 'completed' ? 'completed' : 'active',
    accountCount,
    failedCount,
    successRate: successRate(accountCount, failedCount),
    ...syncCounts(item, accountCount),
    emailCounts: projectEmailCounts(item, accountCount),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
  if (typeof item.description === 'string') project.description = item.description;
  if (typeof item.platformUrl === 'string') project.platformUrl = item.platformUrl;
  if (typeof item.expirationDate === 'string') project.expirationDate = item.expirationDate;
  if (typeof item.expiredAt === 'string') project.expiredAt = item.expiredAt;
  if (typeof item.reminderDays === 'number') project.reminderDays = item.reminderDays;
  if (typeof item.reminderTemplateId === 'string') project.reminderTemplateId = item.reminderTemplateId;
  if (typeof item.remindersSentCount === 'number' && item.remindersSentCount > 0) project.remindersSent = item.remindersSentCount;
  if (Array.isArray(item.groups) && item.groups.length) project.groups = item.groups.map(String);
  if (item.createGroups === true) project.createGroups = true;
  if (typeof item.deactivatedCount === 'number') {
    project.deactivatedCount = Math.max(0, item.deactivatedCount);
    project.expiredCount = Math.max(0, Number(item.expiredCount ?? 0));
  }
  if (typeof item.integrationId === 'string') project.integrationId = item.integrationId;
  if (typeof item.provisioningJobId === 'string') project.provisioningJobId = item.provisioningJobId;
  if (typeof item.mailSendId === 'string') project.mailSendId = item.mailSendId;
  if (typeof item.activeMailSend === 'string') project.mailSendActive = true;
  if (typeof item.projectDeletionId === 'string') project.deletionId = item.projectDeletionId;
  if (typeof item.activeProjectDeletion === 'string') project.deletionActive = true;
  const attributeKeys = projectAttributeKeys(item);
  if (attributeKeys.length) project.attributeKeys = attributeKeys;
  return project;
}
