import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { emailCounterAttribute, type EmailStatus } from '../../shared/schemas/email-status';
import type { AccountAction } from '../../shared/schemas/account-actions';
import type { AccountHistoryKind } from '../../shared/schemas/account-edit';
import { isThrottling, withRetry, workerRetry } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { counterUpdates } from '../analytics/counters';
import { chunkRunner, deadChunkRecorder, MAX_REQUEUES, type ChunkEnd, type ChunkTally } from '../account-jobs/chunk-runner';
import type { JobItem } from '../account-jobs/kind';
import { leaseItem } from '../account-jobs/lease';
import * as jobs from '../account-jobs/lifecycle';
import { takeIntegrationTurn, TURN_RETRY_SECONDS } from '../account-jobs/integration-turn';
import { chunkPieces, integrationCredentials, pacedCalls, prefetched, type PacedAnswer, type PlatformChunkDeps } from '../account-jobs/platform-calls';
import { filterOf, rowsOf, selectedAccounts } from '../account-jobs/selection';
import { successorOf } from '../account-jobs/window';
import { chunkAccountItems, shardsOf } from '../accounts/account-partitions';
import { StateBlockWriter } from '../accounts/account-state-writer';
import { readShardBlocks } from '../accounts/account-states-by-key';
import { addBlock, blockStart, channelAttributes, emptyStates, mailEventAttributes, overlayState, rowOf, type StateChannel, type StateEntry } from '../accounts/account-states';
import { eraseAccountTraces } from '../accounts/erase-account-traces';
import type { HistoryBlockEntry } from '../accounts/account-history-blocks';
import { writeHistoryBlocks } from '../accounts/account-history-block-writes';
import { attributesOf } from '../accounts/account-item';
import { attributeCountMoves } from '../accounts/attribute-counts';
import { attributeIndexItems } from '../accounts/attribute-index-items';
import { blockHolding } from '../accounts/username-claims';
import { mapBounded } from '../provisioning/pacing';
import type { ActionChunkMessage } from '../provisioning/provisioning-message';
import { accountActionJobs } from './account-actions';
import { groupLeaver, groupMover, leavesGroupsOnDelete } from './leave-groups';
import { resolveRunGroups } from '../provisioning/run-groups';
import type { MembershipOutcome } from '../provisioning/provisioning-port';
import { randomInt } from 'node:crypto';

/**
 * One chunk of an account action (account-actions.ts). Each selected account of the chunk this
 * job has not decided yet: on its platform first when it is there (Synced, its id there in the
 * PROV state blocks) and the job has the integration (Pro at the start), paced as provisioning
 * (429s waited out, 5xx retried); then here.
 *
 * Where the outcome lives: in the project's ACT state blocks (functions/accounts/account-states.ts),
 * one entry per account marked with the job (`actionRun`, `actionResult`, the platform's words),
 * with `isActive`: every reader of accounts overlays it. A block holds 50 accounts of a shard and
 * is written by the delivery that holds the chunk's lease, conditional on its version, as answers
 * arrive (ActionOutcomes): a chunk of 500 accounts (ACTION_CHUNK_ACCOUNTS) costs about 10 block writes, where a transaction
 * per account (the account item, with its search indexes, and a history item) took longer on
 * DynamoDB Local than the platform's PATCHes themselves. So a redelivery never does an account
 * twice: what an entry of this job says is decided.
 *  - deactivate / reactivate: the entry (isActive), then its history item (ActionOutcomes.written).
 *  - update: the "not yet updated" mark cleared on the account item, then the entry and its history.
 *  - delete: the account item (its search keys are on it) and its username (free for reuse) erased
 *    and the user's, project's and analytics' counters moved down, in one transaction per account
 *    that also counts it on the chunk's item (once: the account is gone after it).
 * An account the platform refused stays as it was, its entry failed with the platform's words
 * (`actionError`): running the action again retries it.
 */
export type ActionChunkDeps = PlatformChunkDeps;
type Account = Record<string, unknown>;
type Deps = Pick<ActionChunkDeps, 'db' | 'tableName' | 'now' | 'retry'>;

const STOPPED_OURS = 'Not changed: the action stopped on our side after repeated errors. Run it again.';

/** The selected accounts of the chunk (its rows, its filter: selection.ts, on the accounts with their ACT entries overlaid) this job has not decided yet. */
const undecided = async (deps: Pick<ActionChunkDeps, 'db' | 'tableName'>, job: JobItem, accounts: Account[]) =>
  selectedAccounts(deps, job, accounts.filter((a) => a.actionRun !== job.id), { overlaid: true });

