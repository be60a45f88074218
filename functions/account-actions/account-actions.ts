import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../core/logger';
import { keys } from '../core/keys';
import type { AccountJobKind } from '../account-jobs/kind';
import * as jobs from '../account-jobs/lifecycle';
import { activeCounts, keptActiveCounts, planTotal, selectedRanges } from '../account-jobs/selection';
import { rowRanges, shardsOf } from '../accounts/account-partitions';
import { windowFor } from '../provisioning/chunk-window';
import type { ActionChunkMessage, ProvisioningMessage, ProvisioningQueue } from '../provisioning/provisioning-message';

/**
 * Account actions (POST /api/projects/{id}/account-actions): Deactivate, Reactivate or Delete the
 * listed accounts of a project (one is a job of one) or all of them, as a kind of account job
 * (functions/account-jobs) on the provisioning queue, taking turns with the runs. The project is
 * held (activeAccountAction) from the start to the end: no provisioning run, send, reset or the
 * project's deletion meanwhile, and the action does not start while one of those runs. Its routes:
 * account-action-routes.ts; the work on a chunk's accounts (the platform first, then here):
 * account-actions-chunk.ts.
 */
export interface ActionDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  now: () => Date;
}

/**
 * Accounts per chunk message (a multiple of the state blocks' 50 rows). Twice a provisioning
 * run's: an action is one short call per account, and each chunk's own reads and writes (about 15
 * round trips to the table and the queue, while the worker's platform calls wait) come half as
 * often. A platform slower than the delivery's budget (platform-calls.ts CHUNK_BUDGET_MS) leaves
 * the rest of a chunk to a later delivery, as for any chunk.
 */
export const ACTION_CHUNK_ACCOUNTS = 500;

/** The project attribute an account action holds its project by. */
export const ACCOUNT_ACTION_LOCK = 'activeAccountAction';

export const accountActionJobs: AccountJobKind<ProvisioningMessage, ActionChunkMessage> = {
  name: 'account action',
  entityType: 'AccountAction',
  key: keys.accountAction,
  chunkKey: keys.accountActionChunk,
  chunkEntityType: 'AccountActionChunk',
  lock: ACCOUNT_ACTION_LOCK,
  working: ['running'],
  listsFailures: true,
  window: (job) => windowFor(typeof job.integrationId === 'string'),
  jobOf: (message) => message.jobId,
  startMessage: (userId, jobId) => ({ type: 'action-start', userId, jobId }),
  chunks: (job) => {
    const shards = Number(job.shards ?? 1);
    const ranges = Array.isArray(job.rows) ? selectedRanges(shards, job.rows.map(Number), ACTION_CHUNK_ACCOUNTS) : rowRanges(shards, Number(job.maxRow ?? 0), ACTION_CHUNK_ACCOUNTS);
    return ranges.map((range) => ({ type: 'action-chunk', userId: String(job.userId), jobId: String(job.id), ...range }));
  },
  async plan(deps, job, project) {
    await keepActiveCounts(deps, job, project);
    if (Array.isArray(job.rows)) return { total: job.rows.length, fields: { shards: shardsOf(project), maxRow: 0 } };
    // Every account, or a filter's (evaluated on each account when its chunk reaches it): every chunk.
    const total = planTotal(job, project);
    return { total, fields: await jobs.planLayout(deps, job, project, total) };
  },
  ended: async (deps, job, status) => {
    if (status === 'completed') await forgetLeftGroups(deps, job);
  },
};

/**
 * A groups action that took every Synced account of its project out of the groups the project no
 * longer names (all of them, none failed) has nothing left to do with those names: they leave the
 * project's `groupsLeft`, so the next groups action does not ask the platform again. Only the
 * names this job left, and only if no Edit changed the list meanwhile (the condition; an Edit that
 * did keeps its own list, which a later action leaves). Never throws (told once, as a job ends).
 */
async function forgetLeftGroups(deps: Pick<ActionDeps, 'db' | 'tableName'>, job: Record<string, unknown>): Promise<void> {
  const leave = Array.isArray(job.groupsLeave) ? job.groupsLeave.map(String) : [];
  if (job.action !== 'groups' || Array.isArray(job.rows) || Number(job.failed ?? 0) > 0 || leave.length === 0) return;
  const key = keys.project(String(job.userId), String(job.projectId));
  try {
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true, ProjectionExpression: 'groupsLeft' }));
    const named = Array.isArray(Item?.groupsLeft) ? Item.groupsLeft.map(String) : [];
    const gone = new Set(leave.map((name) => name.toLowerCase()));
    const kept = named.filter((name) => !gone.has(name.toLowerCase()));
    if (kept.length === named.length) return;
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: kept.length ? 'SET groupsLeft = :kept' : 'REMOVE groupsLeft',
        ConditionExpression: 'groupsLeft = :named',
        ExpressionAttributeValues: { ':named': named, ...(kept.length ? { ':kept': kept } : {}) },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) logger.warn('The groups a project left were not forgotten', { jobId: job.id, error });
  }
}

/**
 * A project older than its `deactivatedCount` / `expiredCount` (docs/data-model.md) gets them here,
 * counted from its accounts while this job holds the project (no other action writes ACT entries
 * meanwhile), before any chunk adds to them: once (the condition; a redelivered plan keeps the
 * first). The chunks of this job then find them on the project and move them.
 */
async function keepActiveCounts(deps: Pick<ActionDeps, 'db' | 'tableName'>, job: Record<string, unknown>, project: Record<string, unknown>): Promise<void> {
  if (keptActiveCounts(project)) return;
  const userId = String(job.userId);
  const counts = await activeCounts(deps, userId, String(job.projectId), project);
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.project(userId, String(job.projectId)),
        UpdateExpression: 'SET deactivatedCount = :deactivated, expiredCount = :expired',
        ConditionExpression: 'attribute_not_exists(deactivatedCount) AND #lock = :job',
        ExpressionAttributeNames: { '#lock': ACCOUNT_ACTION_LOCK },
        ExpressionAttributeValues: { ':deactivated': counts.deactivated, ':expired': counts.expired, ':job': job.id },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** An action-start message: count, fix the chunks and queue the first window once. */
export const planAccountAction = (deps: ActionDeps) => (userId: string, jobId: string) => jobs.planJob(deps, accountActionJobs, userId, jobId);

/**
 * A new account action's job item, as every start writes it (a user's action, or a project's
 * expiry with `origin: 'expiry'`): the counters at zero, the project's integration named when its
 * accounts are on a platform.
 */
export function accountActionItem(
  fields: { userId: string; projectId: string; projectName: string; jobId: string; action: string; total: number; at: string; integration?: { id: string; name?: string } },
  extra: Record<string, unknown> = {},
) {
  const { userId, projectId, projectName, jobId, action, total, at, integration } = fields;
  return {
    ...keys.accountAction(userId, jobId),
    entityType: 'AccountAction',
    id: jobId,
    userId,
    projectId,
    projectName,
    action,
    ...extra,
    ...(integration ? { integrationId: integration.id, ...(integration.name ? { integrationName: integration.name } : {}) } : {}),
    status: 'queued',
    total,
    done: 0,
    onPlatform: 0,
    failed: 0,
    chunks: 0,
    chunksDone: 0,
    createdAt: at,
    updatedAt: at,
  };
}
