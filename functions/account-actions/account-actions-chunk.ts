import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { emailCounterAttribute, type EmailStatus } from '../../shared/schemas/email-status';
import type { AccountAction } from '../../shared/schemas/account-actions';
import { isThrottling, withRetry, workerRetry } from '../core/dynamo-retry';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { counterUpdates } from '../analytics/counters';
import { chunkRunner, deadChunkRecorder, MAX_REQUEUES, type ChunkEnd, type ChunkTally } from '../account-jobs/chunk-runner';
import type { JobItem } from '../account-jobs/kind';
import { leaseItem } from '../account-jobs/lease';
import * as jobs from '../account-jobs/lifecycle';
import { integrationCredentials, pacedCalls, type PacedAnswer, type PlatformChunkDeps } from '../account-jobs/platform-calls';
import { rowsOf, selectedAccounts } from '../account-jobs/selection';
import { chunkAccountItems, shardsOf } from '../accounts/account-partitions';
import { rowOf, withStates } from '../accounts/account-states';
import { eraseAccountTraces } from '../accounts/erase-account-traces';
import { blockHolding } from '../accounts/username-claims';
import { mapBounded } from '../provisioning/pacing';
import type { ActionChunkMessage } from '../provisioning/provisioning-message';
import { accountActionJobs } from './account-actions';

/**
 * One chunk of an account action (account-actions.ts). Each selected account of the chunk this
 * job has not decided yet: on its platform first when it is there (Synced, its id there in the
 * PROV state blocks) and the job has the integration (Pro at the start), paced as provisioning
 * (429s waited out, 5xx retried); then here, in one conditional write marked with the job
 * (`actionRun`), so a redelivery never does it twice: deactivate / reactivate set `isActive`
 * with a history entry; delete erases the account item (its search keys are on it) and its
 * username (free for reuse) and moves the user's, project's and analytics' counters down, in one
 * transaction that also counts it on the chunk's item. An account the platform refused stays as
 * it was, marked failed with the platform's words (`actionError`): running the action again retries it.
 */
export type ActionChunkDeps = PlatformChunkDeps;
type Account = Record<string, unknown>;
type Deps = Pick<ActionChunkDeps, 'db' | 'tableName' | 'now' | 'retry'>;

const STOPPED_OURS = 'Not changed: the action stopped on our side after repeated errors. Run it again.';
const NOT_DECIDED = 'attribute_exists(PK) AND (attribute_not_exists(actionRun) OR actionRun <> :run)';

const undecided = async (deps: Pick<ActionChunkDeps, 'db' | 'tableName'>, job: JobItem, message: ActionChunkMessage) =>
  selectedAccounts(deps, job, await chunkAccountItems(deps.db, deps.tableName, { userId: message.userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow }, { filter: 'attribute_not_exists(actionRun) OR actionRun <> :run', values: { ':run': message.jobId } }));

/** What an update sends: the account's names and e-mail, and its username when it was regenerated since the platform last had it. */
const changesOf = (a: Account) => {
  const fields = (a.platformChange as { fields?: unknown } | undefined)?.fields;
  return { firstName: String(a.firstName), lastName: String(a.lastName), email: String(a.email), ...(Array.isArray(fields) && fields.includes('username') ? { username: String(a.username) } : {}) };
};

const onPlatformOf = (a: Account) => a.externalStatus === 'success' && typeof a.externalAccountId === 'string' && a.externalAccountId !== '';
const cancelledOnFirst = (error: unknown) => error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';

export const accountActionChunk = (deps: ActionChunkDeps) => chunkRunner(deps, accountActionJobs, { run: (job, message) => actLeased(deps, job, message) }, leaseItem(accountActionJobs));