/** What an update sends: the account's names and e-mail, and its username when it was regenerated since the platform last had it. */
const changesOf = (a: Account) => {
  const fields = (a.platformChange as { fields?: unknown } | undefined)?.fields;
  const attributes = attributesOf(a) ?? {};
  // Extra columns the edits removed: their platform attributes are cleared (the adapter factory maps them).
  const removedAttributes = Array.isArray(fields) ? fields.map(String).filter((f) => f.startsWith('attributes.')).map((f) => f.slice('attributes.'.length)).filter((key) => !(key in attributes)) : [];
  return {
    firstName: String(a.firstName),
    lastName: String(a.lastName),
    email: String(a.email),
    ...(Array.isArray(fields) && fields.includes('username') ? { username: String(a.username) } : {}),
    attributes,
    ...(removedAttributes.length ? { removedAttributes } : {}),
  };
};

const onPlatformOf = (a: Account) => a.externalStatus === 'success' && typeof a.externalAccountId === 'string' && a.externalAccountId !== '';
const cancelledOn = (error: unknown, index: number) => error instanceof TransactionCanceledException && error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

export const accountActionChunk = (deps: ActionChunkDeps) =>
  chunkRunner(deps, accountActionJobs, { load: (job, message) => readFirst(deps, job, message), run: (job, message, first) => actLeased(deps, job, message, first) }, leaseItem(accountActionJobs));

/** Where a chunk's accounts and states are: the project's partitions (its shard count fixed on the job by its plan). */
const targetOf = (job: JobItem, message: ActionChunkMessage, shards = Number(job.shards ?? 1)) => ({ userId: message.userId, projectId: String(job.projectId), shards: Math.max(1, shards) });

/** Rows fromRow..toRow of the chunk's shard: the accounts that exist, with their states (the ACT blocks read through the chunk's writer, which keeps them). */
async function loadPiece(deps: Deps, job: JobItem, message: ActionChunkMessage, writer: StateBlockWriter, target: ReturnType<typeof targetOf>, piece: { fromRow: number; toRow: number }): Promise<Account[]> {
  // The piece's ACT blocks (kept by the writer) and the states it reads besides, of the chunk's shard: one read.
  const [blocks, items] = await Promise.all([
    readShardBlocks(deps.db, deps.tableName, target, ['ACT', ...stateChannelsOf(job)], { ...piece, shard: message.shard }, { consistent: true }),
    chunkAccountItems(deps.db, deps.tableName, { ...target, shard: message.shard, ...piece }, job.action === 'deactivate' || job.action === 'reactivate' || job.action === 'groups' ? STATE_ONLY : {}),
  ]);
  const states = emptyStates();
  for (const block of blocks) if (block.channel !== 'ACT') addBlock(states, block);
  states.ACT = writer.adopt(blocks);
  return items.map((item) => overlayState(item, states));
}

/**
 * What a Deactivate or Reactivate reads of each account item: its keys and row, and the
 * attributes the states overlay and the filters read (an older account may still carry them on
 * the item); not its names, password and search keys (an Update and a Delete need those).
 */
const STATE_ONLY = {
  projection: ['PK', 'SK', '#row', 'id', ...new Set([...channelAttributes.PROV, ...channelAttributes.MAIL, ...channelAttributes.ACT, ...mailEventAttributes])].join(', '),
  names: { '#row': 'row' },
};

/** The states an action reads besides its own (ACT): where the account is on the platform (PROV), and its e-mail (MAIL) for a delete (the e-mail counters it takes off) or the Not e-mailed filter. */
const stateChannelsOf = (job: JobItem): StateChannel[] => (job.action === 'delete' || filterOf(job) === 'unsent' ? ['PROV', 'MAIL'] : ['PROV']);

const writerOf = (deps: Deps, target: ReturnType<typeof targetOf>) => new StateBlockWriter({ db: deps.db, tableName: deps.tableName, retry: deps.retry ?? workerRetry }, target, 'ACT');

/** The chunk's accounts (every one of its rows that exists) with their states, and the writer of its ACT blocks, read at once (the dead-letter worker). */
async function loadChunk(deps: Deps, job: JobItem, message: ActionChunkMessage, project: Record<string, unknown> | undefined) {
  const target = targetOf(job, message, project ? shardsOf(project) : undefined);
  const writer = writerOf(deps, target);
  const accounts = await loadPiece(deps, job, message, writer, target, message);
  return { accounts, outcomes: new ActionOutcomes(deps, job, message, writer, project) };
}

/**
 * What a delivery reads first, in one round while its lease is taken (chunkRunner's `load`): the
 * project, the integration and the first piece of its accounts; the other pieces are read beside
 * the calls (prefetched). A delivery that does not get the lease drops them.
 */
