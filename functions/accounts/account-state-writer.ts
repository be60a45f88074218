import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient} from '@aws-sdk/lib-dynamodb';
import { isThrottling, isTransactionConflict, requestRetry, withRetry, type RetryPolicy } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { blockStart, stateBlockKey, type StateChannel, type StateEntry } from './account-states';
import { readShardBlocks } from './account-states-by-key';
import { LISTED_STATUSES, listedRows, sameRows, type ListedStatus, type StatusListWrites } from './account-status-lists';
import { queryPages } from '../core/query-pages';


/** Another writer changed a block since this delivery read it (its lease lapsed): the delivery must stop. */
export class StateBlockConflict extends Error {
  constructor() {
    super('An account state block was written by another delivery');
  }
}

/**
 * The state blocks of one chunk, held by the delivery that holds the chunk's lease: `load` reads
 * them (strongly consistent), `set` changes entries in memory, `flush` writes the changed blocks,
 * each conditional on the version it read, one write of a block at a time. Callers flush as
 * results arrive (what is written survives a crash) and always before the chunk counts as done.
 */
export class StateBlockWriter {
  /** `changed`: the rows set since the block was last written (to write; a block that exists is written as them only). */
  private readonly blocks = new Map<string, { key: { PK: string; SK: string }; shard: number; fromRow: number; rows: Record<string, StateEntry>; version: number; changed: Set<string>; listed: Record<ListedStatus, number[]> }>();
  private flushing: Promise<void> = Promise.resolve();
  private noStatesCleared = false;

  constructor(
    private readonly deps: { db: DynamoDBDocumentClient; tableName: string; retry?: RetryPolicy },
    private readonly target: { userId: string; projectId: string; shards: number },
    private readonly channel: StateChannel,
    /** The PROV channel's writer (provisioning) keeps the blocks' status lists (account-status-list-writes.ts). */
    private readonly statusLists?: StatusListWrites,
  ) {}

  /**
   * Reads the blocks of rows from..to (and returns their states, for the overlay). `shard`: only
   * that shard's blocks (a chunk's own: the others of the range belong to other chunks), read by
   * key instead of every shard's blocks of the range.
   */
  async load(fromRow: number, toRow: number, shard?: number): Promise<Map<number, StateEntry>> {
    if (shard !== undefined) return this.adopt(await readShardBlocks(this.deps.db, this.deps.tableName, this.target, [this.channel], { fromRow, toRow, shard }, { consistent: true }));
    const { PK } = keys.accountStatesOf(this.target.userId, this.target.projectId);
    const blocks = queryPages(this.deps.db, {
      TableName: this.deps.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
      ExpressionAttributeValues: {
        ':pk': PK,
        ':first': keys.accountStateBlock(this.target.userId, this.target.projectId, this.channel, blockStart(fromRow, this.target.shards), 0).SK,
        ':last': `${keys.accountStateBlock(this.target.userId, this.target.projectId, this.channel, toRow, 0).SK.replace(/#\d+$/, '')}#~`,
      },
      ConsistentRead: true,
    });
    for await (const page of blocks) for (const item of page.Items ?? []) this.keep(item);
    return this.adopt([]);
  }

  /**
   * Keeps the blocks of this channel among `items` (read by the caller, strongly consistent, with
   * other channels' blocks in the same request: readShardBlocks) as `load` would, and returns the
   * states of every block it holds.
   */
  adopt(items: readonly Record<string, unknown>[]): Map<number, StateEntry> {
    for (const item of items) if (String(item.SK).startsWith(`${this.channel}#`)) this.keep(item);
    const entries = new Map<number, StateEntry>();
    for (const block of this.blocks.values()) for (const [row, entry] of Object.entries(block.rows)) entries.set(Number(row), entry);
    return entries;
  }

  private keep(item: Record<string, unknown>): void {
    this.blocks.set(String(item.SK), {
      key: { PK: String(item.PK), SK: String(item.SK) },
      shard: Number(item.shard),
      fromRow: Number(item.fromRow),
      rows: { ...((item.rows as Record<string, StateEntry>) ?? {}) },
      version: Number(item.version ?? 0),
      changed: new Set(),
      // What its list items hold: written with every write of the block that changed them.
      listed: listedRows((item.rows as Record<string, StateEntry>) ?? {}),
    });
  }

