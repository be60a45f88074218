import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { emailCounterAttribute, type EmailStatus } from '../../shared/schemas/email-status';
import { PAUSED_CREDENTIALS } from '../../shared/schemas/provisioning';
import { notRemovedFrom } from '../../shared/schemas/project-deletion';
import { isThrottling, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import type { Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { counterUpdates } from '../analytics/counters';
import { chunkRunner, deadChunkRecorder, MAX_REQUEUES, type ChunkEnd, type ChunkTally } from '../account-jobs/chunk-runner';
import type { JobItem } from '../account-jobs/kind';
import * as jobs from '../account-jobs/lifecycle';
import { integrationCredentials, pacedCalls, type PacedAnswer, type PacedDeps, type Pacing } from '../account-jobs/platform-calls';
import { chunkAccountItems, shardsOf } from '../accounts/account-partitions';
import { withStates } from '../accounts/account-states';
import { dynamoErasureStore } from '../account-deletion/erasure-store';
import { globalKeysNamedBy } from '../account-deletion/global-reference';
import type { IntegrationRecord } from '../integrations/integration-record';
import { mapBounded } from '../provisioning/pacing';
import type { DeleteChunkMessage, ProvisioningQueue } from '../provisioning/provisioning-message';
import type { ProvisioningAdapter } from '../provisioning/provisioning-port';
import { PROJECT_STEP, projectDeletions } from './project-deletion';

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
export interface DeletionChunkDeps extends PacedDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  now: () => Date;
  cipher: () => Promise<Cipher>;
  integration: (userId: string, integrationId: string) => Promise<IntegrationRecord | undefined>;
  adapterFor: (integration: IntegrationRecord, credentials: Record<string, string>) => ProvisioningAdapter;
  pacingOf: (integration: IntegrationRecord) => Pacing;
  retry?: RetryPolicy;
}
type Account = Record<string, unknown>;

/** Accounts per erase transaction: two items each (account, username) and four counters, within DynamoDB's 100. */
const ERASE_BATCH = 45;
const STOPPED_OURS = 'Not deleted: the deletion stopped on our side after repeated errors. Delete the project again.';

const undecided = (deps: Pick<DeletionChunkDeps, 'db' | 'tableName'>, job: JobItem, message: DeleteChunkMessage) =>
  chunkAccountItems(deps.db, deps.tableName, { userId: message.userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow }, { filter: 'attribute_not_exists(deletionRun) OR deletionRun <> :run', values: { ':run': message.jobId } });

export const deletionChunk = (deps: DeletionChunkDeps) =>
  chunkRunner(deps, projectDeletions, { run: (job, message) => (message.shard === PROJECT_STEP ? projectStep(deps, job, message) : accountsStep(deps, job, message)) });

async function accountsStep(deps: DeletionChunkDeps, job: JobItem, message: DeleteChunkMessage): Promise<ChunkEnd> {
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(message.userId, String(job.projectId)), ConsistentRead: true }));
  if (!project) {
    await jobs.failJob(deps, projectDeletions, message.userId, message.jobId, 'The project was deleted.');
    return 'stopped';
  }
  const target = { userId: message.userId, projectId: String(job.projectId), shards: shardsOf(project) };
  const accounts = await withStates(deps.db, deps.tableName, target, await undecided(deps, job, message), { consistent: true });
  const platformName = String(job.integrationName ?? 'the platform');
  const onPlatform = job.removeFromPlatform === true ? accounts.filter((a) => a.externalStatus === 'success' && typeof a.externalAccountId === 'string' && a.externalAccountId !== '') : [];
  const erase = accounts.filter((a) => !onPlatform.includes(a));
  const removedThere: Account[] = [];
  let later: number | undefined;
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
      const adapter = deps.adapterFor(integration, credentials);
      try {
        later = await pacedCalls(deps, deps.pacingOf(integration), onPlatform, async (account): Promise<PacedAnswer> => {
          if (refusedCredentials) return {};
          const outcome = await adapter.remove(String(account.externalAccountId));
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
      }
    }
  }
  const stillOurs = await eraseAccounts(deps, job, message, project, [...erase, ...removedThere], new Set(removedThere));
  if (!stillOurs) return { done: await chunkTally(deps, job, message) };
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

/**
 * Erases the accounts (and their username items) in transactions that count them on the chunk's
 * item, the user's and project's counters and the analytics, once each. Answers false when the
 * chunk was recorded done meanwhile (a copy finished it: nothing more to do here).
 */
