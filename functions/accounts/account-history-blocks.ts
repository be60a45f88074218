import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountHistoryKinds, type AccountHistoryEntry, type AccountHistoryKind } from '../../shared/schemas/account-edit';
import { isThrottling, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { timeOrderedIdFrom } from '../core/ids';
import { keys } from '../core/keys';
import { blockStart } from './account-states';
import { queryPages } from '../core/query-pages';

/**
 * The history an account action leaves (Deactivated, Reactivated, Expired, Updated on the
 * platform), one item per block of accounts and job instead of one item per account
 * (keys.accountHistoryBlock): the rows of one ACT state block (50 accounts of a shard), each
 * account an attribute `r<row>` of it ({ kind, at, detail }). Deactivating 10,000 accounts wrote
 * 10,000 history items (400 BatchWriteItems), as many as the accounts' own PATCHes on the
 * platform; now a chunk of 500 puts its 10 blocks' items whole (writeHistoryBlocks in
 * account-history-block-writes.ts, held only by the action's workers), a few at a time in one
 * BatchWriteItem, each with every entry of the job in its block (its ACT entries, which a
 * redelivered chunk reads back: it puts the same entries); the entry's time is the outcome's (in
 * the ACT block), so the entry's id is the one an item per account had.
 *
 * The history drawer (account-history.ts) reads an account's entries from its block's items,
 * newest job first, only that account's attribute of each.
 */
export type Deps = { db: DynamoDBDocumentClient; tableName: string; retry?: RetryPolicy };
export type HistoryBlockEntry = { kind: AccountHistoryKind; at: string; detail?: string };

/** An account's attribute in its block's item. */
export const attributeOf = (row: number) => `r${row}`;
/** An entry's id in the drawer (cursor order: `at`, then id): the same seed as an item per account had. */
const entryId = (jobId: string, row: number, at: string) => timeOrderedIdFrom(new Date(at), `${jobId}#${row}`);

/** The block (its first row and shard) that holds `row` in a project of `shards` shards. */
export const blockOf = (row: number, shards: number) => ({ fromRow: blockStart(row, shards), shard: row % Math.max(1, shards) });

/** The items of the account's block, a page of 25 at a time, with only its own attribute (and the job). */
async function* blockItems(deps: Pick<Deps, 'db' | 'tableName'>, of: { userId: string; projectId: string; row: number; shards: number }, options: { newestFirst?: boolean; consistent?: boolean }) {
  const block = blockOf(of.row, of.shards);
  const { PK, SKPrefix } = keys.accountHistoryBlocksOf(of.userId, of.projectId, block.fromRow, block.shard);
  const pages = queryPages(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
    ExpressionAttributeNames: { '#r': attributeOf(of.row) },
    ProjectionExpression: 'SK, jobId, #r',
    ScanIndexForward: !options.newestFirst,
    ConsistentRead: options.consistent === true,
    Limit: 25,
  });
  for await (const page of pages) yield* page.Items ?? [];
}

const cursorKey = (entry: Pick<AccountHistoryEntry, 'at' | 'id'>) => `${entry.at}#${entry.id}`;

/**
 * One account's entries from its block's items, newest first: those before `before` (a cursor
 * key `<at>#<id>`), at least `want` of them when there are (a job's entries all come after the
 * jobs before it: a project runs one action at a time), reading the block's items a page at a
 * time and of each only the account's attribute.
 */
export async function historyBlockEntries(
  deps: Pick<Deps, 'db' | 'tableName'>,
  of: { userId: string; projectId: string; row: number; shards: number },
  options: { want: number; before?: string },
  titleOf: (kind: AccountHistoryKind) => string,
): Promise<AccountHistoryEntry[]> {
  const found: AccountHistoryEntry[] = [];
  for await (const item of blockItems(deps, of, { newestFirst: true })) {
    const entry = item[attributeOf(of.row)] as Partial<HistoryBlockEntry> | undefined;
    const kind = entry?.kind;
    if (!entry || typeof entry.at !== 'string' || Number.isNaN(Date.parse(entry.at)) || !kind || !(accountHistoryKinds as readonly string[]).includes(kind)) continue;
    const at = new Date(entry.at).toISOString();
    const shown: AccountHistoryEntry = { id: entryId(String(item.jobId), of.row, at), kind, at, title: titleOf(kind), ...(typeof entry.detail === 'string' ? { detail: entry.detail } : {}) };
    if (options.before === undefined || cursorKey(shown) < options.before) found.push(shown);
    if (found.length >= options.want) break;
  }
  return found;
}

/** A deleted account's entries taken out of its block's items (the others' stay). */
export async function eraseFromHistoryBlocks(deps: Deps, of: { userId: string; projectId: string; row: number; shards: number }): Promise<void> {
  const { PK } = keys.accountHistoryBlocksOf(of.userId, of.projectId, 0, 0);
  const holding: string[] = [];
  for await (const item of blockItems(deps, of, { consistent: true })) if (item[attributeOf(of.row)] !== undefined) holding.push(String(item.SK));
  await Promise.all(
    holding.map((SK) =>
      withRetry('Erasing what a deleted account leaves', deps.retry ?? workerRetry, isThrottling, () =>
        deps.db
          .send(new UpdateCommand({ TableName: deps.tableName, Key: { PK, SK }, UpdateExpression: 'REMOVE #r', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeNames: { '#r': attributeOf(of.row) } }))
          // Gone meanwhile (the project's erasure): nothing left to take out.
          .catch((error: unknown) => {
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
          }),
      ),
    ),
  );
}
