import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { emailCounterAttribute, type EmailStatus } from '../../shared/schemas/email-status';
import { PAUSED_CREDENTIALS } from '../../shared/schemas/provisioning';
import { notRemovedFrom } from '../../shared/schemas/project-deletion';
import { isThrottling, withRetry, workerRetry } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { queryPages } from '../core/query-pages';
import { counterUpdates } from '../analytics/counters';
import { chunkRunner, deadChunkRecorder, MAX_REQUEUES, type ChunkEnd, type ChunkTally } from '../account-jobs/chunk-runner';
import type { JobItem } from '../account-jobs/kind';
import { leaseItem } from '../account-jobs/lease';
import * as jobs from '../account-jobs/lifecycle';
import { takeIntegrationTurn, TURN_RETRY_SECONDS } from '../account-jobs/integration-turn';
import { integrationCredentials, pacedCalls, type PacedAnswer, type PlatformChunkDeps } from '../account-jobs/platform-calls';
import { chunkAccountItems, shardsOf } from '../accounts/account-partitions';
import { withStates } from '../accounts/account-states';
import { dynamoErasureStore } from '../account-deletion/erasure-store';
import { globalKeysNamedBy } from '../account-deletion/global-reference';
import { mapBounded } from '../provisioning/pacing';
import type { DeleteChunkMessage } from '../provisioning/provisioning-message';
import { PROJECT_STEP, projectDeletions } from './project-deletion';
import { groupLeaver, leavesGroupsOnDelete } from '../account-actions/leave-groups';

/**
 * One chunk of a project's deletion (project-deletion.ts). An account chunk: each account not yet
 * decided by this job is removed from its platform first when the user asked and it is there
 * (Synced, its id there in the PROV state blocks), paced like provisioning (429s waited out, 5xx
 * retried, refused credentials pause the job); then erased here with its username item, in
 * transactions that also count it (the chunk's `removed`, the user's and the project's counters,
 * the analytics' synced accounts), once: a redelivery finds it gone and counts nothing. An account
 * the platform refused stays, marked with the job and the platform's words (`kept`). The project
 * step (the last chunk) waits for the others, kills the one-time links of the erased accounts and,
 * when none was kept, erases the project's partitions, then its item with the user's project count.
 */
export type DeletionChunkDeps = PlatformChunkDeps;
type Account = Record<string, unknown>;

const STOPPED_OURS = 'Not deleted: the deletion stopped on our side after repeated errors. Delete the project again.';

/**
 * What a chunk reads of an account: its keys and username (to erase them), what it counts on the
 * project (its provisioning and e-mail statuses, overlaid by the PROV and MAIL state blocks) and
 * its id there. Not the whole item (its names, e-mail, password and search keys, ~1 KB): the
 * worker would parse and hold five times as much for nothing.
 */
const ACCOUNT_FIELDS = {
  projection: 'PK, SK, #row, id, username, externalStatus, externalAccountId, emailStatus, emailEventMessageId, emailEventStatus, emailEventAt, emailEventError',
  names: { '#row': 'row' },
};
/** The state channels a deletion reads: the platform's (what to remove there) and the e-mail's (what the project counts). */
const CHANNELS = ['PROV', 'MAIL'] as const;

const undecided = (deps: Pick<DeletionChunkDeps, 'db' | 'tableName'>, job: JobItem, message: DeleteChunkMessage) =>
  chunkAccountItems(
    deps.db,
    deps.tableName,
    { userId: message.userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow },
    { ...ACCOUNT_FIELDS, filter: 'attribute_not_exists(deletionRun) OR deletionRun <> :run', values: { ':run': message.jobId } },
  );

export const deletionChunk = (deps: DeletionChunkDeps) =>
  chunkRunner(deps, projectDeletions, { run: (job, message) => (message.shard === PROJECT_STEP ? projectStep(deps, job, message) : accountsStep(deps, job, message)) }, leaseItem(projectDeletions));

