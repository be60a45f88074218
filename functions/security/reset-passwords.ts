import { ACCOUNT_ACTION_RUNNING } from '../../shared/text/account-action-running';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isIdShaped } from '../../shared/schemas/ids';
import { RESET_FAILURES_SHOWN, type PasswordResetJob, type PasswordResetStatus } from '../../shared/schemas/reset-passwords';
import { ConflictError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { chunkPlan, requirePasswordChangeOf } from '../provisioning/provisioning-jobs';
import { windowFor } from '../provisioning/chunk-window';
import type { ProvisioningMessage, ProvisioningQueue, ResetChunkMessage } from '../provisioning/provisioning-message';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from './security-events';
import type { AccountJobKind } from '../account-jobs/kind';
import * as jobs from '../account-jobs/lifecycle';
import { accountsOfJob, NONE_MATCH, planTotal, resolveSelection, selectedRanges, selectionWords, type SelectionInput } from '../account-jobs/selection';
import { shardsOf } from '../accounts/account-partitions';
import { PROVISIONING_CHUNK_ACCOUNTS } from '../provisioning/provisioning-jobs';
import type { PlanId } from '../../shared/plans';
import { assertApiIntegrations } from '../usage/plan-usage';
import { plural } from '../../shared/text/plural';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';
import { jobViewBase } from '../account-jobs/job-view';

/**
 * Reset Passwords (POST /api/security/reset-passwords): every account of one project gets a new
 * password, as a job on the provisioning queue, planned in the same chunks as a provisioning run
 * (chunkPlan). The project is locked for it (activePasswordReset): no provisioning run, credential
 * send or second reset starts while it runs, and it does not start while one of those (or the
 * bulk job creating the project's accounts) runs. The chunks: reset-passwords-chunk.ts.
 */
export interface ResetDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  now: () => Date;
}

export const resetKey = (userId: string, jobId: string) => keys.passwordReset(userId, jobId);

/** The reset's chunks: a run's chunk plan, as reset-chunk messages. */
export const resetChunks = (userId: string, jobId: string, shards: number, maxRow: number): ResetChunkMessage[] =>
  chunkPlan(userId, jobId, shards, maxRow).map((chunk) => ({ ...chunk, type: 'reset-chunk' }));

/**
 * Reset Passwords as a kind of account job (functions/account-jobs): a reset holds its project
 * (activePasswordReset) from its start until it completes or fails, over every account of the
 * project, and takes turns on the provisioning queue with the runs (one chunk on it when it sets
 * passwords on a platform, on the integration's turn: integration-turn.ts; two otherwise).
 */
export const passwordResets: AccountJobKind<ProvisioningMessage, ResetChunkMessage> = {
  name: 'password reset',
  entityType: 'PasswordReset',
  key: resetKey,
  chunkKey: keys.passwordResetChunk,
  chunkEntityType: 'PasswordResetChunk',
  lock: 'activePasswordReset',
  working: ['running'],
  listsFailures: true,
  window: (job) => windowFor(typeof job.integrationName === 'string'),
  jobOf: (message) => message.jobId,
  startMessage: (userId, jobId) => ({ type: 'reset-start', userId, jobId }),
  // Listed accounts (the bulk bar's ticked ones): only the chunks that hold them.
  chunks: (job) =>
    Array.isArray(job.rows)
      ? selectedRanges(Number(job.shards ?? 1), job.rows.map(Number), PROVISIONING_CHUNK_ACCOUNTS).map((range) => ({ type: 'reset-chunk', userId: String(job.userId), jobId: String(job.id), ...range }))
      : resetChunks(String(job.userId), String(job.id), Number(job.shards ?? 1), Number(job.maxRow ?? 0)),
  async plan(deps, job, project) {
    if (Array.isArray(job.rows)) return { total: job.rows.length, fields: { shards: shardsOf(project), maxRow: 0 } };
    // Every account, or a filter's (evaluated on each account when its chunk reaches it).
    const total = planTotal(job, project);
    return { total, fields: await jobs.planLayout(deps, job, project, total) };
  },
};

