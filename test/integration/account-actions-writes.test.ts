import { randomInt } from 'node:crypto';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountActionChunk } from '../../functions/account-actions/account-actions-chunk';
import { planAccountAction } from '../../functions/account-actions/account-actions';
import { getAccountAction, startAccountAction } from '../../functions/account-actions/account-action-routes';
import { timeOrderedId } from '../../functions/core/ids';
import type { ActionChunkMessage, ProvisioningMessage } from '../../functions/provisioning/provisioning-message';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { storedHistory } from '../support/stored-history';
import { StateBlockWriter } from '../../functions/accounts/account-state-writer';
import { keys } from '../../functions/core/keys';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import type { ProvisioningAdapter } from '../../functions/provisioning/provisioning-port';
import { until } from '../support/until';

/**
 * An account action's outcomes are written in batches (the ACT state blocks, 50 accounts to a
 * block), not in a transaction per account: deactivating a chunk of 250 accounts costs a handful
 * of writes. And under the delivery that dies after its outcomes but before their history items,
 * the next delivery writes each history item once. The chunk's functions are driven here with
 * the messages kept in the test (as the worker runs them), against the test stack's DynamoDB.
 */
const TABLE = 'bulkonboard';
const COUNT = 250;
const db = testDb();

/** The table, with every write command counted by name; `failHistory` makes the next write of history fail (a delivery that dies there). */
function countingDb() {
  const writes = new Map<string, number>();
  const state = { failHistory: false };
  const client = {
    send: (command: { constructor: { name: string }; input: unknown }) => {
      const name = command.constructor.name;
      if (!/^(Get|BatchGet|Query|Scan)Command$/.test(name)) writes.set(name, (writes.get(name) ?? 0) + 1);
      if (JSON.stringify(command.input).includes('"AccountHistory')) writes.set('history', (writes.get('history') ?? 0) + 1);
      // Each ACT state block's writes, by its key.
      const key = ((command.input as { Key?: { SK?: unknown }; Item?: { SK?: unknown } }).Key ?? (command.input as { Item?: { SK?: unknown } }).Item)?.SK;
      if (!/^(Get|BatchGet|Query|Scan)Command$/.test(name) && typeof key === 'string' && key.startsWith('ACT#')) writes.set(key, (writes.get(key) ?? 0) + 1);
      if (state.failHistory && name === 'BatchWriteCommand' && JSON.stringify(command.input).includes('"AccountHistoryBlock"')) {
        state.failHistory = false;
        return Promise.reject(new Error('the delivery died'));
      }
      return db.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, writes, state };
}

const startAction = async (user: ApiUser, projectId: string, body: Record<string, unknown>) => (await user.json<{ job: { id: string } }>(`/api/projects/${projectId}/account-actions`, { body })).job.id;
const waitForJob = (user: ApiUser, jobId: string) =>
  until('the action', () => user.json<{ status: string }>(`/api/account-actions/${jobId}`), (job) => job.status === 'completed', 90_000);
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;

describe('an account action writes its outcomes in batches', () => {
  let user: ApiUser;
  let project: Project;

  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Action writes', csvData: people(COUNT, 'Actwrites') } })).project;
    await until('the accounts', () => accountsOf(user, project.id), (accounts) => accounts.length === COUNT);
  });

  it(`deactivates ${COUNT} accounts in a handful of writes, each account and its history once, under a delivery that died before the history`, async () => {
    const { client, writes, state } = countingDb();
    const sent: ProvisioningMessage[] = [];
    const deps = { db: client, tableName: TABLE, queue: { send: async (messages: readonly ProvisioningMessage[]) => void sent.push(...messages) }, now: () => new Date() };
    const job = await startAccountAction({ ...deps, newId: timeOrderedId, events: { db, tableName: TABLE }, plan: async () => 'pro', integrationName: async () => undefined })(user.sub, project.id, { action: 'deactivate', filter: 'all' });
    await planAccountAction(deps)(user.sub, job.id);
    const chunks = sent.filter((m): m is ActionChunkMessage => m.type === 'action-chunk');
    expect(chunks).toHaveLength(1);
    const chunk = accountActionChunk({
      ...deps,
      cipher: () => Promise.reject(new Error('no platform')),
      integration: async () => undefined,
      adapterFor: () => {
        throw new Error('no platform');
      },
      pacingOf: () => ({ concurrency: 8 }),
    });

    // The first delivery dies after the outcomes were written, at their history items.
    state.failHistory = true;
    writes.clear();
    await expect(chunk(chunks[0]!)).rejects.toThrow('the delivery died');
    // 250 outcomes in 5 blocks of 50 (a block written at most a few times as answers come), the lease: no transaction, no write per account.
    expect(writes.get('TransactWriteCommand') ?? 0).toBe(0);
    expect((writes.get('UpdateCommand') ?? 0) + (writes.get('PutCommand') ?? 0)).toBeLessThanOrEqual(20);
    // Each block written once, when all its accounts of the delivery are decided (not a part of it with each 50 outcomes, then the rest).
    const blockWrites = [...writes].filter(([name]) => name.startsWith('ACT#'));
    expect(blockWrites).toHaveLength(COUNT / 50);
    expect(blockWrites.every(([, n]) => n === 1)).toBe(true);
    expect((await getAccountAction(deps)(user.sub, job.id)).done).toBe(0);

    // The next delivery finds every account decided, writes the history and counts the chunk:
    // the history of 250 accounts is one item per block of 50 accounts (5), put in one request, not one per account or block.
    writes.clear();
    await chunk(chunks[0]!);
    expect(writes.get('history')).toBe(1);
    expect(await getAccountAction(deps)(user.sub, job.id)).toMatchObject({ status: 'completed', total: COUNT, done: COUNT, failed: 0 });
    // A copy of it delivered again changes nothing.
    await chunk(chunks[0]!);
    expect(await getAccountAction(deps)(user.sub, job.id)).toMatchObject({ status: 'completed', done: COUNT });

    const accounts = await accountsOf(user, project.id);
    expect(accounts.filter((a) => a.isActive)).toEqual([]);
    const deactivated = (await storedHistory(db, TABLE, user.sub, project.id)).filter((h) => h.kind === 'deactivated');
    expect(deactivated).toHaveLength(COUNT);
    expect(new Set(deactivated.map((h) => h.row)).size).toBe(COUNT);
    const one = await user.json<{ entries: { kind: string }[] }>(`/api/accounts/${accounts[7]!.id}/history`);
    expect(one.entries.filter((e) => e.kind === 'deactivated')).toHaveLength(1);
  }, 120_000);

  it("the history drawer pages through an account's actions, each once, newest first, beside its other entries", async () => {
    const accounts = await accountsOf(user, project.id);
    const [account, neighbour] = [accounts[60]!, accounts[61]!];
    // Reactivate everyone, then deactivate one account and its neighbour in the same block, then reactivate the neighbour alone.
    await waitForJob(user, await startAction(user, project.id, { action: 'reactivate', filter: 'all' }));
    await waitForJob(user, await startAction(user, project.id, { action: 'deactivate', accountIds: [account.id, neighbour.id] }));
    await waitForJob(user, await startAction(user, project.id, { action: 'reactivate', accountIds: [neighbour.id] }));

    const pages: { kind: string; at: string; id: string }[][] = [];
    let cursor: string | undefined;
    do {
      const page = await user.json<{ entries: { kind: string; at: string; id: string }[]; nextCursor?: string }>(`/api/accounts/${account.id}/history?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(page.entries);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 20);
    const entries = pages.flat();
    expect(pages.every((page) => page.length === 1)).toBe(true);
    expect(entries.map((e) => e.kind)).toEqual(['deactivated', 'reactivated', 'deactivated', 'created']);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort().reverse());
    // The whole history in one page says the same; the neighbour's last reactivation is its own.
    expect((await user.json<{ entries: { kind: string }[] }>(`/api/accounts/${account.id}/history?limit=50`)).entries.map((e) => e.kind)).toEqual(['deactivated', 'reactivated', 'deactivated', 'created']);
    expect((await user.json<{ entries: { kind: string }[] }>(`/api/accounts/${neighbour.id}/history?limit=50`)).entries.map((e) => e.kind)).toEqual(['reactivated', 'deactivated', 'reactivated', 'deactivated', 'created']);
  }, 120_000);
});

describe('an account action on a platform', () => {
  it("writes each ACT block and its history once, when the platform's answers (in any order) have decided all its accounts", async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Action blocks', csvData: people(COUNT, 'Actblocks') } })).project;
    await until('the accounts', () => accountsOf(user, project.id), (accounts) => accounts.length === COUNT);
    // Provisioned to an integration (its PROV entries and the project's integration, as a run leaves them).
    const integrationId = 'fake-integration';
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, project.id), UpdateExpression: 'SET integrationId = :i, syncedCount = :n', ExpressionAttributeValues: { ':i': integrationId, ':n': COUNT } }));
    const prov = new StateBlockWriter({ db, tableName: TABLE }, { userId: user.sub, projectId: project.id, shards: 1 }, 'PROV');
    await prov.load(1, COUNT);
    for (let row = 1; row <= COUNT; row++) prov.set(row, { externalStatus: 'success', externalAccountId: `ext-${row}`, provisionRun: 'run1' });
    await prov.flush();

    const { client, writes } = countingDb();
    const sent: ProvisioningMessage[] = [];
    const deps = { db: client, tableName: TABLE, queue: { send: async (messages: readonly ProvisioningMessage[]) => void sent.push(...messages) }, now: () => new Date() };
    const job = await startAccountAction({ ...deps, newId: timeOrderedId, events: { db, tableName: TABLE }, plan: async () => 'pro', integrationName: async () => 'Fake' })(user.sub, project.id, { action: 'deactivate', filter: 'all' });
    await planAccountAction(deps)(user.sub, job.id);
    // A platform whose answers come back in their own order (8 in flight), as a real one's do.
    const patched: string[] = [];
    const adapter = {
      setActive: async (externalId: string) => {
        await new Promise((resolve) => setTimeout(resolve, randomInt(0, 6)));
        patched.push(externalId);
        return { kind: 'done', detail: 'Deactivated on Fake' };
      },
      close: () => undefined,
    } as unknown as ProvisioningAdapter;
    const chunk = accountActionChunk({
      ...deps,
      cipher: async () => ({ decrypt: () => '{}' }) as never,
      integration: async () => ({ id: integrationId, userId: user.sub, name: 'Fake', platform: 'custom', authConfigEncrypted: 'x' }) as unknown as IntegrationRecord,
      adapterFor: () => adapter,
      pacingOf: () => ({ concurrency: 8 }),
    });
    writes.clear();
    for (const message of sent.filter((m): m is ActionChunkMessage => m.type === 'action-chunk')) await chunk(message);
    expect(new Set(patched).size).toBe(COUNT);
    expect(await getAccountAction(deps)(user.sub, job.id)).toMatchObject({ status: 'completed', done: COUNT, onPlatform: COUNT, failed: 0 });
    // 5 blocks of 50 accounts: each written once; their 5 history items put a few blocks a request, not one request per block.
    const blockWrites = [...writes].filter(([name]) => name.startsWith('ACT#'));
    expect(blockWrites).toHaveLength(COUNT / 50);
    expect(blockWrites.filter(([, n]) => n !== 1)).toEqual([]);
    expect(writes.get('history')).toBeLessThanOrEqual(2);
    const deactivated = (await storedHistory(db, TABLE, user.sub, project.id)).filter((h) => h.kind === 'deactivated');
    expect(new Set(deactivated.map((h) => h.row)).size).toBe(COUNT);
    expect((await accountsOf(user, project.id)).filter((a) => a.isActive)).toEqual([]);
  }, 120_000);
});

describe("an account action's next chunk", () => {
  it('goes on the queue as soon as the chunk has handled its accounts, before the chunk is recorded done, once under redelivery', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    // More than two chunks of 500 rows: the first two queued at the start (a job on no platform keeps two), chunk 0 releases chunk 2.
    const count = 1001;
    const { project, job: bulk } = await user.json<{ project: Project; job: { id: string } }>('/api/bulk-create', { body: { projectName: 'Action successor', csvData: people(count, 'Successor') } });
    expect(await until('the accounts', () => user.json<{ status: string }>(`/api/bulk-jobs/${bulk.id}`), (j) => j.status === 'completed' || j.status === 'failed', 240_000)).toMatchObject({ status: 'completed' });
    // What the chunk's worker did, in order: its queue sends (the chunks sent) and the write that records a chunk done (its marker's doneAt).
    const order: string[] = [];
    const client = {
      send: (command: { input: unknown }) => {
        if (JSON.stringify(command.input).includes('"doneAt"')) order.push('recorded done');
        return db.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    const sent: ProvisioningMessage[] = [];
    const deps = {
      db: client,
      tableName: TABLE,
      queue: {
        send: async (messages: readonly ProvisioningMessage[]) => {
          for (const m of messages) if (m.type === 'action-chunk') order.push(`queued ${m.chunk}`);
          sent.push(...messages);
        },
      },
      now: () => new Date(),
    };
    const job = await startAccountAction({ ...deps, newId: timeOrderedId, events: { db, tableName: TABLE }, plan: async () => 'pro', integrationName: async () => undefined })(user.sub, project.id, { action: 'deactivate', filter: 'all' });
    await planAccountAction(deps)(user.sub, job.id);
    const chunks = () => sent.filter((m): m is ActionChunkMessage => m.type === 'action-chunk');
    expect(chunks().map((c) => c.chunk)).toEqual([0, 1]);
    const chunk = accountActionChunk({ ...deps, cipher: () => Promise.reject(new Error('no platform')), integration: async () => undefined, adapterFor: () => { throw new Error('no platform'); }, pacingOf: () => ({ concurrency: 8 }) });

    order.length = 0;
    await chunk(chunks()[0]!);
    expect(order).toEqual(['queued 2', 'recorded done']);
    // Delivered again once done: chunk 2 is not queued twice.
    await chunk(chunks()[0]!);
    expect(chunks().map((c) => c.chunk)).toEqual([0, 1, 2]);
    // The others, each as the queue hands it over: every chunk queued once.
    for (let i = 1; i < chunks().length; i++) await chunk(chunks()[i]!);
    expect(chunks().map((c) => c.chunk)).toEqual(chunks().map((_, i) => i));
    expect(await getAccountAction(deps)(user.sub, job.id)).toMatchObject({ status: 'completed', total: count, done: count, failed: 0, pending: 0 });
  }, 360_000);
});
