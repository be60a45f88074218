import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Project, ProjectStatus } from '../../shared/schemas/project';
import type { projectEditSchema } from '../../shared/schemas/project';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';
import type * as z from 'zod';
import { readCounters } from '../analytics/analytics';
import { ConflictError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { reminderWrite } from './project-reminder';
import { isIdShaped } from '../../shared/schemas/ids';
import { projectView } from './project-item';
import type { PlanId } from '../../shared/plans';
import { assertApiIntegrations } from '../usage/plan-usage';

const sameGroups = (a: unknown, b: readonly string[] | undefined) => JSON.stringify(Array.isArray(a) ? a : []) === JSON.stringify(b ?? []);

export interface ProjectChangeDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
  /** The user's plan: naming platform groups is Pro (as provisioning is). */
  plan?: (userId: string) => Promise<PlanId>;
}

type ProjectEdit = z.output<typeof projectEditSchema>;

const CHANGED_MEANWHILE = 'This project was changed at the same time. Please try again.';

/** The project, strongly consistent; another user's (or no such) id: 404. */
async function readProject(deps: ProjectChangeDeps, userId: string, projectId: string): Promise<Record<string, unknown>> {
  const { Item } = isIdShaped(projectId) ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true })) : { Item: undefined };
  if (!Item) throw new NotFoundError('Project not found');
  // A project being deleted is not changed any more (its deletion ends with it gone, or with the accounts a platform kept).
  if (typeof Item.activeProjectDeletion === 'string') throw new ConflictError(PROJECT_BEING_DELETED);
  return Item;
}

/**
 * The analytics counters count an active project under its expiration date (STATS#EXPIRES#date:
 * 'Active Projects' is projects minus those whose date passed) and a completed one under
 * completedProjects. A change of date or status moves the project between them, in the same
 * transaction as the project's own change (functions/analytics/counters.ts). The counters of a
 * user whose older projects were never counted are filled first (readCounters), so what is moved
 * was counted.
 */
export function counterMoves(tableName: string, userId: string, before: { status: ProjectStatus; expirationDate?: string }, after: { status: ProjectStatus; expirationDate?: string }) {
  const updates: { Update: Record<string, unknown> }[] = [];
  const add = (key: { PK: string; SK: string }, attribute: string, n: number) =>
    updates.push({ Update: { TableName: tableName, Key: key, UpdateExpression: 'ADD #n :n SET entityType = :type', ExpressionAttributeNames: { '#n': attribute }, ExpressionAttributeValues: { ':n': n, ':type': 'UserStats' } } });
  const expiryOf = (state: { status: ProjectStatus; expirationDate?: string }) => (state.status === 'active' ? state.expirationDate : undefined);
  const [was, is] = [expiryOf(before), expiryOf(after)];
  if (was !== is) {
    if (was) add(keys.statsExpiry(userId, was), 'projects', -1);
    if (is) add(keys.statsExpiry(userId, is), 'projects', 1);
  }
  if (before.status !== after.status) add(keys.statsTotal(userId), 'completedProjects', after.status === 'completed' ? 1 : -1);
  return updates;
}

const statusOf = (item: Record<string, unknown>): ProjectStatus => (item.status === 'completed' ? 'completed' : 'active');
const dateOf = (item: Record<string, unknown>) => (typeof item.expirationDate === 'string' ? item.expirationDate : undefined);

/**
 * Writes the project's change with its counter moves, conditional on the status and expiration
 * date it was read with (so the moves are exactly right): a change that raced another gets 409.
 */
async function writeChange(
  deps: ProjectChangeDeps,
  userId: string,
  projectId: string,
  read: Record<string, unknown>,
  update: { set: Record<string, unknown>; remove: string[] },
  after: { status: ProjectStatus; expirationDate?: string },
  also: readonly Record<string, unknown>[] = [],
) {
  const names: Record<string, string> = { '#status': 'status', '#expirationDate': 'expirationDate' };
  const values: Record<string, unknown> = { ':readStatus': read.status ?? 'active' };
  const sets = Object.entries(update.set).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = update.remove.map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  const readDate = dateOf(read);
  if (readDate) values[':readDate'] = readDate;
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: deps.tableName,
              Key: keys.project(userId, projectId),
              UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
              ConditionExpression: `attribute_exists(PK) AND attribute_not_exists(activeProjectDeletion) AND ${read.status === undefined ? 'attribute_not_exists(#status)' : '#status = :readStatus'} AND ${readDate ? '#expirationDate = :readDate' : 'attribute_not_exists(#expirationDate)'}`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: read.status === undefined ? omit(values, ':readStatus') : values,
            },
          },
          ...counterMoves(deps.tableName, userId, { status: statusOf(read), ...(readDate ? { expirationDate: readDate } : {}) }, after),
          ...also,
        ] as never,
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') throw new ConflictError(CHANGED_MEANWHILE);
    throw error;
  }
}

const omit = (values: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(values).filter(([k]) => k !== key));

/** The most group names a project remembers having named (`groupsLeft`), the latest kept. */
const GROUPS_LEFT_KEPT = 50;

/**
 * The groups a project named once and no longer does (`groupsLeft`, case-insensitive as the
 * platforms match names): its accounts already on the platform leave them when a groups action
 * runs (account-actions, docs/lifecycle.md "Groups"). A group named again leaves the list.
 */
