import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import type { DirectoryPage } from '../../shared/schemas/account-directory';
import type { DirectoryActionJob } from '../../shared/schemas/directory-actions';
import type { Integration } from '../../shared/schemas/integrations';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { timeOrderedId } from '../../functions/core/ids';
import { STOPPED_BEFORE_START } from '../../functions/account-jobs/directory-actions';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import { apiUser, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { localScimDirectory } from '../support/provisioned-project';
import { until } from '../support/until';

/**
 * Acting on the Account Database (POST /api/directory-actions): the ticked rows or "all N
 * matching" the filters and term, across projects, through the local stack's API, queue and
 * workers. The set is fixed at the start: accounts arriving afterwards are not acted on.
 */
const tag = () => randomUUID().replaceAll('-', '').slice(0, 8);
const person = (first: string, last: string) => ({ firstName: first, lastName: last, email: `${first}.${last}.${tag()}@example.com`.toLowerCase() });

async function created(user: ApiUser, projectName: string, rows: { firstName: string; lastName: string; email: string }[], extra: Record<string, unknown> = {}) {
  const response = await user.call('/api/bulk-create', { body: { projectName, csvData: rows, ...extra } });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as { project: Project; summary: { provisioningJobId?: string } };
}
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;

async function start(user: ApiUser, body: Record<string, unknown>): Promise<DirectoryActionJob> {
  const response = await user.call('/api/directory-actions', { body });
  expect(response.status, await response.clone().text()).toBe(202);
  return ((await response.json()) as { action: DirectoryActionJob }).action;
}

/** The action until it is over; every account is accounted for at every moment. */
const finished = (user: ApiUser, id: string) =>
  until(
    'the action over the Account Database',
    async () => {
      const action = await user.json<DirectoryActionJob>(`/api/directory-actions/${id}`);
      expect(action.done + action.failed + action.skipped + action.pending).toBe(action.total);
      return action;
    },
    (action) => action.status !== 'running',
  );

const list = (user: ApiUser, params: Record<string, string | number>) => user.json<DirectoryPage>(`/api/accounts?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);

describe('POST /api/directory-actions', () => {
  let bob: ApiUser;
  beforeAll(async () => {
    bob = await apiUser();
  });

  it('deactivates all accounts matching across two projects, exactly the set of the start while new accounts arrive', async () => {
    const alice = await apiUser();
    const first = await created(alice, `First ${tag()}`, [1, 2, 3].map((n) => person(`Ann${n}`, 'Frozen')));
    const second = await created(alice, `Second ${tag()}`, [1, 2, 3, 4].map((n) => person(`Bea${n}`, 'Frozen')));
    const badge = await list(alice, { state: 'active', q: 'frozen' });
    expect(badge.items).toHaveLength(7);

    const action = await start(alice, { action: 'deactivate', matching: { state: 'active', q: 'frozen' } });
    expect(action).toMatchObject({ action: 'deactivate', total: 7 });
    expect(action.parts.map((part) => [part.projectId, part.total]).sort()).toEqual([[first.project.id, 3], [second.project.id, 4]].sort());
    // New accounts arrive while it runs (one creation of a user at a time): people added to a project
    // it acts on, and a new project; all match the filters and term.
    const added = await created(alice, 'ignored', [person('Cid1', 'Frozen'), person('Cid2', 'Frozen')], { projectId: first.project.id });
    const third = await created(alice, `Third ${tag()}`, [person('Dee1', 'Frozen')]);
    expect(added.project.id).toBe(first.project.id);

    const done = await finished(alice, action.id);
    expect(done).toMatchObject({ status: 'completed', total: 7, done: 7, failed: 0, skipped: 0, pending: 0 });
    const firstAccounts = await accountsOf(alice, first.project.id);
    expect(firstAccounts.map((a) => [a.firstName, a.isActive])).toEqual([['Ann1', false], ['Ann2', false], ['Ann3', false], ['Cid1', true], ['Cid2', true]]);
    expect((await accountsOf(alice, second.project.id)).every((a) => !a.isActive)).toBe(true);
    expect((await accountsOf(alice, third.project.id)).every((a) => a.isActive)).toBe(true);
    // The directory shows it: the 3 arrivals are the active ones now.
    expect((await list(alice, { state: 'active', q: 'frozen' })).items.map((a) => a.firstName).sort()).toEqual(['Cid1', 'Cid2', 'Dee1']);
  });

  it('acts on the ticked rows of several projects; another user cannot act on them or read the action', async () => {
    const alice = await apiUser();
    const one = await created(alice, `One ${tag()}`, [1, 2].map((n) => person(`Eve${n}`, 'Ticked')));
    const two = await created(alice, `Two ${tag()}`, [1, 2].map((n) => person(`Fay${n}`, 'Ticked')));
    const ids = [(await accountsOf(alice, one.project.id))[1]!.id, (await accountsOf(alice, two.project.id))[0]!.id];

    // Bob: Alice's ids name nothing of his (404), and nothing changes; her action is not his to read.
    expect((await bob.call('/api/directory-actions', { body: { action: 'delete', accountIds: ids } })).status).toBe(404);
    expect((await alice.call('/api/directory-actions', { body: { action: 'delete', accountIds: [...ids, `${one.project.id}.000099`] } })).status).toBe(404);
    for (const body of [{ action: 'explode', accountIds: ids }, { action: 'delete' }, { action: 'delete', accountIds: ids, matching: {} }, { action: 'delete', accountIds: ['no#such'] }, { action: 'delete', matching: { state: 'sleeping' } }]) {
      const response = await alice.call('/api/directory-actions', { body });
      expect([400, 404], JSON.stringify(body)).toContain(response.status);
    }

    const action = await start(alice, { action: 'delete', accountIds: ids });
    expect((await bob.call(`/api/directory-actions/${action.id}`)).status).toBe(404);
    expect(await finished(alice, action.id)).toMatchObject({ status: 'completed', total: 2, done: 2, failed: 0 });
    expect((await accountsOf(alice, one.project.id)).map((a) => a.firstName)).toEqual(['Eve1']);
    expect((await accountsOf(alice, two.project.id)).map((a) => a.firstName)).toEqual(['Fay2']);
    expect((await alice.call('/api/directory-actions/no%23such')).status).toBe(404);
  });

  it('on the free plan: deactivates and deletes; sending credentials and platform retries are Pro', async () => {
    const free = await apiUser();
    await created(free, `Free ${tag()}`, [1, 2].map((n) => person(`Gus${n}`, 'Freeplan')));
    for (const action of ['send', 'retry']) {
      const response = await free.call('/api/directory-actions', { body: { action, matching: { q: 'freeplan' } } });
      expect(response.status, action).toBe(403);
    }
    const action = await start(free, { action: 'deactivate', matching: { q: 'freeplan' } });
    expect(await finished(free, action.id)).toMatchObject({ status: 'completed', done: 2 });
    // Nothing left to match: nothing to start.
    expect((await free.call('/api/directory-actions', { body: { action: 'deactivate', matching: { q: 'freeplan', state: 'active' } } })).status).toBe(409);
  });

  it('settles the parts a dying request left starting: a part whose job was written runs, one without is not started, in words, once', async () => {
    const alice = await apiUser();
    const one = await created(alice, `Left ${tag()}`, [1, 2].map((n) => person(`Ida${n}`, 'Left')));
    const two = await created(alice, `Right ${tag()}`, [1, 2, 3].map((n) => person(`Jan${n}`, 'Right')));
    const three = await created(alice, `Old ${tag()}`, [person('Kim1', 'Old')]);
    // Each part's job is written under the id the action chose and stored first.
    const normal = await start(alice, { action: 'deactivate', accountIds: [(await accountsOf(alice, three.project.id))[0]!.id] });
    expect(normal.parts[0]!.jobId).toBeDefined();
    expect(await alice.json<AccountActionJob>(`/api/account-actions/${normal.parts[0]!.jobId}`)).toMatchObject({ projectId: three.project.id, total: 1 });

    // A request that died half-way: the first project's job started (its id chosen and written, the
    // part not updated), the second's never did; a part from before ids were chosen first has none.
    const started = await alice.call(`/api/projects/${one.project.id}/account-actions`, { body: { action: 'deactivate', filter: 'all' } });
    const job = ((await started.json()) as { job: AccountActionJob }).job;
    const write = async (createdAt: Date) => {
      const id = timeOrderedId(createdAt);
      await testDb().send(
        new PutCommand({
          TableName: 'bulkonboard',
          Item: {
            ...keys.directoryAction(alice.sub, id),
            entityType: 'DirectoryAction',
            id,
            userId: alice.sub,
            action: 'deactivate',
            total: 6,
            parts: [
              { projectId: one.project.id, projectName: one.project.name, total: 2, status: 'starting', jobId: job.id },
              { projectId: two.project.id, projectName: two.project.name, total: 3, status: 'starting', jobId: timeOrderedId(createdAt) },
              { projectId: three.project.id, projectName: three.project.name, total: 1, status: 'starting' },
            ],
            createdAt: createdAt.toISOString(),
            updatedAt: createdAt.toISOString(),
          },
        }),
      );
      return id;
    };
    // Within the time a request may still be starting them: left as they are.
    const recent = await write(new Date());
    expect(await alice.json<DirectoryActionJob>(`/api/directory-actions/${recent}`)).toMatchObject({ status: 'running', pending: 6 });

    const left = await write(new Date(Date.now() - 5 * 60_000));
    // Two reads at once settle each part once, and agree.
    const [a, b] = await Promise.all([alice.json<DirectoryActionJob>(`/api/directory-actions/${left}`), alice.json<DirectoryActionJob>(`/api/directory-actions/${left}`)]);
    for (const view of [a, b]) {
      expect(view.parts.map((part) => part.status === 'not_started')).toEqual([false, true, true]);
      expect(view.parts[1]).toMatchObject({ status: 'not_started', reason: STOPPED_BEFORE_START });
      expect(view.parts[1]!.jobId).toBeUndefined();
    }
    const done = await finished(alice, left);
    expect(done).toMatchObject({ status: 'completed', total: 6, done: 2, failed: 4, skipped: 0, pending: 0 });
    expect(done.failures).toEqual(expect.arrayContaining([expect.objectContaining({ username: `3 accounts of ${two.project.name}`, reason: STOPPED_BEFORE_START })]));
    expect((await accountsOf(alice, one.project.id)).every((account) => !account.isActive)).toBe(true);
    expect((await accountsOf(alice, two.project.id)).every((account) => account.isActive)).toBe(true);
    expect((await bob.call(`/api/directory-actions/${left}`)).status).toBe(404);
  });

  it('pages a term with filters beyond the search’s first 50 hits, each account once, and acts on all of them', async () => {
    const alice = await apiUser();
    const many = await created(alice, `Many ${tag()}`, Array.from({ length: 64 }, (_, n) => person(`Hal${n}`, 'Common')));
    // A few whose first name also starts with the term: found by two indexes, listed once.
    await created(alice, `Echo ${tag()}`, [person('Commonwealth', 'Common'), person('Common', 'Other')]);
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(alice, { q: 'common', state: 'active', limit: 25, ...(cursor ? { cursor } : {}) });
      ids.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor;
      expect(++pages).toBeLessThan(20);
    } while (cursor);
    expect(ids).toHaveLength(66);
    expect(new Set(ids).size).toBe(66);
    // A cursor of another term continues nothing.
    const first = await list(alice, { q: 'common', limit: 25 });
    expect(first).toMatchObject({ countIs: 'at-least' });
    expect((await alice.call(`/api/accounts?q=hal&cursor=${first.nextCursor}`)).status).toBe(400);

    const action = await start(alice, { action: 'deactivate', matching: { q: 'common' } });
    expect(action.total).toBe(66);
    expect(await finished(alice, action.id)).toMatchObject({ status: 'completed', done: 66 });
    expect((await accountsOf(alice, many.project.id)).every((a) => !a.isActive)).toBe(true);
  });

  it('retries the accounts whose sync failed, from the Account Database, on the local SCIM directory', async () => {
    const { scim } = inject('stack');
    const alice = await apiUser();
    await upgradeToPro(alice);
    const suffix = tag().replace(/\d/g, 'x');
    const people = [person('Ivy', `Retry${suffix}`), person('Jon', `Retry${suffix}`), person('Kim', `Retry${suffix}`)];
    // Someone else holds Jon's user name on the directory: his sync fails.
    const held = await fetch(`${scim.url}/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${scim.token}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: baseUsername('Jon', `Retry${suffix}`, usernameYear(new Date())), emails: [{ value: `someone.else.${people[1]!.email}`, primary: true }], active: true }),
    });
    expect(held.status).toBe(201);
    const integration = await alice.json<Integration>('/api/integrations', { body: localScimDirectory() });
    const project = await created(alice, `Retry ${suffix}`, people, { apiIntegrationId: integration.id, createExternalAccounts: true });
    await until('the provisioning run', () => alice.json<ProvisioningJob>(`/api/provisioning-jobs/${project.summary.provisioningJobId!}`), (r) => r.status === 'completed');
    const failed = await list(alice, { platformStatus: 'failed', q: `retry${suffix}` });
    expect(failed).toMatchObject({ count: 1, countIs: 'exact' });
    expect(failed.items.map((a) => a.firstName)).toEqual(['Jon']);

    // The name is free again: the retry creates him.
    const heldId = ((await held.json()) as { id: string }).id;
    expect((await fetch(`${scim.url}/Users/${heldId}`, { method: 'DELETE', headers: { authorization: `Bearer ${scim.token}` } })).status).toBe(204);
    const action = await start(alice, { action: 'retry', matching: { platformStatus: 'failed', q: `retry${suffix}` } });
    expect(action.total).toBe(1);
    expect(await finished(alice, action.id)).toMatchObject({ status: 'completed', total: 1, done: 1, failed: 0 });
    expect((await list(alice, { platformStatus: 'success', q: `retry${suffix}` })).items.map((a) => a.firstName).sort()).toEqual(['Ivy', 'Jon', 'Kim']);
  });
});
