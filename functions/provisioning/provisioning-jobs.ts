import { ACCOUNT_ACTION_RUNNING } from '../../shared/text/account-action-running';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PlanId } from '../../shared/plans';
import {
  provisioningSupport,
  sourceStatusOf,
  WAITING_FOR_ACCOUNTS,
  type ProvisioningJob,
  type ProvisioningMode,
  type ProvisioningStatus,
} from '../../shared/schemas/provisioning';
import type { IntegrationPlatform } from '../../shared/schemas/integrations';
import { isIdShaped } from '../../shared/schemas/ids';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
import { rowRanges, shardsOf } from '../accounts/account-partitions';
import { resolveSelection, selectedRanges, skippedOf } from '../account-jobs/selection';
import { syncCounts } from '../projects/project-item';
import { assertApiIntegrations } from '../usage/plan-usage';
import type { ChunkMessage, ProvisioningMessage, ProvisioningQueue } from './provisioning-message';
import { provisioningFinished } from '../notifications/events';
import { securitySettingsWithDefaults } from '../../shared/schemas/security';
import { SECURITY_SETTINGS_ATTRIBUTE } from '../security/security-settings';
import { PLATFORM_WINDOW } from './chunk-window';
import type { AccountJobKind } from '../account-jobs/kind';
import * as jobs from '../account-jobs/lifecycle';

/** The bell's notification of a run that ended (never throws: see functions/notifications/events.ts). */
const notifyRunEnded = (deps: Pick<ProvisioningJobDeps, 'db' | 'tableName'>, job: Record<string, unknown>, status: 'completed' | 'failed', at: string, reason?: string) =>
  provisioningFinished(deps, {
    userId: String(job.userId ?? ''),
    jobId: String(job.id),
    projectId: String(job.projectId),
    projectName: String(job.projectName ?? ''),
    integrationName: String(job.integrationName ?? 'the platform'),
    status,
    synced: Number(job.synced ?? 0),
    failed: Number(job.failed ?? 0),
    ...(reason ? { reason } : {}),
    at: new Date(at),
  });

/** How many accounts a run of this mode takes (the project's counters are exact: one run per project at a time). */
const sourceCount = (mode: ProvisioningMode, counts: ReturnType<typeof syncCounts>): number =>
  ({ pending: counts.syncPendingCount, failed: counts.syncFailedCount, success: counts.syncedCount })[sourceStatusOf[mode]];

/** Accounts per chunk message: one shard's rows in a range that holds about this many. */
export const PROVISIONING_CHUNK_ACCOUNTS = 250;

export interface ProvisioningJobDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  now: () => Date;
}

export const jobKey = (userId: string, jobId: string) => keys.provisioningJob(userId, jobId);

/**
 * Provisioning runs as a kind of account job (functions/account-jobs): a run holds its project
 * (activeProvisioningJob) from its start until it completes or fails; 'resuming' works as
 * 'running' (a resume queueing its chunks again). Its chunks: provision-accounts.ts.
 */
export const provisioningRuns: AccountJobKind<ProvisioningMessage, ChunkMessage> = {
  name: 'provisioning run',
  entityType: 'ProvisioningJob',
  key: jobKey,
  chunkKey: keys.provisioningChunk,
  chunkEntityType: 'ProvisioningChunk',
  reportsPickup: true,
  lock: 'activeProvisioningJob',
  working: ['running', 'resuming'],
  window: PLATFORM_WINDOW,
  jobOf: (message) => message.jobId,
  startMessage: (userId, jobId) => ({ type: 'start', userId, jobId }),
  chunks: (job) =>
    Array.isArray(job.rows)
      ? selectedRanges(Number(job.shards ?? 1), job.rows.map(Number), PROVISIONING_CHUNK_ACCOUNTS).map((range) => ({ type: 'chunk', userId: String(job.userId), jobId: String(job.id), ...range }))
      : chunkPlan(String(job.userId), String(job.id), Number(job.shards ?? 1), Number(job.maxRow ?? 0)),
  async plan(deps, job, project) {
    // Listed accounts (an action over the Account Database): only the chunks that hold them.
    if (Array.isArray(job.rows)) return { total: job.rows.length, fields: { shards: shardsOf(project), maxRow: 0 } };
    const total = sourceCount(job.mode as ProvisioningMode, syncCounts(project, Number(project.accountCount ?? 0)));
    // The project's groups as they are now: every chunk of the run joins the same ones (run-groups.ts).
    const groups = job.mode !== 'undo' && Array.isArray(project.groups) && project.groups.length ? { groups: project.groups, createGroups: project.createGroups === true } : {};
    return { total, fields: { ...(await jobs.planLayout(deps, job, project, total)), ...groups } };
  },
  waitingFailure: 'The accounts were not created in time, so nothing was provisioned. Start it again from the project.',
  ended: (deps, job, status, at, reason) => notifyRunEnded(deps, job, status, at, reason),
};

export const readJob = (deps: Pick<ProvisioningJobDeps, 'db' | 'tableName'>, userId: string, jobId: string) => jobs.readJob(deps, provisioningRuns, userId, jobId);