async function readFirst(deps: ActionChunkDeps, job: JobItem, message: ActionChunkMessage) {
  const target = targetOf(job, message);
  const writer = writerOf(deps, target);
  const all: Account[] = [];
  // The accounts each block has to decide, counted before they are handed out (a piece holds whole blocks): its outcomes are written once they are all in.
  const expected = new Map<number, number>();
  const accounts = prefetched(chunkPieces(message, target.shards), async (piece) => {
    const loaded = await loadPiece(deps, job, message, writer, target, piece);
    all.push(...loaded);
    const taken = await undecided(deps, job, loaded);
    for (const account of taken) {
      const block = blockStart(rowOf(account), target.shards);
      expected.set(block, (expected.get(block) ?? 0) + 1);
    }
    return taken;
  });
  const [{ Item: project }, integration] = await Promise.all([
    deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(message.userId, String(job.projectId)), ConsistentRead: true })),
    typeof job.integrationId === 'string' ? deps.integration(message.userId, job.integrationId) : undefined,
  ]);
  return { writer, all, accounts, expected, project, integration };
}

/**
 * One delivery of a chunk (its first reads: readFirst). The platform's calls start once the
 * first ~100 accounts are read, not all 500, and the worker's share of the platform's
 * concurrency stays busy while the rest is read and the outcomes are written (ActionOutcomes).
 */
async function actLeased(deps: ActionChunkDeps, job: JobItem, message: ActionChunkMessage, first: Awaited<ReturnType<typeof readFirst>>): Promise<ChunkEnd> {
  const { userId } = message;
  const { writer, all, accounts, expected, project, integration } = first;
  const toPlatform = typeof job.integrationId === 'string';
  if (!project) {
    await jobs.failJob(deps, accountActionJobs, userId, message.jobId, 'The project was deleted.');
    return 'stopped';
  }
  const outcomes = new ActionOutcomes(deps, job, message, writer, project, expected);
  // Accounts not on the platform are done here only (8 at a time), beside the calls of the others.
  const local: Promise<void>[] = [];
  let localFailure: unknown;
  const hereOnly = (batch: Account[]) =>
    void local.push(
      mapBounded(batch, 8, (a) => applyHere(deps, job, message, outcomes, a, integration?.platform)).then(
        () => undefined,
        (error: unknown) => void (localFailure ??= error),
      ),
    );
  const onPlatform = (async function* () {
    let batch: Account[] = [];
    for await (const account of accounts) {
      if (toPlatform && onPlatformOf(account)) yield account;
      else if (batch.push(account) >= 50) {
        hereOnly(batch);
        batch = [];
      }
    }
    if (batch.length) hereOnly(batch);
  })();
  try {
    let later: number | { wait: number } | undefined;
    if (toPlatform) later = await actOnPlatform(deps, job, message, outcomes, onPlatform, integration, Array.isArray(project.groups) ? project.groups.map(String) : []);
    else for await (const account of onPlatform) void account;
    await Promise.all(local);
    if (localFailure !== undefined) throw localFailure;
    if (later !== undefined) {
      await outcomes.written();
      return typeof later === 'number' ? { later } : later;
    }
  } catch (error) {
    // What was decided before the error is kept (a later delivery skips it); the error fails this delivery.
    await Promise.all(local);
    await outcomes.written().catch(() => undefined);
    throw error;
  }
  // Every account of the chunk handled (the platform's calls over, its turn given back): the next
  // chunk goes on the queue beside the last writes and the tally, so its reads and its turn follow
  // this chunk's last call, not its records; the done marker says it is released. A delivery that
  // dies before the marker leaves a copy of it (the redelivery queues it again): the copy finds its
  // chunk leased or done, as with a release after the marker.
  const successor = successorOf(accountActionJobs, job, message.chunk);
  const [tallied, queued] = await Promise.allSettled([chunkTally(deps, job, message, outcomes, job.action === 'delete' ? undefined : all), successor ? deps.queue.send([successor]) : undefined]);
  if (tallied.status === 'rejected') throw tallied.reason;
  const tally = tallied.value;
  return { done: successor && queued.status === 'fulfilled' ? { ...tally, marker: { ...tally.marker, released: true } } : tally };
}

/**
 * The accounts on the platform: there first, then here, on the integration's turn. Returns the
 * delay after which a later delivery takes the rest, if any, or `{ wait }` when the turn is
 * another delivery's (nothing done).
 */