async function actLeased(deps: ActionChunkDeps, job: JobItem, message: ActionChunkMessage): Promise<ChunkEnd> {
  const { userId, jobId } = message;
  const action = job.action as AccountAction;
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, String(job.projectId)), ConsistentRead: true }));
  if (!project) {
    await jobs.failJob(deps, accountActionJobs, userId, jobId, 'The project was deleted.');
    return 'stopped';
  }
  const accounts = await withStates(deps.db, deps.tableName, { userId, projectId: String(job.projectId), shards: shardsOf(project) }, await undecided(deps, job, message), { consistent: true });
  const integration = typeof job.integrationId === 'string' ? await deps.integration(userId, job.integrationId) : undefined;
  const onPlatform = typeof job.integrationId === 'string' ? accounts.filter(onPlatformOf) : [];
  await mapBounded(
    accounts.filter((a) => !onPlatform.includes(a)),
    8,
    (a) => applyHere(deps, job, message, a, integration?.platform),
  );
  if (!onPlatform.length) return { done: await chunkTally(deps, job, message) };
  const platformName = String(job.integrationName ?? integration?.name ?? 'the platform');
  const failAll = (words: string) => mapBounded(onPlatform, 8, (a) => recordFailed(deps, job, a, words));
  if ((message.requeues ?? 0) > MAX_REQUEUES) {
    await failAll(`Sync Failed: ${platformName} kept asking us to wait (HTTP 429) for too long. Run the action again later.`);
    return { done: await chunkTally(deps, job, message) };
  }
  const credentials = integration && (await integrationCredentials(deps.cipher, userId, integration));
  if (!integration || !credentials) {
    await failAll(integration ? "Sync Failed: the integration's credentials cannot be read. Enter them again in the integration, then run the action again." : `Sync Failed: the integration these accounts were provisioned to was deleted, so ${platformName} could not be changed.`);
    return { done: await chunkTally(deps, job, message) };
  }
  const adapter = deps.adapterFor(integration, credentials);
  let refused: string | undefined;
  let later: number | undefined;
  // Each answer's write here runs beside the next calls (not in the call's slot): the platform's pace sets the job's.
  const writes: Promise<void>[] = [];
  let writeFailure: unknown;
  const record = (write: Promise<void>) =>
    void writes.push(
      write.catch((error: unknown) => {
        writeFailure ??= error;
      }),
    );
  try {
    later = await pacedCalls(deps, deps.pacingOf(integration), onPlatform, async (account): Promise<PacedAnswer> => {
      if (refused) {
        record(recordFailed(deps, job, account, refused));
        return {};
      }
      const externalId = String(account.externalAccountId);
      const outcome =
        action === 'delete' ? await adapter.remove(externalId) : action === 'update' ? await adapter.update(externalId, changesOf(account)) : await adapter.setActive(externalId, action === 'reactivate');
      if (outcome.kind === 'conflict') record(recordFailed(deps, job, account, `Sync Failed: ${outcome.message}`));
      else if (outcome.kind === 'done') record(applyHere(deps, job, message, account, integration.platform, outcome.detail, 'externalId' in outcome ? outcome.externalId : undefined));
      else if (outcome.kind === 'gone') record(recordFailed(deps, job, account, `Sync Failed: ${outcome.detail}`));
      else {
        const fail = () => recordFailed(deps, job, account, `Sync Failed: ${outcome.message}`);
        if (outcome.authRefused) {
          // The rest of the chunk is not tried with credentials the platform refuses.
          refused = `Sync Failed: ${platformName} refused our credentials (${outcome.message}). Edit the integration and test it, then run the action again.`;
          record(recordFailed(deps, job, account, refused));
        } else if (outcome.retryable) return { retry: outcome.rateLimited ? 'rate' : 'server', retryAfterMs: outcome.retryAfterMs, exhausted: fail };
        else record(fail());
      }
      return {};
    });
  } finally {
    adapter.close();
    // Every answer written before the chunk is counted (or left to a later delivery); a write that failed fails the delivery.
    await Promise.all(writes);
  }
  if (writeFailure !== undefined) throw writeFailure;
  if (later !== undefined) return { later };
  return { done: await chunkTally(deps, job, message) };
}

