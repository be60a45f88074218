import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/core/keys';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import type { DirectoryPage } from '../../shared/schemas/account-directory';
import type { Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, type ApiUser } from '../support/api';
import { accountActionFinished, sweepAt } from '../support/expiry';

/**
 * The Account Database's Active / Deactivated / Expired filters (docs/data-model.md, "Counts"):
 * the badge is exact from the projects' `deactivatedCount` / `expiredCount`, and equals the rows
 * the filter lists after each change of state: deactivate, reactivate, the project's expiry,
 * delete. The expiry is the hourly sweep called with its clock moved to a year of this file's own.
 */
const TABLE = 'bulkonboard';
const db = testDb();

const list = (user: ApiUser, params: Record<string, string | number>) =>
  user.json<DirectoryPage>(`/api/accounts?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);

/** Every page of a listing: the ids and the first page's badge. */
async function listed(user: ApiUser, params: Record<string, string | number>) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let first: DirectoryPage | undefined;
  let pages = 0;
  do {
    const page = await list(user, { limit: 2, ...params, ...(cursor ? { cursor } : {}) });
    first ??= page;
    ids.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
    expect(++pages).toBeLessThan(50);
  } while (cursor);
  return { ids, count: first!.count, countIs: first!.countIs };
}

async function act(user: ApiUser, projectId: string, body: Record<string, unknown>): Promise<AccountActionJob> {
  const started = await user.call(`/api/projects/${projectId}/account-actions`, { body });
  expect(started.status).toBe(202);
  return finished(user, ((await started.json()) as { job: AccountActionJob }).job.id);
}

const finished = accountActionFinished;

describe('the Active / Deactivated / Expired badge', () => {
  let user: ApiUser;
  let project: Project;
  let other: Project;
  let ids: string[];

  /** Each state's listed rows equal its exact count, across the user's projects and within each; the three add up. */
  async function expectStates(expected: { active: string[]; deactivated: string[]; expired: string[] }) {
    for (const state of ['active', 'deactivated', 'expired'] as const) {
      const all = await listed(user, { state });
      const mine = all.ids.filter((id) => ids.includes(id));
      expect(mine.sort(), state).toEqual([...expected[state]].sort());
      expect(all, state).toMatchObject({ count: all.ids.length, countIs: 'exact' });
      const inProject = await listed(user, { state, projectId: project.id });
      expect(inProject, state).toMatchObject({ ids: all.ids.filter((id) => ids.includes(id)), count: expected[state].length, countIs: 'exact' });
    }
    const everyone = await listed(user, {});
    const active = await listed(user, { state: 'active' });
    const deactivated = await listed(user, { state: 'deactivated' });
    expect(active.count + deactivated.count).toBe(everyone.count);
  }

  beforeAll(async () => {
    user = await apiUser();
    const created = await user.json<{ project: Project; accounts: { id: string }[] }>('/api/bulk-create', { body: { projectName: 'Badge states', expirationDate: '2035-05-10', csvData: people(6, 'Badge') } });
    project = created.project;
    ids = created.accounts.map((a) => a.id);
    // Another project of the user, never expired: its accounts stay active and are counted beside.
    other = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Badge others', csvData: people(2, 'Other') } })).project;
  });

  it('counts exactly after deactivate, reactivate, the expiry and delete, and the count is the rows listed', async () => {
    await expectStates({ active: ids, deactivated: [], expired: [] });

    expect(await act(user, project.id, { action: 'deactivate', accountIds: [ids[0], ids[1], ids[2]] })).toMatchObject({ status: 'completed', done: 3 });
    await expectStates({ active: ids.slice(3), deactivated: ids.slice(0, 3), expired: [] });

    expect(await act(user, project.id, { action: 'reactivate', accountIds: [ids[2]] })).toMatchObject({ status: 'completed', done: 1 });
    await expectStates({ active: ids.slice(2), deactivated: ids.slice(0, 2), expired: [] });

    // The project's date arrives: the expiry deactivates its accounts and marks every one Expired (those deactivated before too).
    const sweep = await sweepAt('2035-05-10T00:05:00Z');
    const started = sweep.started.find((s) => s.projectId === project.id);
    expect(started?.jobId).toBeDefined();
    expect(await finished(user, started!.jobId!)).toMatchObject({ status: 'completed', origin: 'expiry' });
    await expectStates({ active: [], deactivated: ids, expired: ids });

    // One expired account reactivated is active again (its project stays past its date).
    expect(await act(user, project.id, { action: 'reactivate', accountIds: [ids[5]] })).toMatchObject({ status: 'completed', done: 1 });
    await expectStates({ active: [ids[5]!], deactivated: ids.slice(0, 5), expired: ids.slice(0, 5) });

    // Deleted: two expired ones and the active one leave their counts.
    expect(await act(user, project.id, { action: 'delete', accountIds: [ids[0], ids[3], ids[5]] })).toMatchObject({ status: 'completed', done: 3 });
    ids = ids.filter((_, n) => ![0, 3, 5].includes(n));
    await expectStates({ active: [], deactivated: ids, expired: ids });
    const stored = (await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), ConsistentRead: true }))).Item!;
    expect(stored).toMatchObject({ accountCount: 3, deactivatedCount: 3, expiredCount: 3 });

    // The other project's accounts were active all along, each listed once.
    const active = await listed(user, { state: 'active' });
    expect(active.count).toBe(2);
    expect(active.ids).toHaveLength(2);
    expect((await listed(user, { state: 'active', projectId: other.id })).count).toBe(2);
  });
});