async function accountsStep(deps: DeletionChunkDeps, job: JobItem, message: DeleteChunkMessage): Promise<ChunkEnd> {
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(message.userId, String(job.projectId)), ConsistentRead: true }));
  if (!project) {
    await jobs.failJob(deps, projectDeletions, message.userId, message.jobId, 'The project was deleted.');
    return 'stopped';
  }
  const target = { userId: message.userId, projectId: String(job.projectId), shards: shardsOf(project) };
  const accounts = await withStates(deps.db, deps.tableName, target, await undecided(deps, job, message), { consistent: true, channels: CHANNELS });
  await recordStart(deps, job, message, project, accounts);
  const platformName = String(job.integrationName ?? 'the platform');
  const onPlatform = job.removeFromPlatform === true ? accounts.filter(isOnPlatform) : [];
  const erase = accounts.filter((a) => !onPlatform.includes(a));
  const removedThere: Account[] = [];
  let later: number | undefined;
  let turnHeld = false;
  let refusedCredentials = false;
  if (onPlatform.length && (message.requeues ?? 0) > MAX_REQUEUES) {
    await keepAll(deps, job, onPlatform, notRemovedFrom(platformName, 'it kept asking us to wait (HTTP 429) for too long. Delete the project again later.'));
  } else if (onPlatform.length) {
    const integration = await deps.integration(message.userId, String(job.integrationId ?? project.integrationId));
    const credentials = integration && (await integrationCredentials(deps.cipher, message.userId, integration));
    if (!integration || !credentials) {
      const words = integration ? "the integration's credentials cannot be read. Enter them again in the integration, then delete again." : 'the integration was deleted. Delete the project again without removing the accounts from the platform.';
      await keepAll(deps, job, onPlatform, notRemovedFrom(platformName, words));
    } else {
      const turn = await takeIntegrationTurn(deps, { userId: message.userId, jobId: message.jobId, integrationId: integration.id }, deps.pacingOf(integration));
      if (turn) {
        const adapter = deps.adapterFor(integration, credentials);
        // Out of the project's groups first where the platform keeps the memberships of a deleted user (as an account's Delete).
        const groups = Array.isArray(project.groups) ? project.groups.map(String) : [];
        const leaveGroups = groups.length && leavesGroupsOnDelete(integration) ? groupLeaver(adapter.groups, groups, platformName) : undefined;
        try {
          later = await pacedCalls(deps, turn, onPlatform, async (account): Promise<PacedAnswer> => {
            if (refusedCredentials) return {};
            const externalId = String(account.externalAccountId);
            const outcome = (await leaveGroups?.(externalId)) ?? (await adapter.remove(externalId));
            if (outcome.kind === 'done') removedThere.push(account);
            else if (outcome.authRefused) refusedCredentials = true;
            else {
              const keep = async () => void (await keepAll(deps, job, [account], notRemovedFrom(platformName, outcome.message)));
              if (outcome.retryable) return { retry: outcome.rateLimited ? 'rate' : 'server', retryAfterMs: outcome.retryAfterMs, exhausted: keep };
              await keep();
            }
            return {};
          });
        } finally {
          adapter.close();
          await turn.give();
        }
      } else turnHeld = true;
    }
  }
  await eraseAccounts(deps, message.userId, [...erase, ...removedThere]);
  // The integration's turn is another delivery's: the accounts on the platform are taken by a delivery shortly.
  if (turnHeld) return { wait: TURN_RETRY_SECONDS };
  if (refusedCredentials) {
    await jobs.pauseJob(deps, projectDeletions, message.userId, message.jobId, PAUSED_CREDENTIALS.replace('provisioning resumes', 'the deletion goes on'));
    return 'stopped';
  }
  if (later !== undefined) return { later };
  return { done: await chunkTally(deps, job, message) };
}

