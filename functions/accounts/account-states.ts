import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isThrottling, requestRetry, withRetry, type RetryPolicy } from '../core/dynamo-retry';
import { keys } from '../core/keys';

/**
 * What a delivery job (a provisioning run, a credential send) knows about each account, kept in
 * small "state blocks" beside the accounts instead of on the account items.
 *
 * Why: an account item carries the four search indexes' attributes and is ~1.1 KB; a status
 * written on it costs one conditional UpdateItem per account (and on DynamoDB Local ~1 ms of the
 * emulator's CPU each: 10,000 accounts took longer than the platform calls themselves). A block
 * holds the state of up to STATE_BLOCK_ROWS accounts of one shard, written whole by the one
 * delivery that holds the chunk (the chunk lease), conditional on the block's version, so a
 * chunk of 250 accounts costs a handful of writes and a lapsed lease can never overwrite newer
 * state. Every reader of accounts overlays the blocks (`withStates`): the block's entry for an
 * account replaces that channel's attributes of the item, so what the API, exports and the
 * workers see is the same truth.
 *
 * Layout: one partition per project (`...#PROJECT#<id>#STATE`, listed in keys.projectPartitions
 * so deleting the project's data deletes it), sort key `<channel>#<first row>#<shard>`. A block
 * covers the rows first..first+STATE_BLOCK_ROWS*shards-1 of one shard; job chunks are whole
 * multiples of it (PROVISIONING_CHUNK_ACCOUNTS, MAIL_CHUNK_ACCOUNTS), so a block belongs to one
 * chunk of a job and has one writer at a time.
 */
export const STATE_BLOCK_ROWS = 50;

export type StateChannel = 'PROV' | 'MAIL';
export const stateChannels: readonly StateChannel[] = ['PROV', 'MAIL'];

/** The account attributes each channel owns: an entry replaces exactly these (absent = removed). */
export const channelAttributes: Record<StateChannel, readonly string[]> = {
  PROV: ['externalStatus', 'externalAccountId', 'externalError', 'provisionedAt', 'provisionRun'],
  MAIL: ['emailStatus', 'emailMessageId', 'emailSentAt', 'emailError', 'emailStatusAt', 'mailSend', 'mailSendFrom', 'mailClaim', 'mailSendResult'],
};

export type StateEntry = Record<string, string | number | boolean>;

/** The first row of the block that holds `row` (its shard follows from row % shards). */
export const blockStart = (row: number, shards: number): number => {
  const width = STATE_BLOCK_ROWS * Math.max(1, shards);
  return Math.floor((row - 1) / width) * width + 1;
};

export const stateBlockKey = (userId: string, projectId: string, channel: StateChannel, row: number, shards: number) =>
  keys.accountStateBlock(userId, projectId, channel, blockStart(row, shards), row % Math.max(1, shards));

/** An account's row (the item's `row`, else its sort key). */
export const rowOf = (account: Record<string, unknown>): number => (typeof account.row === 'number' ? account.row : Number(String(account.SK).slice('ACCOUNT#'.length)));

/** row -> entry, per channel. */
export type AccountStates = Record<StateChannel, Map<number, StateEntry>>;
const emptyStates = (): AccountStates => ({ PROV: new Map(), MAIL: new Map() });

function addBlock(states: AccountStates, item: Record<string, unknown>): void {
  const channel = item.channel as StateChannel;
  const rows = item.rows as Record<string, StateEntry> | undefined;
  if (!states[channel] || !rows) return;
  for (const [row, entry] of Object.entries(rows)) states[channel].set(Number(row), entry);
}

/** The states of a project's rows from..to (every shard), read with one Query per channel. */
export async function readStates(
  db: DynamoDBDocumentClient,
  tableName: string,
  target: { userId: string; projectId: string; shards: number },
  fromRow: number,
  toRow: number,
  options: { consistent?: boolean; channels?: readonly StateChannel[] } = {},
): Promise<AccountStates> {
  const states = emptyStates();
  if (toRow < fromRow) return states;
  const { PK } = keys.accountStatesOf(target.userId, target.projectId);
  await Promise.all(
    (options.channels ?? stateChannels).map(async (channel) => {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
            ExpressionAttributeValues: {
              ':pk': PK,
              ':first': keys.accountStateBlock(target.userId, target.projectId, channel, blockStart(fromRow, target.shards), 0).SK,
              ':last': `${keys.accountStateBlock(target.userId, target.projectId, channel, toRow, 0).SK.replace(/#\d+$/, '')}#~`,
            },
            ...(options.consistent ? { ConsistentRead: true } : {}),
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) addBlock(states, item);
        start = page.LastEvaluatedKey;
      } while (start);
    }),
  );
  return states;
}