async function actOnPlatform(
  deps: ActionChunkDeps,
  job: JobItem,
  message: ActionChunkMessage,
  outcomes: ActionOutcomes,
  onPlatform: AsyncIterable<Account>,
  integration: Awaited<ReturnType<ActionChunkDeps['integration']>>,
  groups: readonly string[],
): Promise<number | { wait: number } | undefined> {
  const action = job.action as AccountAction;
  const platformName = String(job.integrationName ?? integration?.name ?? 'the platform');
  const failAll = async (words: string): Promise<undefined> => {
    for await (const account of onPlatform) outcomes.failed(account, words);
    return undefined;
  };
  if ((message.requeues ?? 0) > MAX_REQUEUES) return await failAll(`Sync Failed: ${platformName} kept asking us to wait (HTTP 429) for too long. Run the action again later.`);
  const credentials = integration && (await integrationCredentials(deps.cipher, message.userId, integration));
  if (!integration || !credentials) {
    return await failAll(
      integration ? "Sync Failed: the integration's credentials cannot be read. Enter them again in the integration, then run the action again." : `Sync Failed: the integration these accounts were provisioned to was deleted, so ${platformName} could not be changed.`,
    );
  }
  const turn = await takeIntegrationTurn(deps, { userId: message.userId, jobId: message.jobId, integrationId: integration.id }, deps.pacingOf(integration));
  if (!turn) return { wait: TURN_RETRY_SECONDS };
  const adapter = deps.adapterFor(integration, credentials);
  // Delete takes the account out of the project's groups first where the platform keeps them (leave-groups.ts).
  const leaveGroups = action === 'delete' && groups.length && leavesGroupsOnDelete(integration) ? groupLeaver(adapter.groups, groups, platformName) : undefined;
  // Groups: the job's groups resolved (found, or created when the project allows it) once per job, then joined and left per account.
  let moveGroups: ((externalId: string) => Promise<MembershipOutcome>) | undefined;
  if (action === 'groups') {
    const resolved = await resolveRunGroups(deps, accountActionJobs.key(message.userId, message.jobId), job, adapter.groups, { platform: platformName, claimant: `${message.shard}.${message.fromRow}.${randomInt(1e9)}` });
    if (!('targets' in resolved)) {
      adapter.close();
      await turn.give();
      if ('later' in resolved) return resolved.later;
      return await failAll(`Sync Failed: ${platformName} refused our credentials (${resolved.paused}). Edit the integration and test it, then run the action again.`);
    }
    moveGroups = groupMover(adapter.groups, resolved.targets, Array.isArray(job.groupsLeave) ? job.groupsLeave.map(String) : [], platformName);
  }
  let refused: string | undefined;
  // Each answer's write here runs beside the next calls (not in the call's slot): the platform's pace sets the job's.
  const writes: Promise<void>[] = [];
  let writeFailure: unknown;
  const record = (write: Promise<void>) =>
    void writes.push(
      write.catch((error: unknown) => {
        writeFailure ??= error;
      }),
    );
  let later: number | undefined;
  try {
    later = await pacedCalls(deps, turn, onPlatform, async (account): Promise<PacedAnswer> => {
      if (refused) {
        outcomes.failed(account, refused);
        return {};
      }
      const externalId = String(account.externalAccountId);
      const outcome =
        action === 'delete'
          ? ((await leaveGroups?.(externalId)) ?? (await adapter.remove(externalId)))
          : moveGroups
            ? await moveGroups(externalId)
            : action === 'update' ? await adapter.update(externalId, changesOf(account)) : await adapter.setActive(externalId, action === 'reactivate');
      if (outcome.kind === 'conflict') outcomes.failed(account, `Sync Failed: ${outcome.message}`);
      else if (outcome.kind === 'done') record(applyHere(deps, job, message, outcomes, account, integration.platform, outcome.detail, 'externalId' in outcome && typeof outcome.externalId === 'string' ? outcome.externalId : undefined));
      else if (outcome.kind === 'gone') outcomes.failed(account, `Sync Failed: ${outcome.detail}`);
      else {
        const fail = async () => outcomes.failed(account, `Sync Failed: ${outcome.message}`);
        if (outcome.authRefused) {
          // The rest of the chunk is not tried with credentials the platform refuses.
          refused = `Sync Failed: ${platformName} refused our credentials (${outcome.message}). Edit the integration and test it, then run the action again.`;
          outcomes.failed(account, refused);
        } else if (outcome.retryable) return { retry: outcome.rateLimited ? 'rate' : 'server', retryAfterMs: outcome.retryAfterMs, exhausted: fail };
        else await fail();
      }
      return {};
    });
  } finally {
    adapter.close();
    await turn.give();
    // Every answer recorded before the chunk is counted (or left to a later delivery); a write that failed fails the delivery.
    await Promise.all(writes);
  }
  if (writeFailure !== undefined) throw writeFailure;
  return later;
}

/** The action here, once the platform (if any) did it: `detail` is the platform's words. */
async function applyHere(deps: Deps, job: JobItem, message: ActionChunkMessage, outcomes: ActionOutcomes, account: Account, platform: string | undefined, detail?: string, externalId?: string): Promise<void> {
  if (job.action === 'delete') return erase(deps, job, message, outcomes.project, account, platform, detail !== undefined);
  if (job.action === 'update') {
    // The platform has the account's values now (or it is not on one): the "not yet updated" mark goes (before the entry: a redelivery does it again).
    try {
      await withRetry('Applying an account action', deps.retry ?? workerRetry, isThrottling, () =>
        deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: { PK: account.PK, SK: account.SK },
            UpdateExpression: `${externalId ? 'SET externalAccountId = :external ' : ''}REMOVE platformChange`,
            ConditionExpression: 'attribute_exists(PK)',
            ...(externalId ? { ExpressionAttributeValues: { ':external': externalId } } : {}),
          }),
        ),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return;
      throw error;
    }
  }
  outcomes.done(account, detail);
}