export const readReset = (deps: Pick<ResetDeps, 'db' | 'tableName'>, userId: string, jobId: string) => jobs.readJob(deps, passwordResets, userId, jobId);

export function resetView(item: Record<string, unknown>): PasswordResetJob {
  return {
    ...jobViewBase(item, { done: 'done', failed: 'failed' }),
    status: item.status as PasswordResetStatus,
    done: Number(item.done ?? 0),
    updatedOnPlatform: Number(item.updatedOnPlatform ?? 0),
    failed: Number(item.failed ?? 0),
  };
}

const BULK_RUNNING = 'The accounts of this project are still being created. Wait for that to finish, then reset their passwords.';
const PROVISIONING_RUNNING = 'This project is being provisioned. Wait for that run to finish, then reset its passwords.';
const SEND_RUNNING = 'Credentials of this project are being e-mailed. Wait for that send to finish, then reset its passwords.';
const RESET_RUNNING = 'The passwords of this project are being reset already. Wait for that to finish.';

/** Why the project cannot be reset now, or undefined (reads the project and its bulk job). */
function busyReason(project: Record<string, unknown>, bulkJob: Record<string, unknown> | undefined): string | undefined {
  if (typeof project.activeProjectDeletion === 'string') return PROJECT_BEING_DELETED;
  if (typeof project.activePasswordReset === 'string') return RESET_RUNNING;
  if (typeof project.activeAccountAction === 'string') return ACCOUNT_ACTION_RUNNING;
  if (typeof project.activeProvisioningJob === 'string') return PROVISIONING_RUNNING;
  if (typeof project.activeMailSend === 'string') return SEND_RUNNING;
  if (bulkJob && bulkJob.status !== 'completed' && bulkJob.status !== 'failed') return BULK_RUNNING;
  return undefined;
}

export interface StartResetDeps extends ResetDeps {
  newId: (now: Date) => string;
  events: SecurityEventDeps;
  /** The user's plan: a reset that sets passwords on a platform needs Pro, as provisioning does. */
  plan: (userId: string) => Promise<PlanId>;
  /** The integration's name, for the job's view (the project's accounts were provisioned to it). */
  integrationName: (userId: string, integrationId: string) => Promise<string | undefined>;
}

/**
 * Starts a reset of the project's accounts (all of them, the listed ones or a filter's: the
 * checks of every selection, account-jobs/selection.ts): 404 for a project or an account that is
 * not the caller's, 409 while something else works on its accounts, Pro when the accounts are on
 * a platform; otherwise the lock and the job in one transaction, the
 * start message queued, and the security event (high, with an alert) recorded.
 */
