import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { stateChannels, type StateChannel } from './state-channels';
import { queryPages } from '../core/query-pages';

/**
 * What a delivery job (a provisioning run, a credential send, an account action) knows about each account, kept in
 * small "state blocks" beside the accounts instead of on the account items.
 *
 * Why: an account item carries the four search indexes' attributes and is ~1.1 KB; a status
 * written on it costs one conditional UpdateItem per account (and on DynamoDB Local ~1 ms of the
 * emulator's CPU each: 10,000 accounts took longer than the platform calls themselves). A block
 * holds the state of up to STATE_BLOCK_ROWS accounts of one shard, written whole by the one
 * delivery that holds the chunk (the chunk lease), conditional on the block's version, so a
 * chunk of 250 accounts costs a handful of writes and a lapsed lease can never overwrite newer
 * state (the writer: account-state-writer.ts). Every reader of accounts overlays the blocks
 * (`withStates`; a search's hits: account-states-by-key.ts): the block's entry for an
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

export { stateChannels, type StateChannel };

/**
 * The channels a project has no state block of yet: the project item's `noStatesYet` (a string
 * set written at creation with every channel; a StateBlockWriter takes its channel out before it
 * puts the channel's first block). Absent (projects older than it): every channel may have blocks.
 * Readers by key skip a listed channel's blocks (docs/data-model.md, pattern 76).
 */
export function channelsWithoutStates(project: Record<string, unknown> | undefined): ReadonlySet<StateChannel> {
  const stored = project?.noStatesYet;
  const values = stored instanceof Set ? [...stored] : Array.isArray(stored) ? stored : [];
  return new Set(stateChannels.filter((channel) => values.includes(channel)));
}

/**
 * The account attributes each channel owns: an entry replaces exactly these (absent = removed).
 * ACT: the latest account action's outcome (functions/account-actions/account-actions-chunk.ts)
 * and `isActive`, which only an action changes once the account exists (Deactivate, Reactivate),
 * with `expiredAt` when a project's expiry deactivated it (the views' 'Expired'; a Reactivate clears it),
 * and what a done entry moved on the project's counters (`movedDeactivated`, `movedExpired`: ±1, absent for 0).
 */
export const channelAttributes: Record<StateChannel, readonly string[]> = {
  PROV: ['externalStatus', 'externalAccountId', 'externalError', 'provisionedAt', 'provisionRun'],
  MAIL: ['emailStatus', 'emailMessageId', 'emailSentAt', 'emailError', 'emailStatusAt', 'mailSend', 'mailSendFrom', 'mailClaim', 'mailSendResult'],
  ACT: ['isActive', 'expiredAt', 'actionRun', 'actionResult', 'actionError', 'actionAt', 'actionOnPlatform', 'actionDetail', 'movedDeactivated', 'movedExpired'],
};

export type StateEntry = Record<string, string | number | boolean>;

/** The first row of the block that holds `row` (its shard follows from row % shards). */
export const blockStart = (row: number, shards: number): number => {
  const width = STATE_BLOCK_ROWS * Math.max(1, shards);
  return Math.floor((row - 1) / width) * width + 1;
};

/** The first rows of one shard's blocks over rows from..to (a chunk's own blocks: the other shards' of the range belong to other chunks). */
export function shardBlockStarts(fromRow: number, toRow: number, shards: number): number[] {
  const width = STATE_BLOCK_ROWS * Math.max(1, shards);
  const starts: number[] = [];
  for (let first = blockStart(fromRow, shards); first <= toRow; first += width) starts.push(first);
  return starts;
}

export const stateBlockKey = (userId: string, projectId: string, channel: StateChannel, row: number, shards: number) =>
  keys.accountStateBlock(userId, projectId, channel, blockStart(row, shards), row % Math.max(1, shards));

/** An account's row (the item's `row`, else its sort key). */
export const rowOf = (account: Record<string, unknown>): number => (typeof account.row === 'number' ? account.row : Number(String(account.SK).slice('ACCOUNT#'.length)));

/** row -> entry, per channel (a reader that needs no action outcomes may leave ACT out). */
export type AccountStates = Record<Exclude<StateChannel, 'ACT'>, Map<number, StateEntry>> & { ACT?: Map<number, StateEntry> };
export const emptyStates = (): AccountStates => ({ PROV: new Map(), MAIL: new Map(), ACT: new Map() });

export function addBlock(states: AccountStates, item: Record<string, unknown>): void {
  const channel = item.channel as StateChannel;
  const rows = item.rows as Record<string, StateEntry> | undefined;
  if (!states[channel] || !rows) return;
  for (const [row, entry] of Object.entries(rows)) states[channel]!.set(Number(row), entry);
}

/** The states of a project's rows from..to (every shard), read with one Query per channel (a chunk's own shard: readShardBlocks). */
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
      const blocks = queryPages(db, {
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
        ExpressionAttributeValues: {
          ':pk': PK,
          ':first': keys.accountStateBlock(target.userId, target.projectId, channel, blockStart(fromRow, target.shards), 0).SK,
          ':last': `${keys.accountStateBlock(target.userId, target.projectId, channel, toRow, 0).SK.replace(/#\d+$/, '')}#~`,
        },
        ...(options.consistent ? { ConsistentRead: true } : {}),
      });
      for await (const page of blocks) for (const item of page.Items ?? []) addBlock(states, item);
    }),
  );
  return states;
}

/** The item with its channels' state overlaid: a channel's entry replaces that channel's attributes. */
export function overlayState(account: Record<string, unknown>, states: AccountStates): Record<string, unknown> {
  const row = rowOf(account);
  let result = account;
  for (const channel of stateChannels) {
    const entry = states[channel]?.get(row);
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