/** The item with its channels' state overlaid: a channel's entry replaces that channel's attributes. */
export function overlayState(account: Record<string, unknown>, states: AccountStates): Record<string, unknown> {
  const row = rowOf(account);
  let result = account;
  for (const channel of stateChannels) {
    const entry = states[channel].get(row);
    if (!entry) continue;
    if (result === account) result = { ...account };
    for (const attribute of channelAttributes[channel]) delete result[attribute];
    Object.assign(result, entry);
    if (channel === 'MAIL') Object.assign(result, mailEventOverlay(account, entry));
  }
  return result;
}

/**
 * SES's events about an e-mail a send recorded in a MAIL block land on the account item itself
 * (emailEventMessageId, emailEventStatus, emailEventAt, emailEventError: functions/mail-events),
 * never in the block a running send holds. They decide the status of the entry's e-mail when
 * they are about that e-mail (the entry's emailMessageId); an event about an older e-mail of the
 * account changes nothing.
 */
export const mailEventAttributes = ['emailEventMessageId', 'emailEventStatus', 'emailEventAt', 'emailEventError', 'emailEventSendId'] as const;

function mailEventOverlay(account: Record<string, unknown>, entry: StateEntry): Record<string, unknown> {
  if (typeof entry.emailMessageId !== 'string' || account.emailEventMessageId !== entry.emailMessageId || typeof account.emailEventStatus !== 'string') return {};
  return {
    emailStatus: account.emailEventStatus,
    ...(typeof account.emailEventAt === 'string' ? { emailStatusAt: account.emailEventAt } : {}),
    ...(typeof account.emailEventError === 'string' ? { emailError: account.emailEventError } : {}),
  };
}

/** Accounts of one project (any rows, any shards) with their states overlaid. */
export async function withStates(
  db: DynamoDBDocumentClient,
  tableName: string,
  target: { userId: string; projectId: string; shards: number },
  accounts: Record<string, unknown>[],
  options: { consistent?: boolean; channels?: readonly StateChannel[] } = {},
): Promise<Record<string, unknown>[]> {
  if (!accounts.length) return accounts;
  const rows = accounts.map(rowOf);
  const states = await readStates(db, tableName, target, Math.min(...rows), Math.max(...rows), options);
  return accounts.map((account) => overlayState(account, states));
}

/**
 * Accounts of any projects of one user (a search's hits) with their states: the blocks are read
 * by key (BatchGetItem), which needs each project's shard count.
 */
export async function withStatesByKey(db: DynamoDBDocumentClient, tableName: string, userId: string, accounts: Record<string, unknown>[], shardsOfProject: Map<string, number>): Promise<Record<string, unknown>[]> {
  const blockKeys = new Map<string, { PK: string; SK: string }>();
  for (const account of accounts) {
    const projectId = String(account.projectId);
    for (const channel of stateChannels) {
      const key = stateBlockKey(userId, projectId, channel, rowOf(account), shardsOfProject.get(projectId) ?? 1);
      blockKeys.set(`${key.PK}|${key.SK}`, key);
    }
  }
  const byProject = new Map<string, AccountStates>();
  const pending = [...blockKeys.values()];
  for (let i = 0; i < pending.length; i += 100) {
    let batch: Record<string, unknown>[] = pending.slice(i, i + 100);
    await withRetry('Reading account states', requestRetry, (e) => isThrottling(e) || e instanceof UnprocessedStateKeys, async () => {
      const { Responses, UnprocessedKeys } = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: batch } } }));
      for (const item of Responses?.[tableName] ?? []) {
        const projectId = String(item.projectId);
        if (!byProject.has(projectId)) byProject.set(projectId, emptyStates());
        addBlock(byProject.get(projectId)!, item);
      }
      batch = UnprocessedKeys?.[tableName]?.Keys ?? [];
      if (batch.length) throw new UnprocessedStateKeys();
    });
  }
  return accounts.map((account) => {
    const states = byProject.get(String(account.projectId));
    return states ? overlayState(account, states) : account;
  });
}