export const startPasswordReset =
  (deps: StartResetDeps) =>
  async (userId: string, projectId: string, origin: RequestOrigin, selectionInput: SelectionInput = {}): Promise<PasswordResetJob> => {
    const { Item: project } = isIdShaped(projectId)
      ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }))
      : { Item: undefined };
    if (!project || project.entityType !== 'Project') throw new NotFoundError('Project not found');
    const selection = await resolveSelection(deps, { userId, projectId, project }, selectionInput);
    const { Item: bulkJob } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, projectId), ConsistentRead: true }));
    const busy = busyReason(project, bulkJob);
    if (busy) throw new ConflictError(busy);
    const total = selection.total;
    if (total === 0) throw new ConflictError(selection.filter && selection.filter !== 'all' ? NONE_MATCH[selection.filter] : 'This project has no accounts: there is no password to reset.');
    const provisioned = typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;
    // New passwords set on a platform: a platform operation, Pro as provisioning is.
    if (provisioned) assertApiIntegrations(await deps.plan(userId));
    const integrationName = provisioned ? await deps.integrationName(userId, String(project.integrationId)) : undefined;

    // New passwords set on a platform are marked "must change" as new accounts would be (the setting now).
    const requirePasswordChange = await requirePasswordChangeOf(deps, userId);
    const now = deps.now();
    const at = now.toISOString();
    const jobId = deps.newId(now);
    const item = {
      ...resetKey(userId, jobId),
      requirePasswordChange,
      entityType: 'PasswordReset',
      id: jobId,
      userId,
      projectId,
      projectName: String(project.name),
      ...selection.fields,
      ...(integrationName ? { integrationName } : {}),
      status: 'queued',
      total,
      done: 0,
      updatedOnPlatform: 0,
      failed: 0,
      chunks: 0,
      chunksDone: 0,
      createdAt: at,
      updatedAt: at,
    };
    const started = await jobs.startJob(deps, passwordResets, item, {
      excludes: ['activeProvisioningJob', 'activeMailSend', 'activeProjectDeletion', 'activeAccountAction'],
      projectSet: { passwordResetId: jobId },
      unqueued: 'The reset could not be queued. Please try again.',
    });
    if (started === 'busy') {
      // Something took the project between the read and the write: say what.
      const { Item: now } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
      throw new ConflictError((now && busyReason(now, undefined)) ?? RESET_RUNNING);
    }
    const whole = !selectionInput.accountIds && (selectionInput.filter ?? 'all') === 'all';
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'account_passwords_reset',
      severity: 'high',
      description: whole ? `Passwords reset for the ${plural(total, 'account')} of project "${String(project.name)}"` : `Passwords reset for ${selectionWords(selectionInput, total)} of project "${String(project.name)}"${integrationName ? `, on ${integrationName} too` : ''}`,
      ...origin,
      at: now,
      source: `reset:${jobId}`,
      alert: {
        title: 'Account passwords reset',
        detail: `New passwords are being generated for ${whole ? `the ${plural(total, 'account')}` : selectionWords(selectionInput, total)} of "${String(project.name)}". If this was not you, sign in and check your Security page.`,
      },
    });
    return resetView(item);
  };

/** GET /api/security/reset-passwords/{id}: the job, and once it is over, the accounts the platform refused. */
export const getPasswordReset =
  (deps: Pick<ResetDeps, 'db' | 'tableName'>) =>
  async (userId: string, jobId: string): Promise<PasswordResetJob> => {
    const item = isIdShaped(jobId) ? await readReset(deps, userId, jobId) : undefined;
    if (!item || item.entityType !== 'PasswordReset') throw new NotFoundError('Password reset not found');
    const view = resetView(item);
    if ((view.status === 'completed' || view.status === 'failed') && view.failed > 0) view.failures = await resetFailures(deps, item);
    return view;
  };

/** The accounts of the job the platform refused, with the reason (at most RESET_FAILURES_SHOWN). */
const resetFailures = (deps: Pick<ResetDeps, 'db' | 'tableName'>, job: Record<string, unknown>): Promise<NonNullable<PasswordResetJob['failures']>> =>
  accountsOfJob(deps, job, { failed: (a) => a.passwordResetRun === job.id && a.passwordResetStatus === 'failed', filter: 'passwordResetRun = :run AND passwordResetStatus = :failed', projection: 'username, email, passwordResetError', values: { ':run': job.id, ':failed': 'failed' } }, RESET_FAILURES_SHOWN, (account) => ({
    username: String(account.username),
    email: String(account.email),
    reason: String(account.passwordResetError ?? ''),
  }));

/**
 * A reset-start message: count the accounts, fix the chunk plan (a conditional write: a
 * redelivered start plans the same) and queue its first window of chunks once.
 */
export const planReset =
  (deps: ResetDeps) =>
  (userId: string, jobId: string): Promise<void> =>
    jobs.planJob(deps, passwordResets, userId, jobId);

/** Ends a reset as failed with the reason and frees the project. Accounts not reached keep their passwords. */
export const failReset = (deps: Pick<ResetDeps, 'db' | 'tableName' | 'now'>, userId: string, jobId: string, reason: string): Promise<void> =>
  jobs.failJob(deps, passwordResets, userId, jobId, reason);

