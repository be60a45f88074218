import { randomUUID } from 'node:crypto';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../core/errors';
import { itemKey, itemsByKey } from '../core/items-by-key';
import { keys } from '../core/keys';
import { inLanes } from '../core/lanes';

/**
 * The order a listing of the Account Database by project walks its projects (docs/data-model.md,
 * pattern 73b). The first page reads every project anyway (the count badge sums their counters)
 * and sorts the chosen ones by name; it writes that order here, and a later page reads only the
 * part holding its place and the next projects by key, never every project again. The order is
 * the first page's: a project renamed since keeps its place in this listing (a new listing places
 * it by its new name), one deleted since is passed, one created since is not in it (the count
 * did not include it either). Base-table items read strongly consistent: a page asked a moment
 * after the first finds its order whole (an index would be read eventually consistent).
 */

/**
 * Project ids per part: 36-character ids, a part ~19 KB (an item may hold 400 KB), so a later
 * page's read of one or two parts costs a few read units.
 */
export const DIRECTORY_WALK_PART_IDS = 500;
/** Kept as long as a sync preview: an export or an action walking a large directory has days. */
const WALK_DAYS = 7;

const WALK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isWalkId = (value: unknown): value is string => typeof value === 'string' && WALK_ID.test(value);

/** Writes the order (project ids) and returns its id for the cursor. */
export async function writeDirectoryWalk(db: DynamoDBDocumentClient, tableName: string, userId: string, projectIds: readonly string[], now: Date): Promise<string> {
  const walkId = randomUUID();
  const expiresAt = Math.floor(now.getTime() / 1000) + WALK_DAYS * 24 * 3600;
  const parts = Array.from({ length: Math.max(1, Math.ceil(projectIds.length / DIRECTORY_WALK_PART_IDS)) }, (_, part) => part);
  await inLanes(parts, 4, async (part) => {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.directoryWalkPart(userId, walkId, part),
          entityType: 'DirectoryWalkPart',
          userId,
          total: projectIds.length,
          ids: projectIds.slice(part * DIRECTORY_WALK_PART_IDS, (part + 1) * DIRECTORY_WALK_PART_IDS),
          expiresAt,
        },
      }),
    );
  });
  return walkId;
}

/** The ids at positions `from` to `from + n - 1` of a walk (one or two parts read), and how many it holds in all. */
export async function readDirectoryWalk(db: DynamoDBDocumentClient, tableName: string, userId: string, walkId: string, from: number, n: number): Promise<{ ids: string[]; total: number }> {
  const first = Math.floor(from / DIRECTORY_WALK_PART_IDS);
  const last = Math.floor((from + Math.max(1, n) - 1) / DIRECTORY_WALK_PART_IDS);
  const partKeys = Array.from({ length: last - first + 1 }, (_, k) => keys.directoryWalkPart(userId, walkId, first + k));
  const found = await itemsByKey(db, tableName, partKeys, { consistent: true, what: 'Reading the listing order' });
  const head = found.get(itemKey(partKeys[0]!));
  // A walk of another user is not in this partition; one past its 7 days is gone: the listing starts again.
  if (!head || head.entityType !== 'DirectoryWalkPart') throw new ValidationError('This list has changed since its first page was loaded: open it again from the start.');
  const total = Number(head.total ?? 0);
  const ids = partKeys.flatMap((key) => {
    const part = found.get(itemKey(key));
    return Array.isArray(part?.ids) ? (part.ids as unknown[]).map(String) : [];
  });
  const offset = from - first * DIRECTORY_WALK_PART_IDS;
  return { ids: ids.slice(offset, offset + n), total };
}
