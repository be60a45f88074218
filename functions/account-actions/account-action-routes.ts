import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isIdShaped } from '../../shared/schemas/ids';
import { ACCOUNT_ACTION_MAX, ACTION_FAILURES_SHOWN, actionWords, type AccountAction, type AccountActionInput, type AccountActionJob, type AccountActionStatus } from '../../shared/schemas/account-actions';
import type { PlanId } from '../../shared/plans';
import { plural } from '../../shared/text/plural';
import { ConflictError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import * as jobs from '../account-jobs/lifecycle';
import { MAX_SELECTED_ACCOUNTS, selectedRows } from '../account-jobs/selection';
import { shardsOf } from '../accounts/account-partitions';
import type { StateEntry } from '../accounts/account-states';
import { assertApiIntegrations } from '../usage/plan-usage';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from '../security/security-events';
import { accountActionJobs, type ActionDeps } from './account-actions';
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
const busyReason = (project: Record<string, unknown>): string | undefined => Object.entries(BUSY).find(([lock]) => typeof project[lock] === 'string')?.[1];

export function actionView(item: Record<string, unknown>): AccountActionJob {
  return {
    ...jobViewBase(item, { done: 'done', failed: 'failed' }),
    action: item.action as AccountAction,
    status: item.status as AccountActionStatus,
    done: Number(item.done ?? 0),
    onPlatform: Number(item.onPlatform ?? 0),
    failed: Number(item.failed ?? 0),
  };
}

/** Listed accounts checked one by one at the start (404 for one not of the project); a longer list's missing ones count as failed in the work. */
export const CHECKED_AT_START = 100;

/** Whether every listed row (of a short list) is an account of the project. */
async function allExist(deps: Pick<ActionDeps, 'db' | 'tableName'>, userId: string, projectId: string, shards: number, rows: number[]): Promise<boolean> {
  if (rows.length > CHECKED_AT_START) return true;
  const found = await Promise.all(rows.map(async (row) => (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.account(userId, projectId, row, shards), ProjectionExpression: 'PK', ConsistentRead: true }))).Item));
  return found.every(Boolean);
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
    const rows = input.accountIds ? selectedRows(projectId, input.accountIds) : undefined;
    if (input.accountIds && (!rows || !(await allExist(deps, userId, projectId, shardsOf(project), rows)))) throw new NotFoundError(input.accountIds.length === 1 ? 'Account not found' : 'One of the accounts was not found in this project');
    if (rows && rows.length > Math.min(MAX_SELECTED_ACCOUNTS, ACCOUNT_ACTION_MAX)) throw new ConflictError(`At most ${ACCOUNT_ACTION_MAX} accounts per action.`);
    const busy = busyReason(project);
    if (busy) throw new ConflictError(busy);
    const total = rows ? rows.length : Number(project.accountCount ?? 0);
    if (total === 0) throw new ConflictError('This project has no accounts.');
    // Accounts on a platform are changed there first: a platform operation, Pro as provisioning is.
    const provisioned = typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;
    if (provisioned) assertApiIntegrations(await deps.plan(userId));
    const integrationName = provisioned ? await deps.integrationName(userId, String(project.integrationId)) : undefined;
    const action = input.action;
    const now = deps.now();
    const at = now.toISOString();
    const jobId = deps.newId(now);
    const item = {
      ...keys.accountAction(userId, jobId),
      entityType: 'AccountAction',
      id: jobId,
      userId,
      projectId,
      projectName: String(project.name),
      action,
      ...(rows ? { rows } : {}),
      ...(provisioned ? { integrationId: String(project.integrationId), ...(integrationName ? { integrationName } : {}) } : {}),
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
    const one = input.accountIds?.length === 1 ? input.accountIds[0] : undefined;
    await recordSecurityEvent(deps.events, {
      userId,
      type: ({ deactivate: 'accounts_deactivated', reactivate: 'accounts_reactivated', delete: 'accounts_deleted', update: 'accounts_updated_on_platform' } as const)[action],
      severity: action === 'delete' ? 'high' : 'medium',
      description: `${words.verb}: ${one ? `account ${one}` : rows ? plural(total, 'account') : `all ${plural(total, 'account')}`} of project "${String(project.name)}"${integrationName ? `, on ${integrationName} first` : ''}`,
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
 * The accounts the job left as they were, with the words: its failed entries in the project's ACT
 * state blocks (account-actions-chunk.ts), in row order, with each account's username.
 */
async function actionFailures(deps: Pick<ActionDeps, 'db' | 'tableName'>, job: Record<string, unknown>): Promise<NonNullable<AccountActionJob['failures']>> {
  const userId = String(job.userId);
  const projectId = String(job.projectId);
  const failed: { row: number; reason: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :act)',
        ExpressionAttributeValues: { ':pk': keys.accountStatesOf(userId, projectId).PK, ':act': 'ACT#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const block of page.Items ?? []) {
      for (const [row, entry] of Object.entries((block.rows ?? {}) as Record<string, StateEntry>)) {
        if (entry.actionRun === job.id && entry.actionResult === 'failed') failed.push({ row: Number(row), reason: String(entry.actionError ?? '') });
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  const shown = failed.sort((a, b) => a.row - b.row).slice(0, ACTION_FAILURES_SHOWN);
  const shards = Number(job.shards ?? 1);
  const accounts = await Promise.all(
    shown.map(async ({ row }) => (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.account(userId, projectId, row, shards), ProjectionExpression: 'id, username' }))).Item),
  );
  return shown.flatMap(({ reason }, i) => {
    const account = accounts[i];
    return account ? [{ accountId: String(account.id), username: String(account.username), reason }] : [];
  });
}