export function groupsLeftAfter(read: Record<string, unknown>, groups: readonly string[]): string[] {
  const named = new Set(groups.map((g) => g.toLowerCase()));
  const before = [...(Array.isArray(read.groupsLeft) ? read.groupsLeft.map(String) : []), ...(Array.isArray(read.groups) ? read.groups.map(String) : [])];
  const left = new Map<string, string>();
  for (const name of before) if (!named.has(name.toLowerCase())) left.set(name.toLowerCase(), name);
  return [...left.values()].slice(-GROUPS_LEFT_KEPT);
}

/**
 * PUT /api/projects/{id}: name, description, platform URL, account type and expiration date,
 * validated as at creation (projectEditSchema). Empty optional fields are removed. The accounts
 * keep the type they were created with; new people added later get the project's type then.
 */
export const editProject =
  (deps: ProjectChangeDeps) =>
  async (userId: string, projectId: string, edit: ProjectEdit): Promise<{ project: Project; changed: string[] }> => {
    const read = await readProject(deps, userId, projectId);
    await readCounters(deps, userId);
    const at = deps.now().toISOString();
    const set: Record<string, unknown> = { name: edit.name, accountType: edit.accountType, updatedAt: at };
    const remove: string[] = [];
    for (const field of ['description', 'platformUrl', 'expirationDate'] as const) {
      const value = edit[field];
      if (value) set[field] = value;
      else remove.push(field);
    }
    const changed: string[] = (['name', 'description', 'platformUrl', 'accountType', 'expirationDate'] as const).filter((field) => (read[field] ?? '') !== (edit[field] ?? ''));
    // Groups (absent from the request: unchanged). Naming or changing them is Pro, as provisioning is; removing them is not.
    if (edit.groups !== undefined && !sameGroups(read.groups, edit.groups)) {
      if (edit.groups.length && deps.plan) assertApiIntegrations(await deps.plan(userId));
      if (edit.groups.length) set.groups = edit.groups;
      else remove.push('groups');
      changed.push('groups');
      const left = groupsLeftAfter(read, edit.groups);
      if (left.length) set.groupsLeft = left;
      else if (Array.isArray(read.groupsLeft)) remove.push('groupsLeft');
    }
    if (edit.createGroups !== undefined && edit.createGroups !== (read.createGroups === true)) {
      if (edit.createGroups && deps.plan) assertApiIntegrations(await deps.plan(userId));
      if (edit.createGroups) set.createGroups = true;
      else remove.push('createGroups');
      changed.push('createGroups');
    }
    if (changed.includes('expirationDate')) {
      // A new date is a new expiry: the project enters the expiry index under it (or leaves it when
      // the date is removed) and is no longer 'Expired' (docs/lifecycle.md, "Expiry").
      if (edit.expirationDate) Object.assign(set, keys.projectExpiry(userId, projectId, edit.expirationDate));
      else remove.push('ExpiryPK', 'ExpirySK');
      remove.push('expiredAt');
    }
    // 'Remind account holders N days before' (absent from the request: unchanged; null: off).
    const readDays = typeof read.reminderDays === 'number' ? read.reminderDays : undefined;
    const days = edit.reminderDays === undefined ? readDays : (edit.reminderDays ?? undefined);
    if (days !== readDays) {
      if (days) set.reminderDays = days;
      else remove.push('reminderDays');
      changed.push('reminderDays');
    }
    // The reminder's template: one of the user's (another user's or a deleted one answers 404), null for the built-in text.
    const readTemplate = typeof read.reminderTemplateId === 'string' ? read.reminderTemplateId : undefined;
    if (edit.reminderTemplateId !== undefined && (edit.reminderTemplateId ?? undefined) !== readTemplate) {
      if (edit.reminderTemplateId) {
        const { Item: template } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.emailTemplate(userId, edit.reminderTemplateId), ConsistentRead: true }));
        if (!template) throw new NotFoundError('Template not found');
        set.reminderTemplateId = edit.reminderTemplateId;
      } else remove.push('reminderTemplateId');
      changed.push('reminderTemplateId');
    }
    const expirationDate = edit.expirationDate || undefined;
    // The reminder follows the date and N (moved, or gone with either); an unchanged one stays as it is (sent or waiting).
    const reminder = changed.includes('reminderDays') || changed.includes('expirationDate') ? [reminderWrite(deps.tableName, userId, projectId, expirationDate, days, at)] : [];
    await writeChange(deps, userId, projectId, read, { set, remove }, { status: statusOf(read), ...(expirationDate ? { expirationDate } : {}) }, reminder);
    const next: Record<string, unknown> = { ...read, ...set };
    for (const field of remove) delete next[field];
    return { project: projectView(next), changed };
  };

/**
 * PUT /api/projects/{id}/status: Complete (a completed project takes no new people: the bulk
 * creation refuses it with 409) or Reopen. Setting the status it has already changes nothing.
 */
export const setProjectStatus =
  (deps: ProjectChangeDeps) =>
  async (userId: string, projectId: string, status: ProjectStatus): Promise<{ project: Project; changed: boolean }> => {
    const read = await readProject(deps, userId, projectId);
    if (statusOf(read) === status) return { project: projectView(read), changed: false };
    await readCounters(deps, userId);
    const at = deps.now().toISOString();
    const set = { status, updatedAt: at, ...(status === 'completed' ? { completedAt: at } : {}) };
    const readDate = dateOf(read);
    await writeChange(deps, userId, projectId, read, { set, remove: status === 'active' ? ['completedAt'] : [] }, { status, ...(readDate ? { expirationDate: readDate } : {}) });
    const next: Record<string, unknown> = { ...read, ...set };
    if (status === 'active') delete next.completedAt;
    return { project: projectView(next), changed: true };
  };
