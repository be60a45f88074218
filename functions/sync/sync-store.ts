import { BatchWriteCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isIdShaped } from '../../shared/schemas/ids';
import type { SyncApplyProgress, SyncCounts, SyncMatchKey, SyncPreview, SyncPreviewStatus, SyncSection } from '../../shared/schemas/account-sync';
import { syncMatchWords } from '../../shared/schemas/account-sync';
import { isThrottling, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
import { mapBounded } from '../provisioning/pacing';

/** Entries per stored part of a section: a UI page (SYNC_PAGE_SIZE) is inside one part, a part stays far under 400 KB. */
export const SYNC_PART_ENTRIES = 500;
/** A preview and its parts live this long (the table's TTL). */
export const SYNC_PREVIEW_DAYS = 7;
export const previewExpiresAt = (now: Date) => Math.floor(now.getTime() / 1000) + SYNC_PREVIEW_DAYS * 24 * 3600;

export interface SyncPreviewItem extends Record<string, unknown> {
  id: string;
  projectId: string;
  status: SyncPreviewStatus;
  matchKey?: SyncMatchKey;
  counts?: SyncCounts;
  /** The project as it was read (stampOf): an apply finds it the same or refuses. */
  stamp?: string;
  /** Parts per section. */
  parts?: Partial<Record<SyncSection, number>>;
  rowsRead?: number;
  reason?: string;
  apply?: SyncApplyProgress & { cursor?: number; platformFrom?: number; missingFrom?: number; waitingSince?: string; newClaimedAt?: string; /** One more at each write of the apply (saveApply's condition). */ version?: number };
  createdAt: string;
  updatedAt: string;
}

/**
 * What a preview's apply needs to be unchanged in the project: the counters every change of its
 * accounts moves (accounts added or deleted, synced, rows reserved), `accountsVersion` (one more
 * at each job's start over its accounts and each account edit: account-jobs/lifecycle.ts,
 * accounts/edit-account.ts), its status and expiry, and the locks held (a job running while the
 * preview read the accounts).
 */
export function stampOf(project: Record<string, unknown>): string {
  const names = ['accountCount', 'lastRow', 'accountsVersion', 'syncedCount', 'syncFailedCount', 'syncRemovedCount', 'status', 'expiredAt', 'activeAccountAction', 'activeProvisioningJob', 'activePasswordReset', 'activeProjectDeletion'];
  return JSON.stringify(names.map((name) => project[name] ?? null));
}

export async function getPreview(db: DynamoDBDocumentClient, tableName: string, userId: string, previewId: string): Promise<SyncPreviewItem> {
  // Another user's id, or one that cannot exist, is simply not found.
  if (!isIdShaped(previewId)) throw new NotFoundError('Preview not found');
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.syncPreview(userId, previewId), ConsistentRead: true }));
  if (!Item || Item.entityType !== 'SyncPreview') throw new NotFoundError('Preview not found');
  return Item as SyncPreviewItem;
}

export function previewView(item: SyncPreviewItem, apply?: SyncApplyProgress): SyncPreview {
  return {
    id: item.id,
    projectId: item.projectId,
    status: item.status,
    ...(item.matchKey ? { matchKey: item.matchKey, matchWords: syncMatchWords[item.matchKey] } : {}),
    ...(item.counts ? { counts: item.counts } : {}),
    rowsRead: Number(item.rowsRead ?? item.counts?.rows ?? 0),
    ...(item.reason ? { reason: item.reason } : {}),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    ...(apply ? { apply } : {}),
  };
}

/** Writes items in batches of 25 (4 in flight), what is left unprocessed sent again. */
export async function writeItems(db: DynamoDBDocumentClient, tableName: string, items: readonly Record<string, unknown>[], retry: RetryPolicy = workerRetry): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25) as Record<string, unknown>[]);
  await mapBounded(batches, 4, async (batch) => {
    let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
    await withRetry('Writing a sync preview', retry, (error) => isThrottling(error) || error instanceof Unprocessed, async () => {
      const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
      pending = (UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
      if (pending.length) throw new Unprocessed();
    });
  });
}
class Unprocessed extends Error {}

/** One part of a section's entries. */
export async function readPart<T>(db: DynamoDBDocumentClient, tableName: string, userId: string, previewId: string, section: string, part: number): Promise<T[]> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.syncPreviewPart(userId, previewId, section, part), ConsistentRead: true }));
  return (Item?.entries as T[] | undefined) ?? [];
}

/** Every part of a section (or any SK prefix of the preview's partition), in order. */
export async function readParts(db: DynamoDBDocumentClient, tableName: string, userId: string, previewId: string, prefix: string): Promise<Record<string, unknown>[]> {
  const parts = keys.syncPreviewPartsOf(userId, previewId);
  return queryItems(db, {
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': parts.PK, ':prefix': `${parts.SKPrefix}${prefix}` },
    ConsistentRead: true,
  });
}

export async function sectionEntries<T>(db: DynamoDBDocumentClient, tableName: string, userId: string, previewId: string, section: SyncSection): Promise<T[]> {
  return (await readParts(db, tableName, userId, previewId, `${section}#`)).flatMap((item) => (item.entries as T[] | undefined) ?? []);
}
