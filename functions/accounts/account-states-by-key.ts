import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { itemKey, itemsByKey } from '../core/items-by-key';
import { keys } from '../core/keys';
import { addBlock, emptyStates, overlayState, rowOf, shardBlockStarts, stateBlockKey, stateChannels, type AccountStates, type StateChannel } from './account-states';

/** Block keys and distinct rows one BatchGetItem asks for at most (its projection names each row: expressions are at most 4 KB). */
const KEYS_PER_READ = 100;
const ROWS_PER_READ = 100;

/**
 * Accounts of any projects of one user (a search's hits, a page by name) with their states: the
 * blocks are read by key (BatchGetItem), which needs each project's shard count. Each block is
 * read projected to the entries of the accounts asked for (`rows.<row>`), not its other rows:
 * hits spread over many projects touch a block each, and a block holds the state of 50 accounts
 * (docs/data-model.md, pattern 76), so a page would otherwise carry ~50 entries per account shown.
 * A channel the project has no block of yet is not asked for.
 */
export async function withStatesByKey(
  db: DynamoDBDocumentClient,
  tableName: string,
  userId: string,
  accounts: Record<string, unknown>[],
  shardsOfProject: Map<string, number>,
  /** Per project, the channels it has no block of yet (channelsWithoutStates): their keys are not read. */
  noStatesOfProject?: Map<string, ReadonlySet<StateChannel>>,
): Promise<Record<string, unknown>[]> {
  // The reads: each a set of block keys and the rows wanted from them (every account's three blocks in the same read).
  const reads: { keys: Map<string, { PK: string; SK: string }>; rows: Set<number> }[] = [];
  for (const account of accounts) {
    const projectId = String(account.projectId);
    const row = rowOf(account);
    const none = noStatesOfProject?.get(projectId);
    const blockKeys = stateChannels.filter((channel) => !none?.has(channel)).map((channel) => stateBlockKey(userId, projectId, channel, row, shardsOfProject.get(projectId) ?? 1));
    if (!blockKeys.length) continue;
    let read = reads[reads.length - 1];
    const newKeys = blockKeys.filter((key) => !read?.keys.has(itemKey(key))).length;
    if (!read || read.keys.size + newKeys > KEYS_PER_READ || (!read.rows.has(row) && read.rows.size >= ROWS_PER_READ)) {
      read = { keys: new Map(), rows: new Set() };
      reads.push(read);
    }
    for (const key of blockKeys) read.keys.set(itemKey(key), key);
    read.rows.add(row);
  }
  const byProject = new Map<string, AccountStates>();
  await Promise.all(
    reads.map(async (read) => {
      const rows = [...read.rows];
      const projection = {
        ProjectionExpression: ['projectId', '#channel', ...rows.map((_, n) => `#rows.#r${n}`)].join(', '),
        ExpressionAttributeNames: { '#channel': 'channel', '#rows': 'rows', ...Object.fromEntries(rows.map((row, n) => [`#r${n}`, String(row)])) },
      };
      for (const item of await blocksByKey(db, tableName, [...read.keys.values()], { projection })) {
        const projectId = String(item.projectId);
        if (!byProject.has(projectId)) byProject.set(projectId, emptyStates());
        addBlock(byProject.get(projectId)!, item);
      }
    }),
  );
  return accounts.map((account) => {
    const states = byProject.get(String(account.projectId));
    return states ? overlayState(account, states) : account;
  });
}

/** State blocks by key (at most KEYS_PER_READ keys a BatchGetItem). */
const blocksByKey = async (
  db: DynamoDBDocumentClient,
  tableName: string,
  blockKeys: readonly { PK: string; SK: string }[],
  options: { projection?: { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> }; consistent?: boolean },
): Promise<Record<string, unknown>[]> => [...(await itemsByKey(db, tableName, blockKeys, { ...options, keysPerCall: KEYS_PER_READ, what: 'Reading account states' })).values()];

/**
 * One shard's blocks of rows from..to, of these channels, read by key: a chunk's piece (its ACT
 * and PROV blocks) in one BatchGetItem, and not the other shards' blocks of its rows, which a
 * Query of the range would read too (a chunk of a 10-shard project: 10 times its own).
 */
export async function readShardBlocks(
  db: DynamoDBDocumentClient,
  tableName: string,
  target: { userId: string; projectId: string; shards: number },
  channels: readonly StateChannel[],
  range: { fromRow: number; toRow: number; shard: number },
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const starts = range.toRow < range.fromRow ? [] : shardBlockStarts(range.fromRow, range.toRow, target.shards);
  const blockKeys = channels.flatMap((channel) => starts.map((first) => keys.accountStateBlock(target.userId, target.projectId, channel, first, range.shard)));
  return blocksByKey(db, tableName, blockKeys, options);
}