/** An account the platform refused (or that we could not reach): left as it was, marked with the job and the words. Once. */
async function recordFailed(deps: Deps, job: JobItem, account: Account, words: string): Promise<void> {
  try {
    await withRetry('Recording an account action', deps.retry ?? workerRetry, isThrottling, () =>
      deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: { PK: account.PK, SK: account.SK },
          UpdateExpression: 'SET actionRun = :run, actionResult = :failed, actionError = :words, actionAt = :at REMOVE actionDetail',
          ConditionExpression: NOT_DECIDED,
          ExpressionAttributeValues: { ':run': job.id, ':failed': 'failed', ':words': words.slice(0, 500), ':at': deps.now().toISOString() },
        }),
      ),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** The action here, once the platform (if any) did it: `detail` is the platform's words. */
async function applyHere(deps: Deps, job: JobItem, message: ActionChunkMessage, account: Account, platform: string | undefined, detail?: string, externalId?: string): Promise<void> {
  const at = deps.now();
  const atIso = at.toISOString();
  const userId = message.userId;
  const there = detail !== undefined;
  let items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;
  if (job.action === 'update') {
    // The platform has the account's values now (or it is not on one): the "not yet updated" mark goes.
    items = [
      {
        Update: {
          TableName: deps.tableName,
          Key: { PK: account.PK, SK: account.SK },
          UpdateExpression: `SET actionRun = :run, actionResult = :done, actionAt = :at, actionOnPlatform = :there${there ? ', actionDetail = :detail' : ''}${externalId ? ', externalAccountId = :external' : ''} REMOVE actionError, platformChange${there ? '' : ', actionDetail'}`,
          ConditionExpression: NOT_DECIDED,
          ExpressionAttributeValues: { ':run': job.id, ':done': 'done', ':at': atIso, ':there': there, ...(there ? { ':detail': detail.slice(0, 500) } : {}), ...(externalId ? { ':external': externalId } : {}) },
        },
      },
      ...(there
        ? [
            {
              Put: {
                TableName: deps.tableName,
                Item: { ...keys.accountHistory(userId, String(job.projectId), rowOf(account), atIso, timeOrderedId(at)), entityType: 'AccountHistory', userId, projectId: job.projectId, accountId: account.id, kind: 'updated_on_platform', at: atIso, detail },
              },
            },
          ]
        : []),
    ];
  } else if (job.action !== 'delete') {
    const active = job.action === 'reactivate';
    // A project's expiry (origin 'expiry') marks the account expired; any other (de)activation clears the mark.
    const expiry = !active && job.origin === 'expiry';
    items = [
      {
        Update: {
          TableName: deps.tableName,
          Key: { PK: account.PK, SK: account.SK },
          UpdateExpression: `SET isActive = :active, actionRun = :run, actionResult = :done, actionAt = :at, actionOnPlatform = :there${there ? ', actionDetail = :detail' : ''}${expiry ? ', expiredAt = :at' : ''} REMOVE actionError${there ? '' : ', actionDetail'}${expiry ? '' : ', expiredAt'}`,
          ConditionExpression: NOT_DECIDED,
          ExpressionAttributeValues: { ':active': active, ':run': job.id, ':done': 'done', ':at': atIso, ':there': there, ...(there ? { ':detail': detail.slice(0, 500) } : {}) },
        },
      },
      {
        Put: {
          TableName: deps.tableName,
          Item: {
            ...keys.accountHistory(userId, String(job.projectId), rowOf(account), atIso, timeOrderedId(at)),
            entityType: 'AccountHistory',
            userId,
            projectId: job.projectId,
            accountId: account.id,
            kind: active ? 'reactivated' : expiry ? 'expired' : 'deactivated',
            at: atIso,
            ...(there ? { detail } : {}),
          },
        },
      },
    ];
  } else {
    await eraseAccountTraces(deps, userId, String(job.projectId), account);
    const status = account.externalStatus;
    const email = typeof account.emailStatus === 'string' && account.emailStatus in emailCounterAttribute ? emailCounterAttribute[account.emailStatus as EmailStatus] : undefined;
    const projectAdds = [['accountCount', 1], ...(status === 'success' ? [['syncedCount', 1]] : status === 'failed' ? [['syncFailedCount', 1]] : status === 'removed' ? [['syncRemovedCount', 1]] : []), ...(email ? [[email, 1]] : [])] as [string, number][];
    items = [
      {
        Update: {
          TableName: deps.tableName,
          Key: accountActionJobs.chunkKey(userId, message.jobId, message.chunk),
          UpdateExpression: 'ADD deleted :one, deletedOnPlatform :there SET entityType = :type, chunk = :chunk',
          ConditionExpression: 'attribute_not_exists(doneAt)',
          ExpressionAttributeValues: { ':one': 1, ':there': there ? 1 : 0, ':type': accountActionJobs.chunkEntityType, ':chunk': message.chunk },
        },
      },
      { Delete: { TableName: deps.tableName, Key: { PK: account.PK, SK: account.SK }, ConditionExpression: NOT_DECIDED, ExpressionAttributeValues: { ':run': job.id } } },
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
    ];
  }
  try {
    await withRetry('Applying an account action', deps.retry ?? workerRetry, isThrottling, () => deps.db.send(new TransactWriteCommand({ TransactItems: items })));
  } catch (error) {
    // Done by another delivery (or the chunk recorded done meanwhile): nothing more to do.
    if (cancelledOnFirst(error) || (error instanceof TransactionCanceledException && error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed')) return;
    throw error;
  }
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

/**
 * What the chunk did: its accounts marked with the job (done, failed), those it erased (counted on
 * its item), and selected rows with no account (a long list is not checked at the start): failed.
 */
async function chunkTally(deps: Pick<ActionChunkDeps, 'db' | 'tableName'>, job: JobItem, message: ActionChunkMessage): Promise<ChunkTally> {
  const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: accountActionJobs.chunkKey(message.userId, message.jobId, message.chunk), ConsistentRead: true }));
  const items = await chunkAccountItems(deps.db, deps.tableName, { userId: message.userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow }, { projection: 'SK, actionRun, actionResult, actionOnPlatform' });
  const marked = items.filter((a) => a.actionRun === message.jobId);
  const deleted = Number(Item?.deleted ?? 0);
  const done = marked.filter((a) => a.actionResult === 'done').length + deleted;
  const onPlatform = marked.filter((a) => a.actionResult === 'done' && a.actionOnPlatform === true).length + Number(Item?.deletedOnPlatform ?? 0);
  const rows = rowsOf(job);
  const present = new Set(items.map(rowOf));
  let missing = 0;
  if (rows) for (const row of rows) if (row % Math.max(1, Number(job.shards ?? 1)) === message.shard && row >= message.fromRow && row <= message.toRow && !present.has(row)) missing++;
  const failed = marked.filter((a) => a.actionResult === 'failed').length + Math.max(0, missing - deleted);
  return { marker: { accountsDone: done, accountsFailed: failed }, job: { done, onPlatform, failed }, failedRows: marked.filter((a) => a.actionResult === 'failed').map(rowOf) };
}

/** Dead-letter worker: a chunk that failed every delivery leaves its undecided accounts as they were, failed with the reason. */
export const recordDeadActionChunk = (deps: Pick<ActionChunkDeps, 'db' | 'tableName' | 'now' | 'retry' | 'queue'>) =>
  deadChunkRecorder(deps, accountActionJobs, async (job, message) => {
    await mapBounded(await undecided(deps, job, message), 8, (a) => recordFailed(deps, job, a, STOPPED_OURS));
    return chunkTally(deps, job, message);
  });

/** An action-start that failed every delivery: the job fails and frees the project. */
export const recordDeadActionStart = (deps: Pick<ActionChunkDeps, 'db' | 'tableName' | 'now'>) => (userId: string, jobId: string) =>
  jobs.failJob(deps, accountActionJobs, userId, jobId, 'The action could not be started. Please try again.');
