import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SYNC_ROW_LIMIT } from '../../shared/bulk-limits';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
import { withStates } from './account-states';

/**
 * How many partitions a project's accounts are spread over. A partition takes at most 1,000 WCU/s
 * (500 accounts/s at 2 WCU each): a project created in one request (at most SYNC_ROW_LIMIT rows)
 * keeps one partition, so its pages stay one Query; an import gets one more per 1,000 rows, up
 * to MAX_ACCOUNT_SHARDS (16 partitions: 8,000 accounts/s before the base table throttles).
 */
export const MAX_ACCOUNT_SHARDS = 16;
export const accountShardsFor = (rows: number): number => (rows <= SYNC_ROW_LIMIT ? 1 : Math.min(MAX_ACCOUNT_SHARDS, Math.ceil(rows / 1000)));

/** The project item's shard count; projects stored before sharding have none: one partition. */
export const shardsOf = (project: Record<string, unknown> | undefined): number => {
  const shards = Number(project?.accountShards ?? 1);
  return Number.isInteger(shards) && shards >= 1 && shards <= MAX_ACCOUNT_SHARDS ? shards : 1;
};

/** The highest row number among a project's accounts (0: none), from the last item of each shard. */
export async function maxAccountRow(db: DynamoDBDocumentClient, tableName: string, userId: string, projectId: string, shards: number): Promise<number> {
  const lasts = await Promise.all(
    keys.accountPartitions(userId, projectId, shards).map(async (pk) => {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :account)',
          ExpressionAttributeValues: { ':pk': pk, ':account': 'ACCOUNT#' },
          ScanIndexForward: false,
          Limit: 1,
          ProjectionExpression: '#row',
          ExpressionAttributeNames: { '#row': 'row' },
          ConsistentRead: true,
        }),
      );
      return Number(Items?.[0]?.row ?? 0);
    }),
  );
  return Math.max(0, ...lasts);
}

/**
 * The account items of one job chunk: one shard's rows fromRow..toRow, strongly consistent (the
 * last delivery's writes count), with an optional filter or projection (their names and values
 * beside the range's). Every chunked job (provisioning, credential sends, password resets) reads
 * its chunk through this.
 */
export async function chunkAccountItems(
  db: DynamoDBDocumentClient,
  tableName: string,
  chunk: { userId: string; projectId: string; shard: number; fromRow: number; toRow: number },
  query: { filter?: string; projection?: string; names?: Record<string, string>; values?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>[]> {
  const { userId, projectId } = chunk;
  const partition = keys.accountPartitions(userId, projectId, chunk.shard + 1)[chunk.shard]!;
  return queryItems(db, {
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
    ...(query.filter ? { FilterExpression: query.filter } : {}),
    ...(query.projection ? { ProjectionExpression: query.projection } : {}),
    ...(query.names ? { ExpressionAttributeNames: query.names } : {}),
    ExpressionAttributeValues: { ':pk': partition, ':first': keys.account(userId, projectId, chunk.fromRow).SK, ':last': keys.account(userId, projectId, chunk.toRow).SK, ...query.values },
    ConsistentRead: true,
  });
}

/**
 * A job's chunks over a project's accounts: each shard's rows 1..maxRow in ranges of about
 * `accountsPerChunk` accounts of that shard (a shard holds every shards-th row), numbered in
 * order. The same arguments always give the same chunks, so a plan that runs twice queues the
 * same messages.
 */
export function rowRanges(shards: number, maxRow: number, accountsPerChunk: number): { chunk: number; shard: number; fromRow: number; toRow: number }[] {
  const width = accountsPerChunk * shards;
  const ranges: { chunk: number; shard: number; fromRow: number; toRow: number }[] = [];
  for (let shard = 0; shard < shards; shard++) {
    for (let fromRow = 1; fromRow <= maxRow; fromRow += width) ranges.push({ chunk: ranges.length, shard, fromRow, toRow: Math.min(maxRow, fromRow + width - 1) });
  }
  return ranges;
}

/**
 * One page of a project's accounts in file order, after the row whose sort key is `afterSk`
 * (none: from the start). With one shard it is a plain Query. With several, each shard is asked
 * for its share of the page and the answers are merged by row; only rows up to the smallest
 * "last row" of the shards that have more are certain to have no gap before them, so the page
 * ends there (it may hold fewer than `limit` items, never a row out of order or twice).
 */
export async function accountsPageInOrder(
  db: DynamoDBDocumentClient,
  tableName: string,
  target: { userId: string; projectId: string; shards: number },
  limit: number,
  afterSk?: string,
  options: { consistent?: boolean } = {},
): Promise<{ items: Record<string, unknown>[]; lastSk?: string }> {
  const partitions = keys.accountPartitions(target.userId, target.projectId, target.shards);
  const share = partitions.length === 1 ? limit : Math.ceil(limit / partitions.length) + 1;
  const pages = await Promise.all(
    partitions.map(async (pk) => {
      const page = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: afterSk ? 'PK = :pk AND SK > :after' : 'PK = :pk',
          ExpressionAttributeValues: { ':pk': pk, ...(afterSk ? { ':after': afterSk } : {}) },
          Limit: share,
          ...(options.consistent ? { ConsistentRead: true } : {}),
        }),
      );
      const items = page.Items ?? [];
      return { items, more: page.LastEvaluatedKey !== undefined, last: items.length ? String(items[items.length - 1]!.SK) : undefined };
    }),
  );
  let bound: string | undefined;
  for (const page of pages) if (page.more && page.last !== undefined && (bound === undefined || page.last < bound)) bound = page.last;
  const merged = pages
    .flatMap((p) => p.items)
    .filter((item) => bound === undefined || String(item.SK) <= bound)
    .sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1));
  const page = merged.slice(0, limit);
  const more = pages.some((p) => p.more) || merged.length > page.length;
  // What the delivery jobs recorded (provisioning, e-mail) lives in state blocks beside the accounts.
  const items = await withStates(db, tableName, target, page, options);
  return { items, ...(more && page.length ? { lastSk: String(page[page.length - 1]!.SK) } : {}) };
}

/**
 * Every account of a project, page by page in file order, whatever its shard count (read from
 * the project item). The Export Center's reader and anything else that walks a whole project
 * should read through this.
 */
export async function* allAccountsInOrder(db: DynamoDBDocumentClient, tableName: string, userId: string, projectId: string, pageSize = 1000): AsyncGenerator<Record<string, unknown>[]> {
  const { Item: project } = await db.send(new GetCommand({ TableName: tableName, Key: keys.project(userId, projectId), ProjectionExpression: 'accountShards' }));
  const target = { userId, projectId, shards: shardsOf(project) };
  // The next page is requested as soon as one arrives, so reading overlaps with the consumer's
  // work (at most two pages held); a prefetch never awaited (the consumer stopped) cannot crash.
  let next: ReturnType<typeof accountsPageInOrder> | undefined = accountsPageInOrder(db, tableName, target, pageSize);
  while (next) {
    const page: Awaited<ReturnType<typeof accountsPageInOrder>> = await next;
    next = page.lastSk ? accountsPageInOrder(db, tableName, target, pageSize, page.lastSk) : undefined;
    next?.catch(() => undefined);
    if (page.items.length) yield page.items;
  }
}
