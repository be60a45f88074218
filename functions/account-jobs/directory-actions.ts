import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DirectorySelection } from '../../shared/schemas/account-directory';
import {
  DIRECTORY_ACTION_PROJECTS_MAX,
  DIRECTORY_FAILURES_SHOWN,
  type DirectoryAction,
  type DirectoryActionJob,
  type DirectoryActionPart,
  type DirectoryActionRequest,
} from '../../shared/schemas/directory-actions';
import type { PlanId } from '../../shared/plans';
import { isIdShaped } from '../../shared/schemas/ids';
import { plural } from '../../shared/text/plural';
import { ConflictError, HttpError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { parseAccountId } from '../accounts/account-record';
import { itemKey, itemsByKey } from '../core/items-by-key';
import { CHECKED_AT_START, MAX_SELECTED_ACCOUNTS } from './selection';
import { shardsOf } from '../accounts/account-partitions';
import type { RequestOrigin } from '../security/security-events';

/**
 * Actions over the Account Database (POST /api/directory-actions, docs/jobs.md "Actions over the
 * Account Database"): one of the lifecycle bulk actions on accounts of any of the user's projects.
 * No new kind of job: the selection (the rows ticked, or every account matching the filters and
 * term) is resolved when the action starts into each project's listed accounts, and each project
 * gets a job of the usual kind over those rows (`rows` on the job, as the project page's ticked
 * accounts). The set is frozen then: accounts that arrive afterwards (a new project, people added)
 * are in no job's rows. The action's item (`DIRACTION#<id>`) names its parts; its progress is the
 * sum of its jobs, read when asked.
 *
 * Each part's job id is chosen before anything starts and stored with the part ('starting'), and
 * the kind's start writes its job under that id. A request that dies while starting the parts
 * leaves some 'starting': the next read of the action, once no request can still be starting them
 * (STARTING_GRACE_MS), finds out for each whether its job exists (then it runs, and is shown) or
 * not (then nothing was done to its accounts: the part is 'not_started', in words). Conditional on
 * the part being as read, so two reads at once settle it once.
 */

/** Longer than any request may run (the route's function stops at 25 s, API Gateway at 30 s): a part 'starting' after it was left by a request that died. */
export const STARTING_GRACE_MS = 60_000;

/** Why the accounts of a part left 'starting' were not acted on. */
export const STOPPED_BEFORE_START = 'The action stopped before it started on this project: its accounts were not changed. Run it again for them.';

/** What a project's job shows of itself, whichever kind it is. */
export interface PartView {
  status: string;
  total: number;
  done: number;
  failed: number;
  onPlatform: number;
  skipped: number;
  reason?: string;
  failures?: { accountId: string; username: string; reason: string }[];
}

/** A kind as an action over the Account Database uses it: checks before anything starts, start over listed accounts, read. */
export interface PartKind {
  /** Throws the kind's own refusal (Pro) for this project before any job starts. */
  gate: (plan: PlanId, project: Record<string, unknown>) => void;
  /** Why the project cannot take this job now (another job holds it), before any starts. */
  busy: (project: Record<string, unknown>) => string | undefined;
  /** Starts the project's job under `jobId` (chosen by the action beforehand, so a read can find it). */
  start: (userId: string, project: Record<string, unknown>, accountIds: string[], request: DirectoryActionRequest, origin: RequestOrigin, jobId: string) => Promise<string>;
  read: (userId: string, jobId: string) => Promise<PartView | undefined>;
}

export interface DirectoryActionDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
  newId: (now: Date) => string;
  plan: (userId: string) => Promise<PlanId>;
  /** Every account id matching the filters and term now (at most `limit`; more: the caller says so). */
  matching: (userId: string, selection: DirectorySelection, limit: number) => Promise<{ ids: string[]; more: boolean }>;
  kinds: Record<DirectoryAction, PartKind>;
}

const ended = (status: string) => status === 'completed' || status === 'failed' || status === 'not_started';

/** The selection grouped by project, in the order first seen (the matching's order: newest first). */
function byProject(accountIds: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const id of new Set(accountIds)) {
    const parsed = parseAccountId(id);
    if (!parsed) throw new NotFoundError('One of the accounts was not found');
    const list = groups.get(parsed.projectId) ?? [];
    list.push(id);
    groups.set(parsed.projectId, list);
  }
  return groups;
}