/** A deleted account: erased with its username and counted off, once (the transaction's conditions). */
async function erase(deps: Deps, job: JobItem, message: ActionChunkMessage, project: Record<string, unknown> | undefined, account: Account, platform: string | undefined, there: boolean): Promise<void> {
  const userId = message.userId;
  // Its links and history first (a redelivery finds what is left: the account is still there until the transaction).
  await eraseAccountTraces(deps, userId, String(job.projectId), account, Math.max(1, Number(job.shards ?? 1)));
  const status = account.externalStatus;
  const email = typeof account.emailStatus === 'string' && account.emailStatus in emailCounterAttribute ? emailCounterAttribute[account.emailStatus as EmailStatus] : undefined;
  // A deactivated (or expired) account leaves the project's counters of those too, where the project keeps them.
  const counted = typeof project?.deactivatedCount === 'number';
  const projectAdds = [
    ['accountCount', 1],
    ...(status === 'success' ? [['syncedCount', 1]] : status === 'failed' ? [['syncFailedCount', 1]] : status === 'removed' ? [['syncRemovedCount', 1]] : []),
    ...(email ? [[email, 1]] : []),
    ...(counted && account.isActive === false ? [['deactivatedCount', 1]] : []),
    ...(counted && typeof account.expiredAt === 'string' ? [['expiredCount', 1]] : []),
  ] as [string, number][];
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    {
      Update: {
        TableName: deps.tableName,
        Key: accountActionJobs.chunkKey(userId, message.jobId, message.chunk),
        UpdateExpression: 'ADD deleted :one, deletedOnPlatform :there SET entityType = :type, chunk = :chunk',
        ConditionExpression: 'attribute_not_exists(doneAt)',
        ExpressionAttributeValues: { ':one': 1, ':there': there ? 1 : 0, ':type': accountActionJobs.chunkEntityType, ':chunk': message.chunk },
      },
    },
    { Delete: { TableName: deps.tableName, Key: { PK: account.PK, SK: account.SK }, ConditionExpression: 'attribute_exists(PK)' } },
    { Update: { TableName: deps.tableName, Key: keys.user(userId), UpdateExpression: 'ADD accountCount :minus', ExpressionAttributeValues: { ':minus': -1 } } },
    {
      Update: {
        TableName: deps.tableName,
        Key: keys.project(userId, String(job.projectId)),
        UpdateExpression: `ADD ${projectAdds.map((_, n) => `#p${n} :minus`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(projectAdds.map(([name], n) => [`#p${n}`, name])),
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
    ...(status === 'success' && platform ? counterUpdates(deps.tableName, userId, '', { synced: { platform, count: -1 } }) : []),
    ...(await usernameRelease(deps, userId, String(job.projectId), account)),
    // Its Attribute filter entries and their values' counters (the exact count: attribute-counts.ts).
    ...attributeErase(deps.tableName, userId, String(job.projectId), account),
  ];
  try {
    await withRetry('Applying an account action', deps.retry ?? workerRetry, isThrottling, () => deps.db.send(new TransactWriteCommand({ TransactItems: items })));
  } catch (error) {
    // Erased by another delivery (or the chunk recorded done meanwhile): nothing more to do.
    if (cancelledOn(error, 0) || cancelledOn(error, 1)) return;
    throw error;
  }
}

/** A deleted account's Attribute filter entries go, and each value's counter counts it off (in the erase transaction: once). */
function attributeErase(tableName: string, userId: string, projectId: string, account: Account) {
  const entries = attributeIndexItems(userId, projectId, rowOf(account), attributesOf(account));
  return [...entries.map(({ PK, SK }) => ({ Delete: { TableName: tableName, Key: { PK, SK } } })), ...attributeCountMoves(tableName, userId, projectId, { remove: entries, put: [] })];
}

/** The account's username back to the pool: its name item when it names the account, else its place in an import's username block. */
async function usernameRelease(deps: Deps, userId: string, projectId: string, account: Account) {
  const username = String(account.username);
  const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.username(userId, username), ConsistentRead: true }));
  if (Item?.accountId === account.id) return [{ Delete: { TableName: deps.tableName, Key: keys.username(userId, username) } }];
  if (Item) return [];
  const block = await blockHolding(deps.db, deps.tableName, userId, username, projectId);
  if (!block) return [];
  return [{ Update: { TableName: deps.tableName, Key: block.key, UpdateExpression: `REMOVE #names[${block.index}]`, ConditionExpression: `#names[${block.index}] = :name`, ExpressionAttributeNames: { '#names': 'names' }, ExpressionAttributeValues: { ':name': username } } }];
}

