import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createPasswordGenerator, type RandomBytes } from '../../shared/generation/password';
import { defaultPasswordSettings, passwordSettingsSchema } from '../../shared/schemas/bulk';
import type { AccountResetResult } from '../../shared/schemas/reset-passwords';
import { isThrottling, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { secretContext, type Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { chunkRunner, deadChunkRecorder, MAX_REQUEUES, type ChunkEnd, type ChunkTally } from '../account-jobs/chunk-runner';
import { leaseItem } from '../account-jobs/lease';
import { selectedAccounts } from '../account-jobs/selection';
import { chunkAccountItems, shardsOf } from '../accounts/account-partitions';
import { rowOf, withStates } from '../accounts/account-states';
import type { IntegrationRecord } from '../integrations/integration-record';
import { mapBounded } from '../provisioning/pacing';
import { takeIntegrationTurn, TURN_RETRY_SECONDS } from '../account-jobs/integration-turn';
import { integrationCredentials, pacedCalls, type PacedAnswer, type PacedDeps, type Pacing } from '../account-jobs/platform-calls';
import type { ProvisioningQueue, ResetChunkMessage } from '../provisioning/provisioning-message';
import type { AccountPolicy, ProvisioningAdapter, SetPasswordOutcome } from '../provisioning/provisioning-port';
import { failReset, passwordResets } from './reset-passwords';

/**
 * One chunk of a Reset Passwords job (a shard's accounts between two rows), on the provisioning
 * queue. Per account, in two steps, so a redelivery never resets an account twice and never
 * loses the password that works:
 * 1. a new password is generated (the project's generator rules) and stored encrypted beside the
 *    current one (`resetPasswordCiphertext`), the account marked with the job (`passwordResetRun`,
 *    `passwordResetStatus` pending), conditional on not being marked yet: a later delivery finds it
 *    marked and uses the password stored, it does not make another;
 * 2. an account on a platform (Synced) gets it there (the adapter's setPassword, paced and retried
 *    like provisioning); when the platform took it, or the account is on no platform, it becomes
 *    the account's password (`updated` / `local`); when the platform refused, the account keeps
 *    its previous password, here and there (`failed`, with the platform's words).
 * The chunk's tally is counted from its accounts and added to the job in the transaction that
 * writes its done marker, once: done + failed + pending = total at every moment.
 */
export interface ResetChunkDeps extends PacedDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  now: () => Date;
  cipher: () => Promise<Cipher>;
  randomBytes: RandomBytes;
  integration: (userId: string, integrationId: string) => Promise<IntegrationRecord | undefined>;
  adapterFor: (integration: IntegrationRecord, credentials: Record<string, string>, policy?: AccountPolicy) => ProvisioningAdapter;
  pacingOf: (integration: IntegrationRecord) => Pacing;
  retry?: RetryPolicy;
}

const PENDING = 'pending';

/** The chunk's accounts of the job's selection this job has not finished: not reached yet, or given a new password not yet applied. */
async function unfinishedAccounts(deps: Pick<ResetChunkDeps, 'db' | 'tableName'>, job: Record<string, unknown>, message: ResetChunkMessage) {
  const userId = message.userId;
  const projectId = String(job.projectId);
  const accounts = await chunkAccountItems(
    deps.db,
    deps.tableName,
    { userId, projectId, shard: message.shard, fromRow: message.fromRow, toRow: message.toRow },
    { filter: 'attribute_not_exists(passwordResetRun) OR passwordResetRun <> :run OR passwordResetStatus = :pending', values: { ':run': message.jobId, ':pending': PENDING } },
  );
  // A reset of listed accounts or of a filter's (the bulk bar): only those, the filter as they are now.
  return selectedAccounts(deps, job, accounts);
}

export const resetChunk = (deps: ResetChunkDeps) => chunkRunner(deps, passwordResets, { run: (job, message) => resetLeased(deps, message, job) }, leaseItem(passwordResets));

/** Writes an account's result: its new password (updated, local) or the previous one kept (failed). Once per job. */
async function recordResult(deps: Pick<ResetChunkDeps, 'db' | 'tableName' | 'now' | 'retry'>, jobId: string, account: Record<string, unknown>, result: AccountResetResult, reason?: string) {
  const applied = result !== 'failed';
  try {
    await withRetry('Recording a password reset', deps.retry ?? workerRetry, isThrottling, () =>
      deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: { PK: account.PK, SK: account.SK },
          UpdateExpression: applied
            ? 'SET passwordCiphertext = :password, passwordResetStatus = :result, passwordResetAt = :at REMOVE resetPasswordCiphertext, passwordResetError'
            : 'SET passwordResetStatus = :result, passwordResetError = :reason, passwordResetAt = :at REMOVE resetPasswordCiphertext',
          ConditionExpression: 'passwordResetRun = :run AND passwordResetStatus = :pending',
          ExpressionAttributeValues: {
            ':result': result,
            ':at': deps.now().toISOString(),
            ':run': jobId,
            ':pending': PENDING,
            ...(applied ? { ':password': account.resetPasswordCiphertext } : { ':reason': (reason ?? 'The platform did not take the new password.').slice(0, 500) }),
          },
        }),
      ),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

async function resetLeased(deps: ResetChunkDeps, message: ResetChunkMessage, job: Record<string, unknown>): Promise<ChunkEnd> {
  const { userId, jobId } = message;
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, String(job.projectId)), ConsistentRead: true }));
  if (!project) {
    await failReset(deps, userId, jobId, 'The project was deleted.');
    return 'stopped';
  }
  // Where each account stands on the platform (Synced, its id there) is in the project's PROV
  // state blocks, not on the account items: overlaid before anything reads it.
  const accounts = await withStates(deps.db, deps.tableName, { userId, projectId: String(job.projectId), shards: shardsOf(project) }, await unfinishedAccounts(deps, job, message), {
    consistent: true,
    channels: ['PROV'],
  });
  if ((message.requeues ?? 0) > MAX_REQUEUES) {
    await failAll(deps, job, accounts, 'The platform kept asking us to wait (HTTP 429) for too long: the password was not changed. Reset the project again later.');
    return { done: await chunkTally(deps, job, message) };
  }
  if (accounts.length === 0) return { done: await chunkTally(deps, job, message) };

  const cipher = await deps.cipher();
  // The project's own generator rules (stored since projects keep them; older ones: the defaults).
  const rules = passwordSettingsSchema.safeParse(project.passwordSettings);
  const nextPassword = createPasswordGenerator(rules.success ? rules.data : defaultPasswordSettings, deps.randomBytes);

  // 1. A new password for each account this job has not reached, stored beside the current one.
  const pending: Record<string, unknown>[] = [];
  await mapBounded(accounts, 16, async (account) => {
    if (account.passwordResetRun === jobId && account.passwordResetStatus === PENDING) {
      if (typeof account.resetPasswordCiphertext === 'string') pending.push(account);
      // Marked by a failing delivery that stopped before its result: it fails as that one meant to.
      else await recordResult(deps, jobId, account, 'failed', 'The reset stopped on our side after repeated errors: the password was not changed. Reset the project again.');
      return;
    }
    const ciphertext = cipher.encrypt(nextPassword(), secretContext.account(userId, String(account.id)));
    try {
      await withRetry('Storing a new password', deps.retry ?? workerRetry, isThrottling, () =>
        deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: { PK: account.PK, SK: account.SK },
            UpdateExpression: 'SET resetPasswordCiphertext = :password, passwordResetRun = :run, passwordResetStatus = :pending REMOVE passwordResetError',
            ConditionExpression: 'attribute_not_exists(passwordResetRun) OR passwordResetRun <> :run',
            ExpressionAttributeValues: { ':password': ciphertext, ':run': jobId, ':pending': PENDING },
          }),
        ),
      );
      pending.push({ ...account, resetPasswordCiphertext: ciphertext, passwordResetRun: jobId, passwordResetStatus: PENDING });
    } catch (error) {
      // Marked by another delivery in between: the next delivery reads what it stored.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  });

  // 2. Accounts on no platform take the new password at once; the Synced ones get it there first.
  const onPlatform = pending.filter((a) => a.externalStatus === 'success' && typeof a.externalAccountId === 'string' && a.externalAccountId !== '');
  await mapBounded(
    pending.filter((a) => !onPlatform.includes(a)),
    16,
    (account) => recordResult(deps, jobId, account, 'local'),
  );
  const later = onPlatform.length ? await resetOnPlatform(deps, job, project, cipher, onPlatform) : undefined;
  // The rest in a new delivery: the accounts done are not read again, the pending keep their new password.
  if (later !== undefined) return typeof later === 'number' ? { later } : later;
  return { done: await chunkTally(deps, job, message) };
}

