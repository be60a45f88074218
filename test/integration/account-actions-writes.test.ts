import { BatchWriteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountActionChunk } from '../../functions/account-actions/account-actions-chunk';
import { planAccountAction } from '../../functions/account-actions/account-actions';
import { getAccountAction, startAccountAction } from '../../functions/account-actions/account-action-routes';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import type { ActionChunkMessage, ProvisioningMessage } from '../../functions/provisioning/provisioning-message';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
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

/** The table, with every write command counted by name; `failNext` makes the next history BatchWriteItem fail (a delivery that dies there). */
function countingDb() {
  const writes = new Map<string, number>();
  const state = { failHistory: false };
  const client = {
    send: (command: { constructor: { name: string }; input: unknown }) => {
      const name = command.constructor.name;
      if (!/^(Get|BatchGet|Query|Scan)Command$/.test(name)) writes.set(name, (writes.get(name) ?? 0) + 1);
      if (state.failHistory && command instanceof BatchWriteCommand && JSON.stringify(command.input).includes('"AccountHistory"')) {
        state.failHistory = false;
        return Promise.reject(new Error('the delivery died'));
      }
      return db.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, writes, state };
}

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
    expect((await getAccountAction(deps)(user.sub, job.id)).done).toBe(0);

    // The next delivery finds every account decided, writes the history and counts the chunk.
    await chunk(chunks[0]!);
    expect(await getAccountAction(deps)(user.sub, job.id)).toMatchObject({ status: 'completed', total: COUNT, done: COUNT, failed: 0 });
    // A copy of it delivered again changes nothing.
    await chunk(chunks[0]!);
    expect(await getAccountAction(deps)(user.sub, job.id)).toMatchObject({ status: 'completed', done: COUNT });

    const accounts = await accountsOf(user, project.id);
    expect(accounts.filter((a) => a.isActive)).toEqual([]);
    const { Items: history = [] } = await db.send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountHistoryOf(user.sub, project.id, 1).PK }, ConsistentRead: true }),
    );
    const deactivated = history.filter((h) => h.kind === 'deactivated');
    expect(deactivated).toHaveLength(COUNT);
    expect(new Set(deactivated.map((h) => h.accountId)).size).toBe(COUNT);
    const one = await user.json<{ entries: { kind: string }[] }>(`/api/accounts/${accounts[7]!.id}/history`);
    expect(one.entries.filter((e) => e.kind === 'deactivated')).toHaveLength(1);
  }, 120_000);
});