export const startDirectoryAction =
  (deps: DirectoryActionDeps) =>
  async (userId: string, request: DirectoryActionRequest, origin: RequestOrigin): Promise<DirectoryActionJob> => {
    const kind = deps.kinds[request.action];
    let ids: string[];
    if (request.accountIds) ids = request.accountIds;
    else {
      const found = await deps.matching(userId, request.matching!, MAX_SELECTED_ACCOUNTS);
      if (found.more) throw new ConflictError(`More than ${MAX_SELECTED_ACCOUNTS.toLocaleString('en-US')} accounts match: narrow the filters, or act on a project from its page.`);
      ids = found.ids;
    }
    if (!ids.length) throw new ConflictError('No account matches: there is nothing to do.');
    const groups = byProject(ids);
    if (groups.size > DIRECTORY_ACTION_PROJECTS_MAX) throw new ConflictError(`These accounts are in ${groups.size} projects: one action takes the accounts of at most ${DIRECTORY_ACTION_PROJECTS_MAX}. Narrow the filters.`);
    const projectIds = [...groups.keys()];
    const found = await itemsByKey(deps.db, deps.tableName, projectIds.map((projectId) => keys.project(userId, projectId)));
    const projects = projectIds.map((projectId) => found.get(itemKey(keys.project(userId, projectId))));
    // Another user's project, or one deleted since: 404, as for one account of it.
    if (projects.some((project) => !project || project.entityType !== 'Project')) throw new NotFoundError('One of the accounts was not found');
    // Ticked rows: a short list is checked account by account (404 for one that is not there, as the project page's).
    if (request.accountIds && ids.length <= CHECKED_AT_START) {
      const shards = new Map(projects.map((project) => [String(project!.id), shardsOf(project!)]));
      const accountKeys = ids.map((id) => {
        const { projectId, row } = parseAccountId(id)!;
        return keys.account(userId, projectId, row, shards.get(projectId)!);
      });
      if ((await itemsByKey(deps.db, deps.tableName, accountKeys)).size < new Set(ids).size) throw new NotFoundError(ids.length === 1 ? 'Account not found' : 'One of the accounts was not found');
    }
    // Checked before any job starts: the plan (Pro for a platform), and no project held by another job.
    const plan = await deps.plan(userId);
    for (const project of projects) kind.gate(plan, project!);
    for (const project of projects) {
      const busy = kind.busy(project!);
      if (busy) throw new ConflictError(`Project "${String(project!.name)}": ${busy}`);
    }

    const now = deps.now();
    const at = now.toISOString();
    const id = deps.newId(now);
    // Each part's job id chosen now and stored before its start (its job is found by it if this request dies).
    const parts: DirectoryActionPart[] = projects.map((project) => ({ projectId: String(project!.id), projectName: String(project!.name ?? ''), total: groups.get(String(project!.id))!.length, status: 'starting', jobId: deps.newId(now) }));
    const item = { ...keys.directoryAction(userId, id), entityType: 'DirectoryAction', id, userId, action: request.action, total: ids.length, parts, createdAt: at, updatedAt: at };
    await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    // One project after the other: each start takes its project's lock and writes its job (and security event).
    for (const [n, part] of parts.entries()) {
      let set: Record<string, unknown>;
      try {
        const jobId = await kind.start(userId, projects[n]!, groups.get(part.projectId)!, request, origin, part.jobId!);
        set = { jobId, status: 'queued' };
      } catch (error) {
        // A project taken by another job since the check, or emptied: its accounts are not acted on, with the reason.
        if (!(error instanceof HttpError)) throw error;
        set = { status: 'not_started', reason: error.message };
      }
      await settlePart(deps, userId, id, n, part, set);
    }
    return directoryActionView(item, parts, new Map());
  };

/**
 * Part n moves on from 'starting' (to its job's status, or 'not_started' with the reason and no
 * job id), on condition that it is still 'starting' with the job id it was read with: false when
 * another request settled it first.
 */
async function settlePart(deps: Pick<DirectoryActionDeps, 'db' | 'tableName'>, userId: string, id: string, n: number, part: DirectoryActionPart, set: Record<string, unknown>): Promise<boolean> {
  const removeJob = set.status === 'not_started' && part.jobId !== undefined;
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.directoryAction(userId, id),
        UpdateExpression: `SET ${Object.keys(set).map((name) => `parts[${n}].#${name} = :${name}`).join(', ')}${removeJob ? ` REMOVE parts[${n}].jobId` : ''}`,
        ConditionExpression: `parts[${n}].#status = :starting AND ${part.jobId === undefined ? `attribute_not_exists(parts[${n}].jobId)` : `parts[${n}].jobId = :readJob`}`,
        ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(Object.keys(set).map((name) => [`#${name}`, name])) },
        ExpressionAttributeValues: { ':starting': 'starting', ...(part.jobId === undefined ? {} : { ':readJob': part.jobId }), ...Object.fromEntries(Object.entries(set).map(([name, value]) => [`:${name}`, value])) },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
  Object.assign(part, set);
  if (removeJob) delete part.jobId;
  return true;
}