const failAll = (deps: ResetChunkDeps, job: Record<string, unknown>, accounts: Record<string, unknown>[], reason: string) =>
  mapBounded(accounts, 16, async (account) => {
    if (account.passwordResetRun !== job.id) {
      // Not reached: marked with the job and failed at once, its password untouched.
      try {
        await deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: { PK: account.PK, SK: account.SK },
            UpdateExpression: 'SET passwordResetRun = :run, passwordResetStatus = :pending',
            ConditionExpression: 'attribute_not_exists(passwordResetRun) OR passwordResetRun <> :run',
            ExpressionAttributeValues: { ':run': job.id, ':pending': PENDING },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    await recordResult(deps, String(job.id), account, 'failed', reason);
  });

/**
 * Sets the pending passwords on the platform of the project's integration, paced as provisioning
 * is (on the integration's turn); records each result. Returns a delay (ms) when the rest must go
 * to a later delivery, `{ wait }` when the turn is another delivery's.
 */
async function resetOnPlatform(deps: ResetChunkDeps, job: Record<string, unknown>, project: Record<string, unknown>, cipher: Cipher, accounts: Record<string, unknown>[]): Promise<number | { wait: number } | undefined> {
  const userId = String(job.userId);
  const jobId = String(job.id);
  const integration = typeof project.integrationId === 'string' ? await deps.integration(userId, project.integrationId) : undefined;
  if (!integration) {
    await failAll(deps, job, accounts, 'The integration these accounts were provisioned to was deleted, so their platform could not be updated: the previous password is kept.');
    return undefined;
  }
  const credentials = await integrationCredentials(deps.cipher, userId, integration);
  if (!credentials) {
    await failAll(deps, job, accounts, "The integration's credentials cannot be read, so the platform was not updated: the previous password is kept. Enter them again in the integration, then reset again.");
    return undefined;
  }
  const turn = await takeIntegrationTurn(deps, { userId, jobId, integrationId: integration.id }, deps.pacingOf(integration));
  if (!turn) return { wait: TURN_RETRY_SECONDS };
  const adapter = deps.adapterFor(integration, credentials, { requirePasswordChange: job.requirePasswordChange === true });
  try {
    return await pacedCalls(deps, turn, accounts, async (account): Promise<PacedAnswer> => {
      let password: string;
      try {
        password = cipher.decrypt(String(account.resetPasswordCiphertext), secretContext.account(userId, String(account.id)));
      } catch {
        await recordResult(deps, jobId, account, 'failed', 'The new password could not be read back, so it was not sent: the previous password is kept.');
        return {};
      }
      const outcome: SetPasswordOutcome = await adapter.setPassword(String(account.externalAccountId), { username: String(account.username), password });
      if (outcome.kind === 'updated') await recordResult(deps, jobId, account, 'updated');
      else if (outcome.kind === 'gone') await recordResult(deps, jobId, account, 'failed', 'The account is no longer on the platform (removed there?), so its password was not changed there: the previous password is kept.');
      else {
        // The platform's words, never the password (a platform may repeat the request).
        const refused = () => recordResult(deps, jobId, account, 'failed', `Platform not updated: ${outcome.message.split(password).join('[password]')}. The previous password is kept.`);
        if (outcome.retryable) return { retry: outcome.rateLimited ? 'rate' : 'server', retryAfterMs: outcome.retryAfterMs, exhausted: refused };
        await refused();
      }
      return {};
    });
  } finally {
    adapter.close();
    await turn.give();
  }
}

/**
 * What the job did to the chunk's accounts, counted from the accounts (strongly consistent): the
 * engine adds it to the job with the chunk's done marker, in one transaction (once).
 */
async function chunkTally(deps: Pick<ResetChunkDeps, 'db' | 'tableName'>, job: Record<string, unknown>, message: ResetChunkMessage): Promise<ChunkTally> {
  const userId = message.userId;
  const projectId = String(job.projectId);
  const counts = { updated: 0, local: 0, failed: 0 };
  const items = await chunkAccountItems(
    deps.db,
    deps.tableName,
    { userId, projectId, shard: message.shard, fromRow: message.fromRow, toRow: message.toRow },
    { filter: 'passwordResetRun = :run', projection: 'SK, passwordResetStatus', values: { ':run': message.jobId } },
  );
  for (const item of items) {
    const status = item.passwordResetStatus as keyof typeof counts;
    if (status in counts) counts[status]++;
  }
  const failedRows = items.filter((item) => item.passwordResetStatus === 'failed').map(rowOf);
  return { marker: counts, job: { done: counts.updated + counts.local, updatedOnPlatform: counts.updated, failed: counts.failed }, failedRows };
}

/**
 * Dead-letter worker: a reset chunk that failed every delivery (our side). Its unfinished accounts
 * keep their previous password and count as failed with the reason, so the job ends and adds up.
 */
export const recordDeadResetChunk = (deps: Pick<ResetChunkDeps, 'db' | 'tableName' | 'now' | 'retry' | 'queue'>) =>
  deadChunkRecorder(deps, passwordResets, async (job, message) => {
    const accounts = await unfinishedAccounts(deps, job, message);
    await failAll(deps as ResetChunkDeps, job, accounts, 'The reset stopped on our side after repeated errors: the password was not changed. Reset the project again.');
    return chunkTally(deps, job, message);
  });

/** A reset-start message that failed every delivery: the job fails and frees the project. */
export const recordDeadResetStart = (deps: Pick<ResetChunkDeps, 'db' | 'tableName' | 'now'>) => (userId: string, jobId: string) =>
  failReset(deps, userId, jobId, 'The reset could not be started. Please try again.');
