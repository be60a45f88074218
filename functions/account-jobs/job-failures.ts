import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RetryPolicy } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { addBlock, emptyStates, overlayState, stateBlockKey, type StateChannel } from '../accounts/account-states';
import type { JobItem } from './kind';

/**
 * The accounts a job over accounts could not handle, listed beside the job: one small item per
 * failed account (`keys.jobFailure`: its row only, no personal data), written with the chunk's
 * tally (chunk-runner.ts, `failedRows`). A finished job's failures list (Reset Passwords, an
 * account action) reads the first of them and those accounts by key: work in proportion to the
 * failures shown, not to the project. A job started before these items (no `failuresListed` on
 * it) is still read the old way, through the project's accounts.
 */

type Db = { db: DynamoDBDocumentClient; tableName: string };

/**
 * Records the chunk's failed rows beside the job (idempotent: a redelivery writes the same items).
 * One PutItem each, 25 at a time: failures are few, and every worker that runs chunks holds
 * PutItem already (a BatchWriteItem here would be in every chunk worker's bundle and grant).
 */
export async function recordFailedRows(deps: Db & { retry?: RetryPolicy }, userId: string, jobKey: { SK: string }, jobId: string, rows: readonly number[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 25) {
    await Promise.all(rows.slice(i, i + 25).map((row) => deps.db.send(new PutCommand({ TableName: deps.tableName, Item: { ...keys.jobFailure(userId, jobKey.SK, row), entityType: 'JobFailure', jobId, row } }))));
  }
}

/**
 * The first `limit` accounts of a job that it recorded failed and that still say so (`failed`: a
 * later job may have handled one since, or it was deleted), in row order, mapped by `map`.
 */
export async function listedFailures<T>(
  deps: Db,
  jobKey: { SK: string },
  job: JobItem,
  failed: (account: Record<string, unknown>) => boolean,
  limit: number,
  map: (account: Record<string, unknown>) => T,
  channels: readonly StateChannel[] = [],
): Promise<T[]> {
  const userId = String(job.userId);
  const projectId = String(job.projectId);
  const shards = Number(job.shards ?? 1);
  const prefix = keys.jobFailuresOf(userId, jobKey.SK);
  const found: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
        ProjectionExpression: '#row',
        ExpressionAttributeNames: { '#row': 'row' },
        Limit: limit - found.length,
        ExclusiveStartKey: start,
      }),
    );
    const rows = (page.Items ?? []).map((item) => Number(item.row));
    const accounts = await accountsByRow(deps, userId, projectId, shards, rows, channels);
    for (const row of rows) {
      const account = accounts.get(row);
      if (account && failed(account)) found.push(map(account));
    }
    start = page.LastEvaluatedKey;
  } while (start && found.length < limit);
  return found;
}

/**
 * The accounts of the rows (at most a failures page: one GetItem each, at once), with the
 * `channels` of their state overlaid (one GetItem per state block that holds one of them: an
 * account action's outcome is its ACT entry, account-actions-chunk.ts).
 */
async function accountsByRow(deps: Db, userId: string, projectId: string, shards: number, rows: readonly number[], channels: readonly StateChannel[]): Promise<Map<number, Record<string, unknown>>> {
  const blockKeys = new Map<string, { PK: string; SK: string }>();
  for (const channel of channels) {
    for (const row of rows) {
      const key = stateBlockKey(userId, projectId, channel, row, shards);
      blockKeys.set(`${key.PK}|${key.SK}`, key);
    }
  }
  const [items, blocks] = await Promise.all([
    Promise.all(rows.map(async (row) => [row, (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.account(userId, projectId, row, shards) }))).Item] as const)),
    Promise.all([...blockKeys.values()].map(async (Key) => (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key, ConsistentRead: true }))).Item)),
  ]);
  const states = emptyStates();
  for (const block of blocks) if (block) addBlock(states, block);
  return new Map(items.flatMap(([row, item]) => (item ? [[row, overlayState(item, states)] as const] : [])));
}