export function jobView(item: Record<string, unknown>): ProvisioningJob {
  const total = Number(item.total ?? 0);
  const synced = Number(item.synced ?? 0);
  const failed = Number(item.failed ?? 0);
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    projectName: String(item.projectName ?? ''),
    integrationId: String(item.integrationId),
    integrationName: String(item.integrationName ?? ''),
    platform: item.platform as IntegrationPlatform,
    mode: item.mode as ProvisioningMode,
    // 'resuming' is internal (chunks being queued again): the run is running.
    status: (item.status === 'resuming' ? 'running' : item.status) as ProvisioningStatus,
    total,
    synced,
    failed,
    pending: skippedOf(item, synced + failed) === undefined ? Math.max(0, total - synced - failed) : 0,
    ...(skippedOf(item, synced + failed) ? { skipped: skippedOf(item, synced + failed) } : {}),
    ...(typeof item.reason === 'string' ? { reason: item.reason } : {}),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    ...(typeof item.completedAt === 'string' ? { completedAt: item.completedAt } : {}),
    ...(item.requirePasswordChange === true
      ? {
          passwordChange: {
            applied: item.passwordChangeApplied === true,
            detail: typeof item.passwordChangeDetail === 'string' ? item.passwordChangeDetail : 'Not known yet: the platform is asked when the run starts creating accounts.',
          },
        }
      : {}),
  };
}

/**
 * The user's Require password change setting (security settings on the user item), read when a
 * run starts and kept on the run: every chunk of one run creates its accounts the same way.
 */
export async function requirePasswordChangeOf(deps: Pick<ProvisioningJobDeps, 'db' | 'tableName'>, userId: string): Promise<boolean> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE } }),
  );
  return securitySettingsWithDefaults(Item?.[SECURITY_SETTINGS_ATTRIBUTE]).requirePasswordChange;
}

/**
 * The chunks of a run: each shard's rows 1..maxRow in ranges that hold about
 * PROVISIONING_CHUNK_ACCOUNTS accounts of that shard. The same (shards, maxRow) always gives the
 * same chunks, so a start or resume that runs twice queues the same messages (a chunk is done once).
 */
export function chunkPlan(userId: string, jobId: string, shards: number, maxRow: number): ChunkMessage[] {
  return rowRanges(shards, maxRow, PROVISIONING_CHUNK_ACCOUNTS).map((range) => ({ type: 'chunk', userId, jobId, ...range }));
}

export interface StartDeps extends ProvisioningJobDeps {
  newId: (now: Date) => string;
  plan: (userId: string) => Promise<PlanId>;
  /** The user's integration (base-table read by key). */
  integration: (userId: string, integrationId: string) => Promise<{ id: string; name: string; platform: IntegrationPlatform; apiType: string } | undefined>;
}

/**
 * Starts a provisioning run of a project's accounts to one of the user's integrations:
 * 'provision' takes every pending account, 'retry' the failed ones. One run per project at a time
 * (a lock on the project item, taken conditionally). `waitForAccounts`: the project's accounts are
 * still being created by a bulk job; the run plans its chunks once that job has ended.
 */