/** A block's outcomes are written once all its accounts of the delivery are decided, or this long after its first one not yet written. */
const WRITE_EVERY_MS = 500;
/** Blocks whose history items are put together (one BatchWriteItem), or this long after the first of them is due. */
const HISTORY_BLOCKS_PER_WRITE = 5;
const HISTORY_EVERY_MS = 1000;

/** The history entry an account's done entry stands for (none: an update here only, with nothing sent to a platform). */
function historyKindOf(action: AccountAction, entry: StateEntry): AccountHistoryKind | undefined {
  if (action === 'deactivate') return typeof entry.expiredAt === 'string' ? 'expired' : 'deactivated';
  if (action === 'reactivate') return 'reactivated';
  if ((action === 'update' || action === 'groups') && entry.actionOnPlatform === true) return 'updated_on_platform';
  return undefined;
}

/**
 * What an account's new state moves on its project's counters (`deactivatedCount`, `expiredCount`),
 * against the state it had as read (its last ACT entry overlaid): recorded on its done entry, so
 * the chunk's tally adds each account's move once, with the entry (absent: nothing moved).
 */
export function movesOf(account: Account, isActive: boolean, expired: boolean): StateEntry {
  const deactivated = Number(account.isActive !== false) - Number(isActive);
  const expiredMove = Number(expired) - Number(typeof account.expiredAt === 'string');
  return { ...(deactivated ? { movedDeactivated: deactivated } : {}), ...(expiredMove ? { movedExpired: expiredMove } : {}) };
}

/** The project's counters of deactivated and expired accounts, moved by `moves`: kept only on a project item that has them (an older one gets them from an action's plan). */
export function projectCounterMoves(tableName: string, userId: string, project: Record<string, unknown>, moves: { deactivated: number; expired: number }) {
  if (typeof project.deactivatedCount !== 'number' || (moves.deactivated === 0 && moves.expired === 0)) return [];
  return [
    {
      Update: {
        TableName: tableName,
        Key: keys.project(userId, String(project.id)),
        UpdateExpression: 'ADD deactivatedCount :deactivated, expiredCount :expired',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':deactivated': moves.deactivated, ':expired': moves.expired },
      },
    },
  ];
}

/**
 * The outcomes of one delivery of a chunk, in its ACT state blocks: set as they come, written
 * beside the work a block at a time, once the answers (in whatever order they come) have decided
 * all the block's accounts this delivery takes (`expected`), or WRITE_EVERY_MS after the block's
 * first outcome not yet written (an account still waiting for the platform), each account once
 * (an entry of this job is never replaced): a block and its history item are written once, not
 * a part of them with every 50 answers and then the rest. Once a write of entries is done, the
 * history items of its done ones follow, still beside the work; each is keyed by its entry's time
 * and the job (the same key every time), so `written()` also writes those of the chunk's entries
 * a delivery that died in between left without one, and no delivery writes one twice.
 */
