import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isIdShaped } from '../../shared/schemas/ids';
import { ACTION_FAILURES_SHOWN, actionWords, type AccountAction, type AccountActionInput, type AccountActionJob, type AccountActionStatus } from '../../shared/schemas/account-actions';
import type { PlanId } from '../../shared/plans';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import * as jobs from '../account-jobs/lifecycle';
import { accountsOfJob, countFilter, NONE_MATCH, resolveSelection, selectionWords } from '../account-jobs/selection';
import { accountFilterSchema, type AccountSelectionCount } from '../../shared/schemas/account-selection';
import { assertApiIntegrations } from '../usage/plan-usage';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from '../security/security-events';
import { accountActionItem, accountActionJobs, type ActionDeps } from './account-actions';
import { jobViewBase } from '../account-jobs/job-view';

/**
 * The routes of account actions (the provisioning route group): POST
 * /api/projects/{id}/account-actions starts one, GET /api/account-actions/{id} reads it.
 */
/** The other jobs over a project's accounts: each keeps an action from starting, and an action keeps each of them. */
const BUSY: Record<string, string> = {
  activeAccountAction: 'An action on accounts of this project is under way. Wait for it to finish, then try again.',
  activeProvisioningJob: 'This project is being provisioned. Wait for that run to finish, then try again.',
  activeMailSend: 'Credentials of this project are being e-mailed. Wait for that send to finish, then try again.',
  activePasswordReset: 'The passwords of this project are being reset. Wait for that to finish, then try again.',
  activeProjectDeletion: 'This project is being deleted.',
};
export const busyReason = (project: Record<string, unknown>): string | undefined => Object.entries(BUSY).find(([lock]) => typeof project[lock] === 'string')?.[1];

/**
 * What a groups action fixes on its job at the start: the groups to join (the project's now, with
 * its 'Create groups that do not exist' switch: resolved once per job, run-groups.ts) and the
 * ones to leave (`groupsLeft`: named once, no longer; project-changes.ts). 409 when the project's
 * accounts are on no platform, or it names no group to join or leave.
 */
function groupsJobFields(project: Record<string, unknown>): Record<string, unknown> {
  if (typeof project.integrationId !== 'string' || Number(project.syncedCount ?? 0) <= 0) throw new ConflictError(NONE_MATCH.synced);
  const groups = Array.isArray(project.groups) ? project.groups.map(String) : [];
  const groupsLeave = Array.isArray(project.groupsLeft) ? project.groupsLeft.map(String) : [];
  if (!groups.length && !groupsLeave.length) throw new ConflictError('This project names no groups for its accounts to join or leave.');
  return { groups, groupsLeave, ...(project.createGroups === true ? { createGroups: true } : {}) };
}

export function actionView(item: Record<string, unknown>): AccountActionJob {
  return {
    ...jobViewBase(item, { done: 'done', failed: 'failed' }),
    action: item.action as AccountAction,
    status: item.status as AccountActionStatus,
    done: Number(item.done ?? 0),
    onPlatform: Number(item.onPlatform ?? 0),
    failed: Number(item.failed ?? 0),
    ...(item.origin === 'expiry' ? { origin: 'expiry' as const } : {}),
  };
}

export interface StartActionDeps extends ActionDeps {
  newId: (now: Date) => string;
  events: SecurityEventDeps;
  plan: (userId: string) => Promise<PlanId>;
  integrationName: (userId: string, integrationId: string) => Promise<string | undefined>;
}

/**
 * Starts an action: 404 for a project (or an account id) that is not the caller's, 409 while
 * another job holds the project; a project whose accounts are on a platform needs Pro (the
 * platform is changed first). Then the lock and the job in one transaction, the start queued, and
 * the security event (who, what, how many) recorded.
 */