/** Accounts the platform refused: they stay, marked with the job and its words (counted as kept). */
const keepAll = (deps: Pick<DeletionChunkDeps, 'db' | 'tableName' | 'now' | 'retry'>, job: JobItem, accounts: Account[], words: string) =>
  mapBounded(accounts, 16, async (account) => {
    try {
      await withRetry('Keeping an account', deps.retry ?? workerRetry, isThrottling, () =>
        deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: { PK: account.PK, SK: account.SK },
            UpdateExpression: 'SET deletionRun = :run, deletionError = :words, deletionAt = :at',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':run': job.id, ':words': words, ':at': deps.now().toISOString() },
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  });

const isOnPlatform = (a: Account) => a.externalStatus === 'success' && typeof a.externalAccountId === 'string' && a.externalAccountId !== '';
/** What an account takes off the project's counters when it goes (its provisioning and e-mail statuses). */
const countersOf = (account: Account): string[] => [
  ...({ success: ['syncedCount'], failed: ['syncFailedCount'], removed: ['syncRemovedCount'] }[String(account.externalStatus)] ?? []),
  ...(typeof account.emailStatus === 'string' && account.emailStatus in emailCounterAttribute ? [emailCounterAttribute[account.emailStatus as EmailStatus]] : []),
];
const tallyOf = (accounts: Account[], onPlatform: boolean) => {
  const counts: Record<string, number> = { accounts: accounts.length, onPlatform: onPlatform ? accounts.filter(isOnPlatform).length : 0 };
  for (const name of accounts.flatMap(countersOf)) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
};

/**
 * Before its first erase, a chunk records what it starts from, once (a conditional put: a later
 * delivery, which finds fewer accounts, keeps the first): its accounts, those on the platform, and
 * what they count on the project. What the chunk erased is that minus what it kept (chunkTally):
 * the erasure itself needs no counting, so it is a plain BatchWriteItem.
 */
async function recordStart(deps: Pick<DeletionChunkDeps, 'db' | 'tableName' | 'integration'>, job: JobItem, message: DeleteChunkMessage, project: Account | undefined, accounts: Account[]): Promise<void> {
  const platform = project && accounts.some(isOnPlatform) && typeof project.integrationId === 'string' ? (await deps.integration(message.userId, project.integrationId))?.platform : undefined;
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: { ...keys.projectDeletionChunkStart(message.userId, message.jobId, message.chunk), entityType: 'ProjectDeletionChunkStart', counts: tallyOf(accounts, job.removeFromPlatform === true), ...(platform ? { platform } : {}) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Erases the accounts and their username items (BatchWriteItem, 25 keys a request, 8 in flight): deleting again what is gone does nothing. */
async function eraseAccounts(deps: Pick<DeletionChunkDeps, 'db' | 'tableName'>, userId: string, accounts: Account[]): Promise<void> {
  const store = dynamoErasureStore(deps.db, deps.tableName);
  const itemKeys = accounts.flatMap((a) => [{ PK: String(a.PK), SK: String(a.SK) }, keys.username(userId, String(a.username))]);
  const groups: { PK: string; SK: string }[][] = [];
  for (let i = 0; i < itemKeys.length; i += 25) groups.push(itemKeys.slice(i, i + 25));
  await mapBounded(groups, 8, (group) => store.deleteKeys(group));
}

/**
 * What the chunk did: what it started from minus the accounts it kept (read back with their
 * states); with it (once, in the transaction of the done marker) the user's accounts, the
 * project's counters and the analytics' synced accounts go down by what was erased.
 */
async function chunkTally(deps: Pick<DeletionChunkDeps, 'db' | 'tableName'>, job: JobItem, message: DeleteChunkMessage): Promise<ChunkTally> {
  const userId = message.userId;
  const empty = { removed: 0, removedOnPlatform: 0, kept: 0 };
  if (message.shard === PROJECT_STEP) return { marker: empty, job: empty };
  const { Item: start } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.projectDeletionChunkStart(userId, message.jobId, message.chunk), ConsistentRead: true }));
  const range = { userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow };
  const keptItems = await chunkAccountItems(deps.db, deps.tableName, range, { ...ACCOUNT_FIELDS, filter: 'deletionRun = :run', values: { ':run': message.jobId } });
  const kept = tallyOf(keptItems.length ? await withStates(deps.db, deps.tableName, { userId, projectId: String(job.projectId), shards: Number(job.shards ?? 1) }, keptItems, { consistent: true, channels: CHANNELS }) : [], job.removeFromPlatform === true);
  const before = (start?.counts ?? {}) as Record<string, number>;
  const gone = (name: string) => Math.max(0, Number(before[name] ?? 0) - Number(kept[name] ?? 0));
  const counts = { removed: gone('accounts'), removedOnPlatform: gone('onPlatform'), kept: keptItems.length };
  if (counts.removed === 0) return { marker: counts, job: counts };
  const projectAdds = [['accountCount', counts.removed], ...Object.keys(before).filter((name) => name !== 'accounts' && name !== 'onPlatform').map((name) => [name, gone(name)])].filter(([, n]) => n !== 0) as [string, number][];
  const platform = typeof start?.platform === 'string' ? start.platform : undefined;
  return {
    marker: counts,
    job: counts,
    also: [
      { Update: { TableName: deps.tableName, Key: keys.user(userId), UpdateExpression: 'ADD accountCount :minus', ExpressionAttributeValues: { ':minus': -counts.removed } } },
      {
        Update: {
          TableName: deps.tableName,
          Key: keys.project(userId, String(job.projectId)),
          UpdateExpression: `ADD ${projectAdds.map((_, n) => `#p${n} :p${n}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(projectAdds.map(([name], n) => [`#p${n}`, name])),
          ExpressionAttributeValues: Object.fromEntries(projectAdds.map(([, by], n) => [`:p${n}`, -by])),
        },
      },
      ...(platform && gone('syncedCount') ? counterUpdates(deps.tableName, userId, '', { synced: { platform, count: -gone('syncedCount') } }) : []),
    ],
  };
}

/**
 * The last chunk: once every account chunk is done, the one-time links of the erased accounts
 * die; with no account kept, the project's partitions go, then (with the chunk's done marker,
 * once) its item and the user's project count: the plan frees its place at once.
 */