class ActionOutcomes {
  /** Per block (its first row): its outcomes not written yet, and the timer that writes them. */
  private readonly unwritten = new Map<number, { rows: number[]; timer?: NodeJS.Timeout }>();
  /** Per block: the outcomes this delivery set. */
  private readonly decided = new Map<number, number>();
  /** Rows set by this delivery whose ACT write has not ended yet (no history for them before it). */
  private readonly unflushed = new Set<number>();
  /** Blocks whose history item is due (an ACT write of theirs ended since it was put), the timer that puts them. */
  private readonly historyDue = new Set<number>();
  private historyTimer: NodeJS.Timeout | undefined;
  /** Per block: the done entries its history item was last put with (this delivery). */
  private readonly historyPut = new Map<number, number>();
  private readonly writes: Promise<void>[] = [];
  /** The history puts, one after the other (a block put twice is never overwritten by its older content). */
  private historyWrites: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly deps: Deps,
    private readonly job: JobItem,
    private readonly message: ActionChunkMessage,
    readonly writer: StateBlockWriter,
    /** The project as this delivery read it (undefined: gone): whether it keeps the deactivated / expired counters. */
    readonly project: Record<string, unknown> | undefined,
    /** Per block (its first row): the accounts this delivery decides, once its piece is read (none: each block on its timer). */
    private readonly expected?: ReadonlyMap<number, number>,
  ) {}

  done(account: Account, detail?: string): void {
    const isActive = this.job.action === 'deactivate' ? false : this.job.action === 'reactivate' ? true : account.isActive !== false;
    // A project's expiry (origin 'expiry') marks the account expired; a reactivation clears the mark (the entry replaces the last one), an update keeps it.
    const expiredAt = this.job.action === 'deactivate' ? (this.job.origin === 'expiry' ? this.deps.now().toISOString() : undefined) : this.job.action === 'update' || this.job.action === 'groups' ? account.expiredAt : undefined;
    this.set(account, {
      isActive,
      actionResult: 'done',
      actionOnPlatform: detail !== undefined,
      ...(detail !== undefined ? { actionDetail: detail.slice(0, 500) } : {}),
      ...(typeof expiredAt === 'string' ? { expiredAt } : {}),
      ...movesOf(account, isActive, typeof expiredAt === 'string'),
    });
  }

  /** Left as it was (refused by the platform, or not reached), with the words. */
  failed(account: Account, words: string): void {
    this.set(account, { isActive: account.isActive !== false, actionResult: 'failed', actionError: words.slice(0, 500), ...(typeof account.expiredAt === 'string' ? { expiredAt: account.expiredAt } : {}) });
  }

  private set(account: Account, outcome: StateEntry): void {
    const row = rowOf(account);
    if (this.writer.get(row)?.actionRun === this.job.id) return;
    this.writer.set(row, { ...outcome, actionRun: String(this.job.id), actionAt: this.deps.now().toISOString() });
    this.unflushed.add(row);
    const block = this.blockOf(row);
    const decided = (this.decided.get(block) ?? 0) + 1;
    this.decided.set(block, decided);
    const pending = this.unwritten.get(block) ?? { rows: [] };
    this.unwritten.set(block, pending);
    pending.rows.push(row);
    if (decided >= (this.expected?.get(block) ?? Number.POSITIVE_INFINITY)) this.write([block]);
    else pending.timer ??= setTimeout(() => this.write([block]), WRITE_EVERY_MS);
  }

  private blockOf(row: number): number {
    return blockStart(row, Math.max(1, Number(this.job.shards ?? 1)));
  }

  /** The entries of these blocks (all) set since their last write; then their history items are due. */
  private write(blocks: readonly number[] = [...this.unwritten.keys()]): void {
    const rows: number[] = [];
    for (const block of blocks) {
      const pending = this.unwritten.get(block);
      if (!pending) continue;
      clearTimeout(pending.timer);
      this.unwritten.delete(block);
      rows.push(...pending.rows);
    }
    if (!rows.length) return;
    this.writes.push(
      this.writer
        .flush(rows)
        .then(() => {
          for (const row of rows) this.unflushed.delete(row);
          for (const block of blocks) this.historyDue.add(block);
          if (this.historyDue.size >= HISTORY_BLOCKS_PER_WRITE) this.putHistory();
          else this.historyTimer ??= setTimeout(() => this.putHistory(), HISTORY_EVERY_MS);
        })
        .catch((error: unknown) => void (this.failure ??= error)),
    );
  }

  /** The history items of the blocks due, beside the work. */
  private putHistory(): void {
    clearTimeout(this.historyTimer);
    this.historyTimer = undefined;
    const blocks = [...this.historyDue];
    this.historyDue.clear();
    if (blocks.length) this.historyWrites = this.historyWrites.then(() => this.history(blocks)).catch((error: unknown) => void (this.failure ??= error));
  }

  /** This job's entries of the chunk's rows. */
  entries(): [number, StateEntry][] {
    const shards = Math.max(1, Number(this.job.shards ?? 1));
    const found: [number, StateEntry][] = [];
    for (let row = this.message.fromRow; row <= this.message.toRow; row++) {
      if (row % shards !== this.message.shard) continue;
      const entry = this.writer.get(row);
      if (entry && entry.actionRun === this.job.id) found.push([row, entry]);
    }
    return found;
  }

  /**
   * Every outcome and its history item written; throws the first write's error. The history of
   * every block of the chunk whose item this delivery has not put with all its done entries (a
   * delivery that died before it left a block without one: a redelivery puts it).
   */
  async written(): Promise<void> {
    this.write();
    await Promise.all(this.writes);
    clearTimeout(this.historyTimer);
    this.historyTimer = undefined;
    this.historyDue.clear();
    await this.historyWrites;
    if (this.failure !== undefined) throw this.failure;
    const due = new Map<number, number>();
    for (const [row] of this.historyEntries()) due.set(this.blockOf(row), (due.get(this.blockOf(row)) ?? 0) + 1);
    await this.history([...due].filter(([block, count]) => this.historyPut.get(block) !== count).map(([block]) => block));
  }

  /** The history entries of this job's done entries that are written (this delivery's once their ACT write ended, and an earlier delivery's). */
  private historyEntries(): [number, HistoryBlockEntry][] {
    const found: [number, HistoryBlockEntry][] = [];
    for (const [row, entry] of this.entries()) {
      const kind = entry.actionResult === 'done' && !this.unflushed.has(row) ? historyKindOf(this.job.action as AccountAction, entry) : undefined;
      if (kind) found.push([row, { kind, at: String(entry.actionAt), ...(typeof entry.actionDetail === 'string' ? { detail: entry.actionDetail } : {}) }]);
    }
    return found;
  }

  /**
   * The history items of these blocks (account-history-blocks.ts), each put whole with every done
   * entry of this job in the block that is written (this delivery's once their ACT write ended,
   * and those an earlier delivery wrote).
   */
  private async history(blocks: readonly number[]): Promise<void> {
    const wanted = new Set(blocks);
    const entries = new Map<number, HistoryBlockEntry>();
    const counts = new Map<number, number>();
    for (const [row, entry] of this.historyEntries()) {
      const block = this.blockOf(row);
      if (!wanted.has(block)) continue;
      entries.set(row, entry);
      counts.set(block, (counts.get(block) ?? 0) + 1);
    }
    if (entries.size) {
      await writeHistoryBlocks(
        { ...this.deps, retry: this.deps.retry ?? workerRetry },
        { userId: this.message.userId, projectId: String(this.job.projectId), shards: Math.max(1, Number(this.job.shards ?? 1)), jobId: String(this.job.id) },
        entries,
      );
    }
    for (const block of blocks) this.historyPut.set(block, counts.get(block) ?? 0);
  }
}