async function eraseAccounts(deps: DeletionChunkDeps, job: JobItem, message: DeleteChunkMessage, project: Account, accounts: Account[], removedThere: ReadonlySet<Account>): Promise<boolean> {
  const userId = message.userId;
  const platform = accounts.some((a) => a.externalStatus === 'success') && typeof project.integrationId === 'string' ? (await deps.integration(userId, project.integrationId))?.platform : undefined;
  for (let i = 0; i < accounts.length; i += ERASE_BATCH) {
    let batch = accounts.slice(i, i + ERASE_BATCH);
    for (let attempt = 0; batch.length; attempt++) {
      const count = (status: string) => batch.filter((a) => a.externalStatus === status).length;
      const emails = new Map<string, number>();
      for (const a of batch) if (typeof a.emailStatus === 'string' && a.emailStatus in emailCounterAttribute) emails.set(emailCounterAttribute[a.emailStatus as EmailStatus], (emails.get(emailCounterAttribute[a.emailStatus as EmailStatus]) ?? 0) + 1);
      const projectAdds = [['accountCount', batch.length], ['syncedCount', count('success')], ['syncFailedCount', count('failed')], ['syncRemovedCount', count('removed')], ...emails].filter(([, n]) => n !== 0) as [string, number][];
      try {
        await withRetry('Erasing accounts', deps.retry ?? workerRetry, isThrottling, () =>
          deps.db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Update: {
                    TableName: deps.tableName,
                    Key: projectDeletions.chunkKey(userId, message.jobId, message.chunk),
                    UpdateExpression: 'ADD removed :n, removedOnPlatform :there SET entityType = :type, chunk = :chunk',
                    ConditionExpression: 'attribute_not_exists(doneAt)',
                    ExpressionAttributeValues: { ':n': batch.length, ':there': batch.filter((a) => removedThere.has(a)).length, ':type': projectDeletions.chunkEntityType, ':chunk': message.chunk },
                  },
                },
                { Update: { TableName: deps.tableName, Key: keys.user(userId), UpdateExpression: 'ADD accountCount :minus', ExpressionAttributeValues: { ':minus': -batch.length } } },
                {
                  Update: {
                    TableName: deps.tableName,
                    Key: keys.project(userId, String(job.projectId)),
                    UpdateExpression: `ADD ${projectAdds.map((_, n) => `#p${n} :p${n}`).join(', ')}`,
                    ExpressionAttributeNames: Object.fromEntries(projectAdds.map(([name], n) => [`#p${n}`, name])),
                    ExpressionAttributeValues: Object.fromEntries(projectAdds.map(([, by], n) => [`:p${n}`, -by])),
                  },
                },
                ...(platform ? counterUpdates(deps.tableName, userId, '', { synced: { platform, count: -count('success') } }) : []),
                ...batch.flatMap((a) => [
                  { Delete: { TableName: deps.tableName, Key: { PK: a.PK, SK: a.SK }, ConditionExpression: 'attribute_exists(PK)' } },
                  { Delete: { TableName: deps.tableName, Key: keys.username(userId, String(a.username)) } },
                ]),
              ],
            }),
          ),
        );
        batch = [];
      } catch (error) {
        if (!(error instanceof TransactionCanceledException) || attempt >= 3) throw error;
        if (error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
        // An account erased by another delivery in between: the rest again, those counted once.
        const left = await Promise.all(batch.map(async (a) => ((await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: { PK: a.PK, SK: a.SK }, ConsistentRead: true }))).Item ? a : undefined)));
        batch = left.filter((a): a is Account => a !== undefined);
      }
    }
  }
  return true;
}

/** What the chunk did, from its item's counts (written with each erase) and the accounts it kept. */
async function chunkTally(deps: Pick<DeletionChunkDeps, 'db' | 'tableName'>, job: JobItem, message: DeleteChunkMessage): Promise<ChunkTally> {
  const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: projectDeletions.chunkKey(message.userId, message.jobId, message.chunk), ConsistentRead: true }));
  const kept =
    message.shard === PROJECT_STEP
      ? 0
      : (await chunkAccountItems(deps.db, deps.tableName, { userId: message.userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow }, { filter: 'deletionRun = :run', projection: 'SK', values: { ':run': message.jobId } })).length;
  const counts = { removed: Number(Item?.removed ?? 0), removedOnPlatform: Number(Item?.removedOnPlatform ?? 0), kept };
  return { marker: counts, job: counts };
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
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({ TableName: deps.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :issue)', FilterExpression: 'projectId = :project', ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':issue': 'CREDLINKISSUE#', ':project': projectId }, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    for (const issue of page.Items ?? []) {
      if (typeof issue.accountPK === 'string' && (await store.item({ PK: issue.accountPK, SK: String(issue.accountSK) }))) continue;
      const links = globalKeysNamedBy(issue);
      await store.deleteKeys([...links, ...links.map((link) => keys.globalReference(userId, link)), { PK: String(issue.PK), SK: String(issue.SK) }]);
    }
    start = page.LastEvaluatedKey;
  } while (start);
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
      ],
    },
  };
}

/** Dead-letter worker: a chunk that failed every delivery keeps its undecided accounts, with the reason, so the job ends and adds up. */
export const recordDeadDeletionChunk = (deps: Pick<DeletionChunkDeps, 'db' | 'tableName' | 'now' | 'retry' | 'queue'>) =>
  deadChunkRecorder(deps, projectDeletions, async (job, message) => {
    if (message.shard !== PROJECT_STEP) await keepAll(deps, job, await undecided(deps, job, message), STOPPED_OURS);
    return chunkTally(deps, job, message);
  });

/** A delete-start that failed every delivery: the job fails and frees the project. */
export const recordDeadDeletionStart = (deps: Pick<DeletionChunkDeps, 'db' | 'tableName' | 'now'>) => (userId: string, jobId: string) =>
  jobs.failJob(deps, projectDeletions, userId, jobId, 'The deletion could not be started. Please try again.');