async function projectStep(deps: DeletionChunkDeps, job: JobItem, message: DeleteChunkMessage): Promise<ChunkEnd> {
  const userId = message.userId;
  const projectId = String(job.projectId);
  const latest = await jobs.readJob(deps, projectDeletions, userId, message.jobId);
  if (!latest || Number(latest.chunksDone ?? 0) < Number(latest.chunks ?? 0) - 1) return { later: 3000 };
  const store = dynamoErasureStore(deps.db, deps.tableName);
  const issues = { TableName: deps.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :issue)', FilterExpression: 'projectId = :project', ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':issue': 'CREDLINKISSUE#', ':project': projectId }, ConsistentRead: true };
  for await (const page of queryPages(deps.db, issues)) {
    for (const issue of page.Items ?? []) {
      if (typeof issue.accountPK === 'string' && (await store.item({ PK: issue.accountPK, SK: String(issue.accountSK) }))) continue;
      const links = globalKeysNamedBy(issue);
      await store.deleteKeys([...links, ...links.map((link) => keys.globalReference(userId, link)), { PK: String(issue.PK), SK: String(issue.SK) }]);
    }
  }
  const tally = await chunkTally(deps, job, message);
  if (Number(latest.kept ?? 0) > 0) return { done: tally };
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
  if (!project) return { done: tally };
  for (const pk of keys.projectPartitions(userId, projectId, shardsOf(project))) await store.deletePartition(pk);
  // Its bulk job (keyed by the project's id) and that job's chunks.
  const bulkJob = keys.bulkJob(userId, projectId);
  const { Items: bulkItems } = await deps.db.send(
    new QueryCommand({ TableName: deps.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :job)', ProjectionExpression: 'PK, SK', ExpressionAttributeValues: { ':pk': bulkJob.PK, ':job': bulkJob.SK }, ConsistentRead: true }),
  );
  // The dashboard's activity entries about it ("Project ... created": their ids are the project's).
  const { Items: activity } = await deps.db.send(
    new QueryCommand({ TableName: deps.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :activity)', ProjectionExpression: 'PK, SK', ExpressionAttributeValues: { ':pk': bulkJob.PK, ':activity': 'ACTIVITY#' }, ConsistentRead: true }),
  );
  await store.deleteKeys([...(bulkItems ?? []), ...(activity ?? []).filter((item) => String(item.SK).includes(projectId))].map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
  return {
    done: {
      marker: { ...tally.marker, projectDeleted: true },
      job: { ...tally.job, projectsDeleted: 1 },
      also: [
        { Delete: { TableName: deps.tableName, Key: keys.project(userId, projectId) } },
        { Update: { TableName: deps.tableName, Key: keys.user(userId), UpdateExpression: 'ADD projectCount :minus', ExpressionAttributeValues: { ':minus': -1 } } },
        ...leavesActive(deps.tableName, userId, project),
      ],
    },
  };
}

/**
 * The analytics: a deleted project that was active stops counting as active as a completed one
 * does (functions/projects/project-changes.ts counterMoves): out of its expiration date's item,
 * into `completedProjects`. Projects from before the counters (no statsCounted) were never in them.
 */
function leavesActive(tableName: string, userId: string, project: Record<string, unknown>) {
  if (project.statsCounted !== true || project.status === 'completed') return [];
  const add = (key: { PK: string; SK: string }, name: string, by: number) => ({ Update: { TableName: tableName, Key: key, UpdateExpression: 'ADD #n :by', ExpressionAttributeNames: { '#n': name }, ExpressionAttributeValues: { ':by': by } } });
  return [add(keys.statsTotal(userId), 'completedProjects', 1), ...(typeof project.expirationDate === 'string' ? [add(keys.statsExpiry(userId, project.expirationDate), 'projects', -1)] : [])];
}

/** Dead-letter worker: a chunk that failed every delivery keeps its undecided accounts, with the reason, so the job ends and adds up. */
export const recordDeadDeletionChunk = (deps: Pick<DeletionChunkDeps, 'db' | 'tableName' | 'now' | 'retry' | 'queue'>) =>
  deadChunkRecorder(deps, projectDeletions, async (job, message) => {
    if (message.shard !== PROJECT_STEP) {
      const accounts = await undecided(deps, job, message);
      // A chunk that never started records what it starts from first (its accounts' states for the project's counters).
      await recordStart({ ...deps, integration: async () => undefined }, job, message, undefined, await withStates(deps.db, deps.tableName, { userId: message.userId, projectId: String(job.projectId), shards: Number(job.shards ?? 1) }, accounts, { consistent: true, channels: CHANNELS }));
      await keepAll(deps, job, accounts, STOPPED_OURS);
    }
    return chunkTally(deps, job, message);
  });

/** A delete-start that failed every delivery: the job fails and frees the project. */
export const recordDeadDeletionStart = (deps: Pick<DeletionChunkDeps, 'db' | 'tableName' | 'now'>) => (userId: string, jobId: string) =>
  jobs.failJob(deps, projectDeletions, userId, jobId, 'The deletion could not be started. Please try again.');