  /**
   * Takes this channel out of the project's `noStatesYet` before the channel's first block is put
   * (readers by key skip the blocks of a channel still listed): once per writer, idempotent, and
   * never creating a project that is gone (the put of its block then finds nothing either).
   */
  private async clearNoStatesYet(): Promise<void> {
    if (this.noStatesCleared) return;
    try {
      await withRetry('Recording account states', this.deps.retry ?? requestRetry, isThrottling, () =>
        this.deps.db.send(
          new UpdateCommand({
            TableName: this.deps.tableName,
            Key: keys.project(this.target.userId, this.target.projectId),
            UpdateExpression: 'DELETE noStatesYet :channel',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':channel': new Set([this.channel]) },
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    this.noStatesCleared = true;
  }

  get(row: number): StateEntry | undefined {
    return this.blockOf(row)?.rows[String(row)];
  }

  set(row: number, entry: StateEntry): void {
    const shards = Math.max(1, this.target.shards);
    const key = stateBlockKey(this.target.userId, this.target.projectId, this.channel, row, shards);
    let block = this.blocks.get(key.SK);
    if (!block) {
      block = { key, shard: row % shards, fromRow: blockStart(row, shards), rows: {}, version: 0, changed: new Set(), listed: { failed: [], removed: [] } };
      this.blocks.set(key.SK, block);
    }
    block.rows[String(row)] = entry;
    block.changed.add(String(row));
  }

  /**
   * Writes every changed block, or (`rows`) the changed blocks holding these rows only (after any
   * flush already running). Throws StateBlockConflict when another writer got in.
   */
  flush(rows?: readonly number[]): Promise<void> {
    const only = rows && new Set(rows.map((row) => stateBlockKey(this.target.userId, this.target.projectId, this.channel, row, this.target.shards).SK));
    this.flushing = this.flushing.catch(() => undefined).then(() => this.writeDirty(only));
    return this.flushing;
  }

  private blockOf(row: number) {
    return this.blocks.get(stateBlockKey(this.target.userId, this.target.projectId, this.channel, row, this.target.shards).SK);
  }

  /**
   * A new block is put whole; a block that exists gets only its rows set since its last write
   * (one UpdateItem, each row's entry replaced whole), conditional on the version read either
   * way. A claim of 25 accounts or a few answers then no longer sign, send and store all 50 of
   * the block's entries (what the SDK's serialising and signing cost per e-mail).
   */
  private async writeDirty(only?: ReadonlySet<string>): Promise<void> {
    const dirty = [...this.blocks.values()].filter((block) => block.changed.size > 0 && (!only || only.has(block.key.SK)));
    if (dirty.some((block) => block.version === 0)) await this.clearNoStatesYet();
    await Promise.all(
      dirty.map(async (block) => {
        const changed = [...block.changed];
        block.changed.clear();
        const version = block.version + 1;
        // A PROV block whose failed / removed rows changed writes its lists in the same
        // transaction: the list never says what the block does not (a conflict cancels both).
        const lists = this.channel === 'PROV' && this.statusLists ? listedRows(block.rows) : undefined;
        const listWrites = lists ? LISTED_STATUSES.filter((status) => !sameRows(lists[status], block.listed[status])) : [];
        const put =
          block.version === 0
            ? {
                TableName: this.deps.tableName,
                Item: {
                  ...block.key,
                  entityType: 'AccountStates',
                  userId: this.target.userId,
                  projectId: this.target.projectId,
                  channel: this.channel,
                  shard: block.shard,
                  fromRow: block.fromRow,
                  rows: { ...block.rows },
                  version,
                },
                ConditionExpression: 'attribute_not_exists(PK)',
              }
            : undefined;
        const update = {
          TableName: this.deps.tableName,
          Key: block.key,
          UpdateExpression: `SET ${changed.map((_, i) => `#rows.#r${i} = :r${i}`).join(', ')}, #version = :next`,
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#rows': 'rows', '#version': 'version', ...Object.fromEntries(changed.map((row, i) => [`#r${i}`, row])) },
          ExpressionAttributeValues: { ':version': block.version, ':next': version, ...Object.fromEntries(changed.map((row, i) => [`:r${i}`, block.rows[row]])) },
        };
        try {
          await withRetry('Recording account states', this.deps.retry ?? requestRetry, (e) => isThrottling(e) || isTransactionConflict(e), async (): Promise<unknown> => {
            if (!listWrites.length) return put ? this.deps.db.send(new PutCommand(put)) : this.deps.db.send(new UpdateCommand(update));
            return this.deps.db.send(
              new TransactWriteCommand({
                TransactItems: [
                  put ? { Put: put } : { Update: update },
                  ...this.statusLists!.writes(this.deps.tableName, this.target, block, lists!, listWrites, version),
                ],
              }),
            );
          });
          block.version = version;
          if (lists) block.listed = lists;
        } catch (error) {
          for (const row of changed) block.changed.add(row);
          if (error instanceof ConditionalCheckFailedException) throw new StateBlockConflict();
          if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') throw new StateBlockConflict();
          throw error;
        }
      }),
    );
  }
}