/**
 * What the chunk did, once its outcomes are written: its entries of this job (done, failed), the
 * accounts it erased (counted on its item), and selected rows with no account (a long list is not
 * checked at the start): failed.
 */
async function chunkTally(deps: Pick<ActionChunkDeps, 'db' | 'tableName'>, job: JobItem, message: ActionChunkMessage, outcomes: ActionOutcomes, loaded?: readonly Account[]): Promise<ChunkTally> {
  await outcomes.written();
  // `loaded`: the chunk's accounts as this delivery read them, still all there (an action that erases none; the project's lock keeps others off).
  // The accounts it erased are counted on the chunk's item (a delete only).
  const [{ Item }, items] = await Promise.all([
    job.action === 'delete' ? deps.db.send(new GetCommand({ TableName: deps.tableName, Key: accountActionJobs.chunkKey(message.userId, message.jobId, message.chunk), ConsistentRead: true })) : { Item: undefined },
    loaded ??
      chunkAccountItems(deps.db, deps.tableName, { userId: message.userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow }, { projection: 'SK, #row', names: { '#row': 'row' } }),
  ]);
  const present = new Set(items.map(rowOf));
  // An entry of an account erased since (a delete refused once, then done by another action) counts no more.
  const kept = outcomes.entries().filter(([row]) => present.has(row));
  const marked = kept.map(([, entry]) => entry);
  const deleted = Number(Item?.deleted ?? 0);
  const done = marked.filter((a) => a.actionResult === 'done').length + deleted;
  const onPlatform = marked.filter((a) => a.actionResult === 'done' && a.actionOnPlatform === true).length + Number(Item?.deletedOnPlatform ?? 0);
  const rows = rowsOf(job);
  let missing = 0;
  if (rows) for (const row of rows) if (row % Math.max(1, Number(job.shards ?? 1)) === message.shard && row >= message.fromRow && row <= message.toRow && !present.has(row)) missing++;
  const failed = marked.filter((a) => a.actionResult === 'failed').length + Math.max(0, missing - deleted);
  // What the done entries moved (each entry of this job once: the marker's transaction adds it).
  const moves = { deactivated: 0, expired: 0 };
  for (const entry of marked) {
    if (entry.actionResult !== 'done') continue;
    moves.deactivated += Number(entry.movedDeactivated ?? 0);
    moves.expired += Number(entry.movedExpired ?? 0);
  }
  return {
    marker: { accountsDone: done, accountsFailed: failed },
    job: { done, onPlatform, failed },
    failedRows: kept.filter(([, entry]) => entry.actionResult === 'failed').map(([row]) => row),
    also: outcomes.project ? projectCounterMoves(deps.tableName, message.userId, outcomes.project, moves) : [],
  };
}

/** Dead-letter worker: a chunk that failed every delivery leaves its undecided accounts as they were, failed with the reason. */
export const recordDeadActionChunk = (deps: Pick<ActionChunkDeps, 'db' | 'tableName' | 'now' | 'retry' | 'queue'>) =>
  deadChunkRecorder(deps, accountActionJobs, async (job, message) => {
    const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(message.userId, String(job.projectId)), ConsistentRead: true }));
    const { accounts, outcomes } = await loadChunk(deps, job, message, project);
    for (const account of await undecided(deps, job, accounts)) outcomes.failed(account, STOPPED_OURS);
    return chunkTally(deps, job, message, outcomes);
  });

/** An action-start that failed every delivery: the job fails and frees the project. */
export const recordDeadActionStart = (deps: Pick<ActionChunkDeps, 'db' | 'tableName' | 'now'>) => (userId: string, jobId: string) =>
  jobs.failJob(deps, accountActionJobs, userId, jobId, 'The action could not be started. Please try again.');