class UnprocessedStateKeys extends Error {}

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
  private readonly blocks = new Map<string, { key: { PK: string; SK: string }; shard: number; fromRow: number; rows: Record<string, StateEntry>; version: number; dirty: boolean }>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: { db: DynamoDBDocumentClient; tableName: string; retry?: RetryPolicy },
    private readonly target: { userId: string; projectId: string; shards: number },
    private readonly channel: StateChannel,
  ) {}

  /**
   * Reads the blocks of rows from..to (and returns their states, for the overlay). `shard`: only
   * that shard's blocks (a chunk's own), read by key instead of every shard's blocks of the range.
   */
  async load(fromRow: number, toRow: number, shard?: number): Promise<Map<number, StateEntry>> {
    const { PK } = keys.accountStatesOf(this.target.userId, this.target.projectId);
    const width = STATE_BLOCK_ROWS * Math.max(1, this.target.shards);
    let start: Record<string, unknown> | undefined;
    if (shard !== undefined) {
      const starts: number[] = [];
      for (let first = blockStart(fromRow, this.target.shards); first <= toRow; first += width) starts.push(first);
      const items = await Promise.all(
        starts.map(
          async (first) =>
            (await this.deps.db.send(new GetCommand({ TableName: this.deps.tableName, Key: keys.accountStateBlock(this.target.userId, this.target.projectId, this.channel, first, shard), ConsistentRead: true }))).Item,
        ),
      );
      for (const item of items) if (item) this.keep(item);
    } else {
      do {
        const page = await this.deps.db.send(
          new QueryCommand({
            TableName: this.deps.tableName,
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
            ExpressionAttributeValues: {
              ':pk': PK,
              ':first': keys.accountStateBlock(this.target.userId, this.target.projectId, this.channel, blockStart(fromRow, this.target.shards), 0).SK,
              ':last': `${keys.accountStateBlock(this.target.userId, this.target.projectId, this.channel, toRow, 0).SK.replace(/#\d+$/, '')}#~`,
            },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) this.keep(item);
        start = page.LastEvaluatedKey;
      } while (start);
    }
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
      dirty: false,
    });
  }

  get(row: number): StateEntry | undefined {
    return this.blockOf(row)?.rows[String(row)];
  }

  set(row: number, entry: StateEntry): void {
    const shards = Math.max(1, this.target.shards);
    const key = stateBlockKey(this.target.userId, this.target.projectId, this.channel, row, shards);
    let block = this.blocks.get(key.SK);
    if (!block) {
      block = { key, shard: row % shards, fromRow: blockStart(row, shards), rows: {}, version: 0, dirty: false };
      this.blocks.set(key.SK, block);
    }
    block.rows[String(row)] = entry;
    block.dirty = true;
  }

  /** Writes every changed block (after any flush already running). Throws StateBlockConflict when another writer got in. */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => undefined).then(() => this.writeDirty());
    return this.flushing;
  }

  private blockOf(row: number) {
    return this.blocks.get(stateBlockKey(this.target.userId, this.target.projectId, this.channel, row, this.target.shards).SK);
  }

  private async writeDirty(): Promise<void> {
    const dirty = [...this.blocks.values()].filter((block) => block.dirty);
    await Promise.all(
      dirty.map(async (block) => {
        block.dirty = false;
        const version = block.version + 1;
        try {
          await withRetry('Recording account states', this.deps.retry ?? requestRetry, isThrottling, () =>
            this.deps.db.send(
              new PutCommand({
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
                ConditionExpression: block.version === 0 ? 'attribute_not_exists(PK)' : 'version = :version',
                ...(block.version === 0 ? {} : { ExpressionAttributeValues: { ':version': block.version } }),
              }),
            ),
          );
          block.version = version;
        } catch (error) {
          block.dirty = true;
          if (error instanceof ConditionalCheckFailedException) throw new StateBlockConflict();
          throw error;
        }
      }),
    );
  }
}
