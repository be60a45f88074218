import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { mapBounded } from '../provisioning/pacing';

/**
 * Once per table: projects written before the ProjectsByExpiry index existed carry an expiration
 * date but not the index's keys, so the sweep never finds them. This one-time job, run by the
 * expiry sweep at the start of each run until it is done, gives them their keys.
 *
 * It is the only Scan in the product, and it runs once per table, never per request or per sweep:
 * paged (`Limit` items a page), resumable (the marker item keys.migration('expiry-index') records
 * the page it reached, so a run that ends, times out or fails goes on from there the next hour)
 * and bounded per run (MAX_BACKFILL_MS, then the sweep goes on with its own work). Once the last
 * page is read the marker says `done`, and every later run costs one GetItem.
 *
 * Each old project gets `ExpiryPK` / `ExpirySK` for its date, on condition that it still has that
 * date, has no keys yet and has not expired: a project edited or expired meanwhile is left as it
 * is (the edit wrote its own keys). A project whose date has already passed is then due: the sweep
 * expires it (in this run once the index shows it, else the next).
 */
export interface BackfillDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
}

export const EXPIRY_BACKFILL = 'expiry-index';
/** A run's time for the backfill; the schedule's function has 5 minutes. */
export const MAX_BACKFILL_MS = 60_000;
const PAGE_ITEMS = 1000;
const CONCURRENCY = 8;

export interface BackfillResult {
  /** The whole table has been read (now or by an earlier run). */
  done: boolean;
  pages: number;
  /** Old projects given their index keys by this run. */
  indexed: number;
}

export const backfillExpiryIndex =
  (deps: BackfillDeps) =>
  async (options: { maxPages?: number; pageItems?: number; maxMs?: number } = {}): Promise<BackfillResult> => {
    const marker = keys.migration(EXPIRY_BACKFILL);
    const { Item: state } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: marker, ConsistentRead: true }));
    if (state?.status === 'done') return { done: true, pages: 0, indexed: 0 };
    const began = deps.now().getTime();
    const maxMs = options.maxMs ?? MAX_BACKFILL_MS;
    // The page reached, as the JSON of its start key (compared as a string when the marker moves on).
    let cursor = typeof state?.cursor === 'string' ? (JSON.parse(state.cursor) as Record<string, unknown>) : undefined;
    const result: BackfillResult = { done: false, pages: 0, indexed: 0 };
    while (result.pages < (options.maxPages ?? Number.POSITIVE_INFINITY) && deps.now().getTime() - began < maxMs) {
      const page = await deps.db.send(
        new ScanCommand({
          TableName: deps.tableName,
          Limit: options.pageItems ?? PAGE_ITEMS,
          ExclusiveStartKey: cursor,
          FilterExpression: 'entityType = :project AND attribute_type(expirationDate, :string) AND attribute_not_exists(ExpirySK) AND attribute_not_exists(expiredAt)',
          ProjectionExpression: 'PK, SK, userId, #id, expirationDate',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':project': 'Project', ':string': 'S' },
        }),
      );
      let indexed = 0;
      await mapBounded(page.Items ?? [], CONCURRENCY, async (item) => {
        if (await indexProject(deps, item)) indexed++;
      });
      result.pages++;
      result.indexed += indexed;
      const next = page.LastEvaluatedKey;
      // The marker moves on from the page this run read: a run that raced another leaves it to that one.
      const moved = await advance(deps, cursor, next, indexed);
      if (!moved) break;
      if (!next) {
        result.done = true;
        break;
      }
      cursor = next;
    }
    if (result.indexed || result.done) logger.info('Expiry index backfill', { ...result });
    return result;
  };

async function indexProject(deps: BackfillDeps, item: Record<string, unknown>): Promise<boolean> {
  const userId = typeof item.userId === 'string' ? item.userId : String(item.PK).replace(/^USER#/, '');
  const projectId = typeof item.id === 'string' ? item.id : String(item.SK).replace(/^PROJECT#/, '');
  const date = String(item.expirationDate);
  const key = keys.project(userId, projectId);
  const entry = keys.projectExpiry(userId, projectId, date);
  if (key.PK !== item.PK || key.SK !== item.SK) return false;
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: 'SET ExpiryPK = :pk, ExpirySK = :sk',
        ConditionExpression: 'expirationDate = :date AND attribute_not_exists(ExpirySK) AND attribute_not_exists(expiredAt)',
        ExpressionAttributeValues: { ':pk': entry.ExpiryPK, ':sk': entry.ExpirySK, ':date': date },
      }),
    );
    return true;
  } catch (error) {
    // Edited, expired or deleted meanwhile: nothing to give it.
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

async function advance(deps: BackfillDeps, from: Record<string, unknown> | undefined, next: Record<string, unknown> | undefined, indexed: number): Promise<boolean> {
  const at = deps.now().toISOString();
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.migration(EXPIRY_BACKFILL),
        UpdateExpression: `SET entityType = :type, updatedAt = :at${next ? ', #cursor = :next' : ', #status = :done, doneAt = :at'} ADD #pages :one, #indexed :n${next ? '' : ' REMOVE #cursor'}`,
        ConditionExpression: `${from ? '#cursor = :from' : 'attribute_not_exists(#cursor)'} AND (attribute_not_exists(#status) OR #status <> :done)`,
        ExpressionAttributeNames: { '#cursor': 'cursor', '#status': 'status', '#pages': 'pages', '#indexed': 'indexed' },
        ExpressionAttributeValues: { ':type': 'Migration', ':at': at, ':one': 1, ':n': indexed, ':done': 'done', ...(next ? { ':next': JSON.stringify(next) } : {}), ...(from ? { ':from': JSON.stringify(from) } : {}) },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