export const startProvisioning =
  (deps: StartDeps) =>
  async (userId: string, projectId: string, input: { integrationId: string; mode: ProvisioningMode }, options: { waitForAccounts?: boolean; accountIds?: readonly string[] } = {}): Promise<ProvisioningJob> => {
    assertApiIntegrations(await deps.plan(userId));
    const { Item: project } = isIdShaped(projectId)
      ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }))
      : { Item: undefined };
    if (!project) throw new NotFoundError('Project not found');
    // Not while Reset Passwords changes them: the platform would get passwords about to be replaced.
    if (typeof project.activeProjectDeletion === 'string') throw new ConflictError(PROJECT_BEING_DELETED);
    if (typeof project.activePasswordReset === 'string') throw new ConflictError('The passwords of this project are being reset. Provision it once the reset has finished.');
    if (typeof project.activeAccountAction === 'string') throw new ConflictError(ACCOUNT_ACTION_RUNNING);
    const integration = isIdShaped(input.integrationId) ? await deps.integration(userId, input.integrationId) : undefined;
    if (!integration) throw new NotFoundError('Integration not found');
    const support = provisioningSupport(integration);
    if (!support.supported) throw new ValidationError(support.reason, [{ path: 'integrationId', message: support.reason }]);

    const counts = syncCounts(project, Number(project.accountCount ?? 0));
    if (typeof project.integrationId === 'string' && project.integrationId !== integration.id && counts.syncedCount + counts.syncFailedCount > 0) {
      throw new ConflictError('This project has accounts provisioned to another integration. Provision it to that integration, or create the accounts again in a new project for this one.');
    }
    if (!options.waitForAccounts) {
      if (input.mode === 'retry' && counts.syncFailedCount === 0) throw new ConflictError('No account of this project failed to provision: there is nothing to retry.');
      if (input.mode === 'provision' && counts.syncPendingCount === 0) throw new ConflictError('Every account of this project has been provisioned already. Use Retry failed for the ones that failed.');
      if (input.mode === 'undo' && counts.syncedCount === 0) throw new ConflictError('No account of this project is on the platform: there is nothing to undo.');
      if (input.mode !== 'provision' && project.integrationId !== integration.id) throw new ConflictError("This project's accounts were not provisioned to this integration.");
    }

    // Listed accounts: those of them in the mode's source status when a chunk reaches them (the rest are skipped).
    const listed = options.accountIds ? await resolveSelection(deps, { userId, projectId, project }, { accountIds: options.accountIds }) : undefined;
    const requirePasswordChange = input.mode === 'undo' ? false : await requirePasswordChangeOf(deps, userId);
    const now = deps.now();
    const at = now.toISOString();
    const jobId = deps.newId(now);
    const item = {
      ...jobKey(userId, jobId),
      entityType: 'ProvisioningJob',
      id: jobId,
      userId,
      projectId,
      projectName: String(project.name),
      integrationId: integration.id,
      integrationName: integration.name,
      platform: integration.platform,
      mode: input.mode,
      requirePasswordChange,
      status: options.waitForAccounts ? 'waiting' : 'queued',
      ...(options.waitForAccounts ? { reason: WAITING_FOR_ACCOUNTS } : {}),
      ...(listed?.fields ?? {}),
      total: options.waitForAccounts ? 0 : listed ? listed.total : sourceCount(input.mode, counts),
      synced: 0,
      failed: 0,
      chunks: 0,
      chunksDone: 0,
      ...(options.waitForAccounts ? { waitingSince: now.getTime() } : {}),
      createdAt: at,
      updatedAt: at,
    };
    // The project's lock and the run in one write: a lock never names a run that does not exist.
    const started = await jobs.startJob(deps, provisioningRuns, item, {
      excludes: ['activePasswordReset', 'activeProjectDeletion', 'activeAccountAction'],
      projectSet: { provisioningJobId: jobId, integrationId: integration.id, updatedAt: at },
      unqueued: 'The run could not be queued. Please try again.',
    });
    if (started === 'busy') throw new ConflictError('This project is being provisioned already. Wait for that run to finish.');
    return jobView(item);
  };

/**
 * A start message: once the project's accounts exist (its bulk job ended), count the run's
 * accounts, plan its chunks and queue them. Every step may run again (redelivery): the plan is
 * fixed by a conditional write, and chunks queued twice are done once.
 */
export const planRun =
  (deps: ProvisioningJobDeps) =>
  (userId: string, jobId: string): Promise<void> =>
    jobs.planJob(deps, provisioningRuns, userId, jobId);

/** Every run of one of the user's integrations (strongly consistent; chunk markers left out). */
async function runsOfIntegration(deps: Pick<ProvisioningJobDeps, 'db' | 'tableName'>, userId: string, integrationId: string): Promise<Record<string, unknown>[]> {
  const runs = keys.provisioningJobsOf(userId);
  return queryItems(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: 'entityType = :job AND integrationId = :integration',
    ExpressionAttributeValues: { ':pk': runs.PK, ':prefix': runs.SKPrefix, ':job': 'ProvisioningJob', ':integration': integrationId },
    ConsistentRead: true,
  });
}

/**
 * An integration passed its connection test: its paused runs go on. Each is set running again
 * (conditionally: one resume wins) and its unfinished chunks are queued once more.
 */
export const resumeRuns =
  (deps: ProvisioningJobDeps) =>
  async (userId: string, integrationId: string): Promise<number> => {
    const paused = (await runsOfIntegration(deps, userId, integrationId)).filter((job) => job.status === 'paused' || job.status === 'resuming');
    let resumed = 0;
    for (const job of paused) if (await jobs.resumeJob(deps, provisioningRuns, job)) resumed++;
    return resumed;
  };

/**
 * The runs of an integration that are not over (waiting, queued, running, resuming, paused) fail
 * with the reason: its deletion must not leave a project locked by a run that can never go on.
 */
export async function failRunsOf(deps: Pick<ProvisioningJobDeps, 'db' | 'tableName' | 'now'>, userId: string, integrationId: string, reason: string): Promise<number> {
  const open = (await runsOfIntegration(deps, userId, integrationId)).filter((job) => job.status !== 'completed' && job.status !== 'failed');
  for (const job of open) await failJob(deps, userId, String(job.id), reason);
  return open.length;
}

/** Pauses a running run with the reason (its chunks stop; resumeRuns queues them again). */
export const pauseJob = (deps: Pick<ProvisioningJobDeps, 'db' | 'tableName' | 'now'>, userId: string, jobId: string, reason: string): Promise<void> =>
  jobs.pauseJob(deps, provisioningRuns, userId, jobId, reason);

/** Ends a run as failed with the reason and gives the project's lock back (the user is told once). Accounts not reached stay pending. */
export const failJob = (deps: Pick<ProvisioningJobDeps, 'db' | 'tableName' | 'now'>, userId: string, jobId: string, reason: string): Promise<void> =>
  jobs.failJob(deps, provisioningRuns, userId, jobId, reason);

