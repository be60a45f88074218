import { describe, expect, it } from 'vitest';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Project, SubscriptionStatus } from '../../shared/schemas/project';
import { dynamoBulkStore } from '../../functions/bulk/bulk-store';
import { GoneError, NotFoundError, PlanLimitError } from '../../functions/core/errors';
import { apiUser, people, testDb } from '../support/api';
import { keys } from '../../functions/core/keys';
import { MAX_ACCOUNT_SHARDS } from '../../functions/accounts/account-partitions';

const create = (rows: number, name = 'Limit test', prefix = 'P') => ({ body: { projectName: name, csvData: people(rows, prefix) } });

describe('free plan limits, enforced on the server', () => {
  it('allows 3 projects, then answers 403 with the spec message', async () => {
    const user = await apiUser();
    for (let i = 0; i < 3; i++) expect((await user.call('/api/bulk-create', create(2, `P${i}`, `u${i}x`))).status).toBe(200);
    const fourth = await user.call('/api/bulk-create', create(1));
    expect(fourth.status).toBe(403);
    expect(await fourth.json()).toMatchObject({ message: 'You have reached your project limit.' });
    const status = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(status.usage).toMatchObject({ canCreateProject: false, remainingProjects: 0, remainingAccounts: 294 });
  });

  it('allows at most 100 accounts per project and 300 in total', async () => {
    const user = await apiUser();
    const tooMany = await user.call('/api/bulk-create', create(101));
    expect(tooMany.status).toBe(403);
    expect(((await tooMany.json()) as { message: string }).message).toContain('at most 100 accounts per project');
    expect((await user.call('/api/bulk-create', create(100, 'A', 'a'))).status).toBe(200);
    expect((await user.call('/api/bulk-create', create(100, 'B', 'b'))).status).toBe(200);
    expect((await user.call('/api/bulk-create', create(99, 'C', 'c'))).status).toBe(200);
    const last = await user.call('/api/bulk-create', create(2, 'D', 'd'));
    expect(last.status).toBe(403);
    expect(await last.json()).toMatchObject({ message: 'You have reached your project limit.' });
  });

  it('refuses accounts beyond the 300 total with the account message', async () => {
    const user = await apiUser();
    expect((await user.call('/api/bulk-create', create(100, 'A', 'a'))).status).toBe(200);
    expect((await user.call('/api/bulk-create', create(100, 'B', 'b'))).status).toBe(200);
    const status = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(status.usage.remainingAccounts).toBe(100);
    expect((await user.call('/api/bulk-create', create(100, 'C', 'c'))).status).toBe(200);
    const after = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(after.usage).toMatchObject({ canCreateAccount: false, canCreateProject: false, remainingAccounts: 0 });
  });

  it('never overshoots with 50 concurrent requests at the limit', async () => {
    const user = await apiUser();
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => user.call('/api/bulk-create', create(80, `Race ${i}`, `r${i}x`))));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 403 || s === 409)).toBe(true);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThanOrEqual(1);
    expect(ok).toBeLessThanOrEqual(3);

    const projects = await user.json<Project[]>('/api/projects');
    expect(projects).toHaveLength(ok);
    const db = testDb();
    let stored = 0;
    for (const project of projects) {
      for (const pk of keys.accountPartitions(user.sub, project.id, MAX_ACCOUNT_SHARDS)) {
        const { Count = 0 } = await db.send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, Select: 'COUNT' }));
        stored += Count;
      }
    }
    expect(stored).toBe(ok * 80);
    expect(stored).toBeLessThanOrEqual(300);
    const { Item } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' } }));
    expect(Item).toMatchObject({ projectCount: ok, accountCount: stored });
    expect(Item).not.toHaveProperty('bulkLock');
  });
});

describe('the conditional reservation itself, raced (no lock in the way)', () => {
  /**
   * Every racer's lock has already expired (until < now), so the per-user lock cannot turn racers
   * into 409s: only the plan's count conditions decide, and exactly the remaining capacity wins.
   */
  async function race(accounts: number) {
    const user = await apiUser();
    const store = dynamoBulkStore(testDb(), 'bulkonboard');
    const usage = await store.usage(user.sub);
    const now = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => store.reserve(user.sub, usage, accounts, { owner: `racer-${i}`, now, until: now - 1 })));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as unknown);
    for (const reason of refused) expect(reason).toBeInstanceOf(PlanLimitError);
    const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, ConsistentRead: true }));
    return { won: results.length - refused.length, stored: Item ?? {} };
  }

  it('lets exactly the 3 projects of the free plan through', async () => {
    const { won, stored } = await race(10);
    expect(won).toBe(3);
    expect(stored).toMatchObject({ projectCount: 3, accountCount: 30 });
  });

  it('lets exactly as many through as the 300 accounts allow', async () => {
    // 140 accounts each: the account total (2 x 140 <= 300) binds before the project count.
    const { won, stored } = await race(140);
    expect(won).toBe(2);
    expect(stored).toMatchObject({ projectCount: 2, accountCount: 280 });
  });
});

describe('the reservation for a user who is gone or being deleted', () => {
  it('creates nothing for a user whose deletion was requested (410) or whose item is gone (404)', async () => {
    const user = await apiUser();
    const db = testDb();
    const store = dynamoBulkStore(db, 'bulkonboard');
    const usage = await store.usage(user.sub);
    const now = Date.now();
    const profile = async () => (await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), ConsistentRead: true }))).Item;
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET deletionRequestedAt = :at', ExpressionAttributeValues: { ':at': new Date(now).toISOString() } }));
    await expect(store.reserve(user.sub, usage, 10, { owner: 'late-worker', now, until: now + 60_000 })).rejects.toBeInstanceOf(GoneError);
    expect(await profile()).not.toHaveProperty('bulkLock');
    expect((await profile())?.projectCount ?? 0).toBe(0);

    // Erased: the reservation must not bring a stub user item back.
    await db.send(new DeleteCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub) }));
    await expect(store.reserve(user.sub, usage, 10, { owner: 'later-worker', now, until: now + 60_000 })).rejects.toBeInstanceOf(NotFoundError);
    expect(await profile()).toBeUndefined();
  });
});

describe('the current user as the browser sees it', () => {
  it('carries no usage counters, lock or billing ids', async () => {
    const user = await apiUser();
    await user.call('/api/bulk-create', create(2, 'Seen', 's'));
    const seen = await user.json<Record<string, unknown>>('/api/auth/user');
    for (const hidden of ['projectCount', 'accountCount', 'bulkLock', 'processingMs', 'processedAccounts', 'stripeCustomerId', 'PK', 'SK', 'entityType']) {
      expect(seen, hidden).not.toHaveProperty(hidden);
    }
    expect(seen).toMatchObject({ id: user.sub, subscriptionPlan: 'free' });
  });
});
