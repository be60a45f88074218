import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isIdShaped } from '../../shared/schemas/ids';
import { DELETION_KEPT_SHOWN, type ProjectDeletion, type ProjectDeletionStatus } from '../../shared/schemas/project-deletion';
import { plural } from '../../shared/text/plural';
import { ConflictError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import type { AccountJobKind } from '../account-jobs/kind';
import * as jobs from '../account-jobs/lifecycle';
import { chunkAccountItems } from '../accounts/account-partitions';
import { notifyProjectDeleted } from '../notifications/events';
import { windowFor } from '../provisioning/chunk-window';
import { chunkPlan } from '../provisioning/provisioning-jobs';
import type { DeleteChunkMessage, ProvisioningMessage, ProvisioningQueue } from '../provisioning/provisioning-message';
import { assertApiIntegrations, effectivePlan } from '../usage/plan-usage';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from '../security/security-events';
import { jobViewBase } from '../account-jobs/job-view';

/**
 * Delete a project (DELETE /api/projects/{id}) as a kind of account job (functions/account-jobs),
 * on the provisioning queue beside runs and resets (the same chunks, window, lease and pacing).
 * It holds the project (activeProjectDeletion) from its start to its end: no other job starts on
 * it meanwhile and it starts on none held. Its chunks are the project's account chunks, then one
 * more (shard -1) that waits for them and erases the project itself when no account was kept.
 * The work of each: project-deletion-chunk.ts. docs/lifecycle.md, Deleting a project.
 */
export interface DeletionDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  now: () => Date;
}

/** The project step: the chunk after the accounts' chunks. */
export const PROJECT_STEP = -1;

export const deletionChunks = (job: Record<string, unknown>): DeleteChunkMessage[] => {
  const accounts = chunkPlan(String(job.userId), String(job.id), Number(job.shards ?? 1), Number(job.maxRow ?? 0));
  const step = { chunk: accounts.length, shard: PROJECT_STEP, fromRow: 0, toRow: 0 };
  return [...accounts, step].map(({ chunk, shard, fromRow, toRow }) => ({ type: 'delete-chunk', userId: String(job.userId), jobId: String(job.id), chunk, shard, fromRow, toRow }));
};

export const projectDeletions: AccountJobKind<ProvisioningMessage, DeleteChunkMessage> = {
  name: 'project deletion',
  entityType: 'ProjectDeletion',
  key: keys.projectDeletion,
  chunkKey: keys.projectDeletionChunk,
  chunkEntityType: 'ProjectDeletionChunk',
  lock: 'activeProjectDeletion',
  working: ['running', 'resuming'],
  window: (job) => windowFor(job.removeFromPlatform === true),
  jobOf: (message) => message.jobId,
  startMessage: (userId, jobId) => ({ type: 'delete-start', userId, jobId }),
  chunks: deletionChunks,
  chunksWithoutAccounts: true,
  async plan(deps, job, project) {
    const total = Number(project.accountCount ?? 0);
    return { total, fields: await jobs.planLayout(deps, job, project, total) };
  },
  waitingFailure: 'The accounts were still being created, so nothing was deleted. Delete the project again.',
  ended: (deps, job, status, at, reason) => notifyProjectDeleted(deps, { ...deletionView(job), userId: String(job.userId), status }, new Date(at), reason),
};

/** The other kinds' locks: a project held by one of them is not deleted, and theirs exclude this one. */
const OTHER_LOCKS = ['activeProvisioningJob', 'activeMailSend', 'activePasswordReset', 'activeAccountAction'] as const;

export function deletionView(item: Record<string, unknown>): ProjectDeletion {
  return {
    ...jobViewBase(item, { done: 'removed', failed: 'kept' }),
    status: item.status as ProjectDeletionStatus,
    removed: Number(item.removed ?? 0),
    removedOnPlatform: Number(item.removedOnPlatform ?? 0),
    kept: Number(item.kept ?? 0),
    removeFromPlatform: item.removeFromPlatform === true,
    projectDeleted: Number(item.projectsDeleted ?? 0) > 0,
  };
}

const BUSY: Record<string, string> = {
  activeProjectDeletion: 'This project is being deleted already.',
  activeProvisioningJob: 'This project is being provisioned. Wait for that run to finish (or stop it), then delete the project.',
  activeMailSend: 'Credentials of this project are being e-mailed. Wait for that send to finish, then delete the project.',
  activePasswordReset: 'The passwords of this project are being reset. Wait for that to finish, then delete the project.',
  activeAccountAction: 'Accounts of this project are being deactivated, reactivated or deleted. Wait for that to finish, then delete the project.',
};
const BULK_RUNNING = 'The accounts of this project are still being created. Wait for that to finish, then delete the project.';
const ADDING = 'People are being added or imported into your projects. Wait for that to finish, then delete the project.';
const busyReason = (project: Record<string, unknown>) => Object.keys(BUSY).find((lock) => typeof project[lock] === 'string');

export interface StartDeletionDeps extends DeletionDeps {
  newId: (now: Date) => string;
  events: SecurityEventDeps;
  integrationName: (userId: string, integrationId: string) => Promise<string | undefined>;
}

const readProject = async (deps: Pick<DeletionDeps, 'db' | 'tableName'>, userId: string, projectId: string) =>
  isIdShaped(projectId) ? (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }))).Item : undefined;

/**
 * Starts the deletion: 404 for a project that is not the caller's, 409 while another job holds it
 * or its accounts are being created; a deletion of it that paused (refused credentials) goes on
 * instead of a second one. Otherwise the lock and the job in one transaction, the start queued and
 * the security event recorded. `removeFromPlatform` counts only for a provisioned project (Pro).
 */