/** The action as its parts' jobs say now (`reads`: each started part's job view): done + failed + skipped + pending = total. */
export function directoryActionView(item: Record<string, unknown>, parts: DirectoryActionPart[], reads: Map<string, PartView | undefined>): DirectoryActionJob {
  let done = 0;
  let failed = 0;
  let onPlatform = 0;
  let skipped = 0;
  const shown: DirectoryActionPart[] = [];
  for (const part of parts) {
    const job = part.jobId ? reads.get(part.jobId) : undefined;
    if (job) {
      done += job.done;
      onPlatform += job.onPlatform;
      if (job.status === 'failed') {
        // A job that stopped (its reason shown) left the accounts it had not reached as they were.
        failed += Math.max(job.failed, part.total - job.done);
      } else {
        failed += job.failed;
        // A completed job counts its listed accounts gone or no longer fitting its kind when reached as skipped.
        skipped += job.status === 'completed' ? Math.max(0, part.total - job.done - job.failed) : job.skipped;
      }
      shown.push({ ...part, status: job.status, ...(job.reason ? { reason: job.reason } : {}) });
    } else {
      if (part.status === 'not_started') failed += part.total;
      shown.push(part);
    }
  }
  const total = Number(item.total ?? 0);
  const over = parts.every((part) => ended((part.jobId ? reads.get(part.jobId)?.status : undefined) ?? part.status));
  return {
    id: String(item.id),
    action: item.action as DirectoryAction,
    status: over ? (done === 0 && failed > 0 && failed + skipped >= total ? 'failed' : 'completed') : 'running',
    total,
    done,
    onPlatform,
    failed,
    skipped,
    pending: over ? 0 : Math.max(0, total - done - failed - skipped),
    parts: shown,
    createdAt: String(item.createdAt),
  };
}

/** GET /api/directory-actions/{id}: the action and the sum of its jobs now; once over, the accounts not done (from each job's own list). */
export const getDirectoryAction =
  (deps: Pick<DirectoryActionDeps, 'db' | 'tableName' | 'kinds' | 'now'>) =>
  async (userId: string, id: string): Promise<DirectoryActionJob> => {
    const { Item: item } = isIdShaped(id) ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.directoryAction(userId, id), ConsistentRead: true })) : { Item: undefined };
    if (!item || item.entityType !== 'DirectoryAction') throw new NotFoundError('Action not found');
    const kind = deps.kinds[item.action as DirectoryAction];
    let parts = (Array.isArray(item.parts) ? item.parts : []) as DirectoryActionPart[];
    const reads = new Map<string, PartView | undefined>();
    const readJobs = async () => {
      // At most DIRECTORY_ACTION_PROJECTS_MAX jobs, a few at a time.
      const started = parts.filter((part) => part.jobId);
      for (let i = 0; i < started.length; i += 10) {
        await Promise.all(started.slice(i, i + 10).map(async (part) => reads.set(part.jobId!, await kind.read(userId, part.jobId!))));
      }
    };
    await readJobs();
    // Parts a request that died left 'starting' (no request can still be starting them): running if their job exists, else not started, in words.
    const left = parts.flatMap((part, n) => (part.status === 'starting' ? [{ part, n }] : []));
    if (left.length && deps.now().getTime() - Date.parse(String(item.createdAt)) > STARTING_GRACE_MS) {
      let raced = false;
      for (const { part, n } of left) {
        const job = part.jobId ? reads.get(part.jobId) : undefined;
        if (!(await settlePart(deps, userId, id, n, { ...part }, job ? { status: 'queued' } : { status: 'not_started', reason: STOPPED_BEFORE_START }))) raced = true;
      }
      // Settled by another read meanwhile: its parts as it left them.
      const { Item: settled } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.directoryAction(userId, id), ConsistentRead: true }));
      parts = (Array.isArray(settled?.parts) ? settled.parts : []) as DirectoryActionPart[];
      if (raced) await readJobs();
    }
    const view = directoryActionView(item, parts, reads);
    if (view.status !== 'running') {
      const failures: NonNullable<DirectoryActionJob['failures']> = [];
      for (const part of parts) {
        if (failures.length >= DIRECTORY_FAILURES_SHOWN) break;
        if (part.status === 'not_started') failures.push({ accountId: '', username: `${plural(part.total, 'account')} of ${part.projectName}`, reason: part.reason ?? '' });
        for (const failure of (part.jobId ? reads.get(part.jobId)?.failures : undefined) ?? []) if (failures.length < DIRECTORY_FAILURES_SHOWN) failures.push(failure);
      }
      if (failures.length) view.failures = failures;
    }
    return view;
  };