export const startAccountAction =
  (deps: StartActionDeps) =>
  async (userId: string, projectId: string, input: AccountActionInput, origin: Partial<RequestOrigin> = {}): Promise<AccountActionJob> => {
    const { Item: project } = isIdShaped(projectId) ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true })) : { Item: undefined };
    if (!project || project.entityType !== 'Project') throw new NotFoundError('Project not found');
    // Groups: the accounts already on the project's platform (of those listed, or all of them) join its groups and leave the ones it no longer names.
    const groupsJob = input.action === 'groups' ? groupsJobFields(project) : undefined;
    const selection = await resolveSelection(deps, { userId, projectId, project }, groupsJob && !input.accountIds ? { filter: 'synced' } : input);
    const busy = busyReason(project);
    if (busy) throw new ConflictError(busy);
    const total = selection.total;
    if (total === 0) throw new ConflictError(NONE_MATCH[selection.filter ?? 'all']);
    // Accounts on a platform are changed there first: a platform operation, Pro as provisioning is.
    const provisioned = typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;
    if (provisioned) assertApiIntegrations(await deps.plan(userId));
    const integrationName = provisioned ? await deps.integrationName(userId, String(project.integrationId)) : undefined;
    const action = input.action;
    const now = deps.now();
    const at = now.toISOString();
    const jobId = deps.newId(now);
    const item = accountActionItem(
      { userId, projectId, projectName: String(project.name), jobId, action, total, at, ...(provisioned ? { integration: { id: String(project.integrationId), ...(integrationName ? { name: integrationName } : {}) } } : {}) },
      { ...selection.fields, ...groupsJob },
    );
    const started = await jobs.startJob(deps, accountActionJobs, item, {
      excludes: ['activeProvisioningJob', 'activeMailSend', 'activePasswordReset', 'activeProjectDeletion'],
      projectSet: {},
      unqueued: 'The action could not be queued. Please try again.',
    });
    if (started === 'busy') {
      const { Item: latest } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
      throw latest ? new ConflictError(busyReason(latest) ?? BUSY.activeAccountAction!) : new NotFoundError('Project not found');
    }
    const words = actionWords[action];
    await recordSecurityEvent(deps.events, {
      userId,
      type: ({ deactivate: 'accounts_deactivated', reactivate: 'accounts_reactivated', delete: 'accounts_deleted', update: 'accounts_updated_on_platform', groups: 'accounts_updated_on_platform' } as const)[action],
      severity: action === 'delete' ? 'high' : 'medium',
      description: `${words.verb}: ${selectionWords(input, total)} of project "${String(project.name)}"${integrationName ? `, on ${integrationName} first` : ''}`,
      ...origin,
      at: now,
      source: `action:${jobId}`,
    });
    return actionView(item);
  };

export const readAccountAction = (deps: Pick<ActionDeps, 'db' | 'tableName'>, userId: string, jobId: string) =>
  isIdShaped(jobId) ? jobs.readJob(deps, accountActionJobs, userId, jobId) : Promise.resolve(undefined);


/** GET /api/account-actions/{id}: the job, and once it is over, the accounts not changed with the words (at most ACTION_FAILURES_SHOWN). */
export const getAccountAction =
  (deps: Pick<ActionDeps, 'db' | 'tableName'>) =>
  async (userId: string, jobId: string): Promise<AccountActionJob> => {
    const item = await readAccountAction(deps, userId, jobId);
    if (!item || item.entityType !== 'AccountAction') throw new NotFoundError('Account action not found');
    const view = actionView(item);
    if ((view.status === 'completed' || view.status === 'failed') && view.failed > 0) view.failures = await actionFailures(deps, item);
    return view;
  };

/**
 * The accounts the job left as they were, with the words: the failed rows kept beside the job
 * (job-failures.ts) read by key with their ACT state entries (account-actions-chunk.ts), where the
 * outcome lives; a job from before those rows were kept reads the project's accounts, its
 * outcomes then on the items.
 */
const actionFailures = (deps: Pick<ActionDeps, 'db' | 'tableName'>, job: Record<string, unknown>): Promise<NonNullable<AccountActionJob['failures']>> =>
  accountsOfJob(deps, job, { failed: (a) => a.actionRun === job.id && a.actionResult === 'failed', filter: 'actionRun = :run AND actionResult = :failed', projection: 'id, username, actionError', values: { ':run': job.id, ':failed': 'failed' }, channels: ['ACT'] }, ACTION_FAILURES_SHOWN, (account) => ({
    accountId: String(account.id),
    username: String(account.username),
    reason: String(account.actionError ?? ''),
  }));

/**
 * GET /api/projects/{id}/account-selection?filter=: how many of the project's accounts a bulk-bar
 * filter takes now, for its confirmation (the counters' number, or a count of the accounts for the
 * page's Active / Deactivated). 404 for another user's project, 400 for an unknown filter.
 */
export const countAccountSelection =
  (deps: Pick<ActionDeps, 'db' | 'tableName'>) =>
  async (userId: string, projectId: string, filter: string | undefined): Promise<AccountSelectionCount> => {
    const { Item: project } = isIdShaped(projectId) ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true })) : { Item: undefined };
    if (!project || project.entityType !== 'Project') throw new NotFoundError('Project not found');
    const parsed = accountFilterSchema.safeParse(filter);
    if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Unknown filter');
    return { filter: parsed.data, count: await countFilter(deps, userId, projectId, project, parsed.data) };
  };