export const startProjectDeletion =
  (deps: StartDeletionDeps) =>
  async (userId: string, projectId: string, removeFromPlatform: boolean, origin: RequestOrigin): Promise<ProjectDeletion> => {
    const project = await readProject(deps, userId, projectId);
    if (!project || project.entityType !== 'Project') throw new NotFoundError('Project not found');
    if (typeof project.activeProjectDeletion === 'string') {
      const running = await jobs.readJob(deps, projectDeletions, userId, project.activeProjectDeletion);
      if (running && (await jobs.resumeJob(deps, projectDeletions, running))) return deletionView({ ...running, status: 'running' });
    }
    const busy = busyReason(project);
    if (busy) throw new ConflictError(BUSY[busy]!);
    const { Item: bulkJob } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, projectId), ConsistentRead: true }));
    if (bulkJob && bulkJob.status !== 'completed' && bulkJob.status !== 'failed') throw new ConflictError(BULK_RUNNING);
    // People being added (to this project or any: the user's creation lock names no project) would land after the deletion read the accounts.
    const { Item: creating } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ConsistentRead: true, ProjectionExpression: 'bulkLock' }));
    const lock = creating?.bulkLock as { until?: unknown } | undefined;
    if (lock && Number(lock.until) > deps.now().getTime()) throw new ConflictError(ADDING);
    const provisioned = typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;
    const onPlatform = removeFromPlatform && provisioned;
    if (onPlatform) {
      const { Item: user } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ProjectionExpression: 'subscriptionPlan, subscriptionStatus' }));
      assertApiIntegrations(effectivePlan(user?.subscriptionPlan, user?.subscriptionStatus));
    }
    const integrationName = provisioned ? await deps.integrationName(userId, String(project.integrationId)) : undefined;
    const now = deps.now();
    const at = now.toISOString();
    const jobId = deps.newId(now);
    const total = Number(project.accountCount ?? 0);
    const item = {
      ...keys.projectDeletion(userId, jobId),
      entityType: 'ProjectDeletion',
      id: jobId,
      userId,
      projectId,
      projectName: String(project.name),
      removeFromPlatform: onPlatform,
      ...(onPlatform ? { integrationId: String(project.integrationId) } : {}),
      ...(integrationName ? { integrationName } : {}),
      status: 'queued',
      total,
      removed: 0,
      removedOnPlatform: 0,
      kept: 0,
      chunks: 0,
      chunksDone: 0,
      createdAt: at,
      updatedAt: at,
    };
    const started = await jobs.startJob(deps, projectDeletions, item, { excludes: OTHER_LOCKS, projectSet: { projectDeletionId: jobId }, unqueued: 'The deletion could not be queued. Please try again.' });
    if (started === 'busy') {
      const latest = await readProject(deps, userId, projectId);
      if (!latest) throw new NotFoundError('Project not found');
      throw new ConflictError(BUSY[busyReason(latest) ?? 'activeProjectDeletion']!);
    }
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'project_deleted',
      severity: 'medium',
      description: `Project "${String(project.name)}" deleted with its ${plural(total, 'account')}${onPlatform ? `, removed from ${integrationName ?? 'the platform'} too` : ''}`,
      ...origin,
      at: now,
      source: `project-deletion:${jobId}`,
    });
    return deletionView(item);
  };

/** GET /api/project-deletions/{id}: the job and, once it is over, the accounts the platform kept. */
export const getProjectDeletion =
  (deps: Pick<DeletionDeps, 'db' | 'tableName'>) =>
  async (userId: string, jobId: string): Promise<ProjectDeletion> => {
    const item = isIdShaped(jobId) ? await jobs.readJob(deps, projectDeletions, userId, jobId) : undefined;
    if (!item || item.entityType !== 'ProjectDeletion') throw new NotFoundError('Deletion not found');
    const view = deletionView(item);
    if (view.kept > 0 && (view.status === 'completed' || view.status === 'failed')) view.keptAccounts = await keptAccounts(deps, item);
    return view;
  };

async function keptAccounts(deps: Pick<DeletionDeps, 'db' | 'tableName'>, job: Record<string, unknown>): Promise<NonNullable<ProjectDeletion['keptAccounts']>> {
  const kept: NonNullable<ProjectDeletion['keptAccounts']> = [];
  for (let shard = 0; shard < Number(job.shards ?? 1) && kept.length < DELETION_KEPT_SHOWN; shard++) {
    const items = await chunkAccountItems(
      deps.db,
      deps.tableName,
      { userId: String(job.userId), projectId: String(job.projectId), shard, fromRow: 1, toRow: Math.max(1, Number(job.maxRow ?? 1)) },
      { filter: 'deletionRun = :run', projection: 'username, email, deletionError', values: { ':run': job.id } },
    );
    kept.push(...items.map((a) => ({ username: String(a.username), email: String(a.email), reason: String(a.deletionError ?? '') })));
  }
  return kept.slice(0, DELETION_KEPT_SHOWN);
}

/** A delete-start message: count the accounts, fix the plan, queue the first window of chunks (lifecycle.ts). */
export const planDeletion = (deps: DeletionDeps) => (userId: string, jobId: string) => jobs.planJob(deps, projectDeletions, userId, jobId);

/** Paused deletions of an integration go on (its test succeeded: the 'resume' message). */
export async function resumeDeletionsOf(deps: DeletionDeps, userId: string, integrationId: string): Promise<void> {
  const { Items } = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: 'integrationId = :integration AND #status IN (:paused, :resuming)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': 'PROJDEL#', ':integration': integrationId, ':paused': 'paused', ':resuming': 'resuming' },
    }),
  );
  for (const job of Items ?? []) await jobs.resumeJob(deps, projectDeletions, job);
}
