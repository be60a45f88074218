import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { StateBlockConflict, StateBlockWriter } from '../../functions/accounts/account-state-writer';
import { STATE_BLOCK_ROWS, stateBlockKey } from '../../functions/accounts/account-states';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { recordOf } from '../../functions/integrations/integration-record';
import { adapterFactory, pacingOf } from '../../functions/provisioning/adapters';
import { MAX_REQUEUES, OutcomeRecorder, provisionChunk, recordDeadChunk, WRITE_EVERY_RESULTS, type ProvisionDeps } from '../../functions/provisioning/provision-accounts';
import { chunkPlan, planRun, readJob, startProvisioning } from '../../functions/provisioning/provisioning-jobs';
import type { ProvisioningAdapter } from '../../functions/provisioning/provisioning-port';
import { sqsProvisioningQueue } from '../../functions/provisioning/sqs-provisioning-queue';
import { dynamoPlanReader } from '../../functions/usage/plan-store';
import type { Integration } from '../../shared/schemas/integrations';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { queueNoWorkerReads } from '../support/own-queue';

/**
 * A provisioning run records each account's result in the project's PROV state blocks, not on the
 * account items; every read of the accounts (project page, Account Database search) shows the
 * blocks. Two deliveries of one chunk, the first one's lease lapsed under it: the second records
 * its results and ends the chunk; the first one's writes fail on the blocks' versions, so it
 * overwrites nothing, throws (SQS delivers the message again) and that redelivery changes nothing.
 * The worker's functions are called here directly (on the stack's DynamoDB Local, its SCIM
 * directory and a queue of this test's own on its SQS), so the two deliveries can be interleaved.
 */
const TABLE = 'bulkonboard';
const stack = () => inject('stack');
// A queue no worker reads: what the deliveries send (requeues) stays there.
const ownQueue = queueNoWorkerReads('state-blocks-test');
let user: ApiUser;

beforeAll(async () => {
  user = await apiUser();
  await upgradeToPro(user);
});

const scimUsers = async (userName: string) => {
  const response = await fetch(`${stack().scim.url}/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`, { headers: { authorization: `Bearer ${stack().scim.token}` } });
  return ((await response.json()) as { Resources: { id: string }[] }).Resources;
};

/** A run of a new project of `count` accounts to the stack's SCIM directory, started and planned (one chunk), and the worker's deps. */
async function plannedRun(count: number, tag: string) {
  const db = testDb();
  const integration = await user.json<Integration>('/api/integrations', {
    body: { name: `Blocks directory ${tag}`, platform: 'custom', baseUrl: stack().scim.url, authMethod: 'bearer_token', authConfig: { token: stack().scim.token }, apiConfig: {} },
  });
  const created = await user.json<{ project: Project; accounts: AccountView[] }>('/api/bulk-create', { body: { projectName: `State blocks ${tag}`, csvData: people(count, `Blocks${tag}`) } });
  const projectId = created.project.id;
  const queue = sqsProvisioningQueue(ownQueue.sqs, ownQueue.url);
  const integrationOf = async (userId: string, id: string) => {
    const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.integration(userId, id), ConsistentRead: true }));
    return Item ? recordOf(Item) : undefined;
  };
  const run = await startProvisioning({ db, tableName: TABLE, queue, now: () => new Date(), newId: timeOrderedId, plan: dynamoPlanReader(db, TABLE), integration: integrationOf })(user.sub, projectId, {
    integrationId: integration.id,
    mode: 'provision',
  });
  await planRun({ db, tableName: TABLE, queue, now: () => new Date() })(user.sub, run.id);
  const job = (await readJob({ db, tableName: TABLE }, user.sub, run.id))!;
  const [message, ...more] = chunkPlan(user.sub, run.id, Number(job.shards), Number(job.maxRow));
  expect(more).toHaveLength(0);
  const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack().dataDir, 'encryption.key'), 'utf8')));
  const factory = adapterFactory({ allowedOrigins: [new URL(stack().scim.url).origin] });
  const deps = (now: () => Date, adapterFor: ProvisionDeps['adapterFor'] = factory): ProvisionDeps => ({
    db,
    tableName: TABLE,
    queue,
    now,
    cipher: async () => cipher,
    integration: integrationOf,
    adapterFor,
    pacingOf,
  });
  return { db, projectId, run, job, message: message!, deps, factory };
}

describe('provisioning results in state blocks', () => {
  it('a delivery whose lease lapsed cannot write over the newer delivery’s results; the pages and search show the blocks', async () => {
    const { db, projectId, run, job, message, deps, factory } = await plannedRun(5, 'Lease');
    // The second delivery comes after the first one's lease (150 s) lapsed.
    const later = new Date(Date.now() + 151_000);
    const second = provisionChunk(deps(() => later));
    let secondDone: Promise<void> | undefined;
    // The first delivery is held at its platform call until the second one has finished the chunk.
    const first = provisionChunk(
      deps(
        () => new Date(),
        (record, credentials, policy) => {
          const real = factory(record, credentials, policy);
          const held: ProvisioningAdapter = {
            ...real,
            capabilities: () => real.capabilities(),
            find: (person) => real.find(person),
            create: async (people) => {
              await (secondDone ??= second(message));
              return real.create(people);
            },
            undo: (id) => real.undo(id),
            setPassword: (id, person) => real.setPassword(id, person),
            close: () => real.close(),
          };
          return held;
        },
      ),
    );
    await expect(first(message)).rejects.toBeInstanceOf(StateBlockConflict);

    // The second delivery's results stand, counted once; nobody was created twice.
    expect(await user.json(`/api/provisioning-jobs/${run.id}`)).toMatchObject({ status: 'completed', total: 5, synced: 5, failed: 0, pending: 0 });
    const accounts = (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=100`)).items;
    expect(accounts).toHaveLength(5);
    for (const account of accounts) {
      const onServer = await scimUsers(account.username);
      expect(onServer).toHaveLength(1);
      expect(account).toMatchObject({ externalStatus: 'success', externalAccountId: onServer[0]!.id });
    }
    const { Item: block } = await db.send(new GetCommand({ TableName: TABLE, Key: stateBlockKey(user.sub, projectId, 'PROV', 1, Number(job.shards)), ConsistentRead: true }));
    expect(block).toMatchObject({ version: 1 });
    for (const entry of Object.values(block!.rows as Record<string, Record<string, unknown>>)) expect(entry).toMatchObject({ externalStatus: 'success', provisionRun: run.id, provisionedAt: later.toISOString() });

    // The results live in the block: the account items keep what they were created with.
    const { Item: item } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.account(user.sub, projectId, 1, Number(job.shards)), ConsistentRead: true }));
    expect(item).toMatchObject({ externalStatus: 'pending' });
    expect(item).not.toHaveProperty('provisionRun');
    expect(item).not.toHaveProperty('externalAccountId');

    // The Account Database (search) and the project's counts say the same.
    const found = await user.json<{ items: AccountView[] }>(`/api/accounts/search?q=${encodeURIComponent(accounts[0]!.username)}`);
    expect(found.items.find((a) => a.id === accounts[0]!.id)).toMatchObject({ externalStatus: 'success', externalAccountId: accounts[0]!.externalAccountId });
    const listed = (await user.json<Project[] | { items: Project[] }>('/api/projects')) as Project[] | { items: Project[] };
    expect((Array.isArray(listed) ? listed : listed.items).find((p) => p.id === projectId)).toMatchObject({ syncedCount: 5, syncFailedCount: 0, syncPendingCount: 0 });

    // SQS delivers the first one's message again: the chunk is done, nothing changes.
    await provisionChunk(deps(() => new Date()))(message);
    expect(await user.json(`/api/provisioning-jobs/${run.id}`)).toMatchObject({ status: 'completed', synced: 5, failed: 0 });
    const { Item: again } = await db.send(new GetCommand({ TableName: TABLE, Key: stateBlockKey(user.sub, projectId, 'PROV', 1, Number(job.shards)), ConsistentRead: true }));
    expect(again).toMatchObject({ version: 1 });
  });

  it('one call in flight, the first account refused (a protected user): it fails with the platform’s words once the others went through; the run does not pause', async () => {
    const { run, message, deps, factory } = await plannedRun(5, 'Protected');
    const accounts = (await user.json<Page<AccountView>>(`/api/projects/${run.projectId}/accounts?limit=100`)).items;
    const protectedName = accounts.find((a) => a.username.startsWith('blocksprotected0'))?.username ?? accounts[0]!.username;
    const refusedCalls: string[] = [];
    // The stack's SCIM directory, except for one user the platform refuses with 403 (as a
    // directory refuses a protected account to an admin who may create others).
    const refusing: ProvisionDeps['adapterFor'] = (record, credentials, policy) => {
      const real = factory(record, credentials, policy);
      return {
        ...real,
        // A platform without SCIM bulk: one account a call, so the lane's first call is the refused account alone.
        capabilities: async () => ({ ...(await real.capabilities()), batchSize: 1 }),
        create: async (people) => {
          const others = people.filter((p) => p.username !== protectedName);
          const answers = others.length ? await real.create(others) : [];
          return people.map((p) => {
            if (p.username !== protectedName) return answers.shift()!;
            refusedCalls.push(p.username);
            return { kind: 'failed', retryable: false, authRefused: true, message: 'HTTP 403: This user may not be changed by this client' };
          });
        },
      };
    };
    await provisionChunk({ ...deps(() => new Date(), refusing), pacingOf: () => ({ concurrency: 1 }) })(message);
    expect(await user.json(`/api/provisioning-jobs/${run.id}`)).toMatchObject({ status: 'completed', total: 5, synced: 4, failed: 1, pending: 0 });
    const after = (await user.json<Page<AccountView>>(`/api/projects/${run.projectId}/accounts?limit=100`)).items;
    expect(after.find((a) => a.username === protectedName)).toMatchObject({ externalStatus: 'failed', externalError: 'HTTP 403: This user may not be changed by this client' });
    // The run kept its block's Sync Failed list in the block's write: the Account Database reads the failure there.
    const failedRow = Number(after.find((a) => a.username === protectedName)!.id.split('.')[1]);
    const { Item: list } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.accountStatusList(user.sub, run.projectId, 'failed', 1, 0), ConsistentRead: true }));
    expect(list?.rows).toEqual([failedRow]);
    const directory = await user.json<{ items: AccountView[]; count: number }>(`/api/accounts?platformStatus=failed&projectId=${run.projectId}`);
    expect(directory.items.map((a) => a.username)).toEqual([protectedName]);
    expect(directory.count).toBe(1);
    // Refused twice first (nothing had shown the credentials work), then twice after the others.
    expect(refusedCalls).toHaveLength(4);
  });

  it('a chunk the platform kept waiting too long, and a dead-lettered chunk, fail their accounts with the reason through the blocks; counts add up', async () => {
    const waited = await plannedRun(3, 'Waited');
    await provisionChunk(waited.deps(() => new Date()))({ ...waited.message, requeues: MAX_REQUEUES + 1 });
    expect(await user.json(`/api/provisioning-jobs/${waited.run.id}`)).toMatchObject({ status: 'completed', total: 3, synced: 0, failed: 3, pending: 0 });
    for (const account of (await user.json<Page<AccountView>>(`/api/projects/${waited.projectId}/accounts?limit=100`)).items) {
      expect(account).toMatchObject({ externalStatus: 'failed', externalError: 'The platform kept asking us to wait (HTTP 429) for too long. Use Retry failed later.' });
      expect(await scimUsers(account.username)).toHaveLength(0);
    }

    const dead = await plannedRun(3, 'Dead');
    await recordDeadChunk(dead.deps(() => new Date()))(dead.message);
    expect(await user.json(`/api/provisioning-jobs/${dead.run.id}`)).toMatchObject({ status: 'completed', total: 3, synced: 0, failed: 3, pending: 0 });
    const listed = (await user.json<Project[] | { items: Project[] }>('/api/projects')) as Project[] | { items: Project[] };
    expect((Array.isArray(listed) ? listed : listed.items).find((p) => p.id === dead.projectId)).toMatchObject({ accountCount: 3, syncedCount: 0, syncFailedCount: 3, syncPendingCount: 0 });
    for (const account of (await user.json<Page<AccountView>>(`/api/projects/${dead.projectId}/accounts?limit=100`)).items) {
      expect(account).toMatchObject({ externalStatus: 'failed', externalError: 'Provisioning stopped on our side after repeated errors. Use Retry failed to try again.' });
    }
    // Delivered to the dead-letter worker again: nothing changes.
    await recordDeadChunk(dead.deps(() => new Date()))(dead.message);
    expect(await user.json(`/api/provisioning-jobs/${dead.run.id}`)).toMatchObject({ status: 'completed', synced: 0, failed: 3 });
  });

  it('results arriving a few at a time are written about a block at a time, not once per arrival', async () => {
    const db = testDb();
    const target = { userId: `recorder-${Date.now()}`, projectId: 'p1', shards: 1 };
    const states = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    await states.load(1, 250);
    // A clock that stands still: only the count of results not written yet decides.
    const recorder = new OutcomeRecorder({ now: () => new Date() }, { id: 'run1', mode: 'provision' }, states, () => 0);
    for (let row = 1; row <= 250; row += 8) {
      const rows = Array.from({ length: Math.min(8, 251 - row) }, (_, i) => row + i);
      recorder.add(rows.map((r) => ({ account: { row: r, externalStatus: 'pending' }, outcome: { kind: 'created', externalId: `ext-${r}` } })));
      await new Promise((r) => setImmediate(r));
    }
    await recorder.written();
    const blocks = await Promise.all(
      Array.from({ length: 250 / STATE_BLOCK_ROWS }, async (_, i) => (await db.send(new GetCommand({ TableName: TABLE, Key: stateBlockKey(target.userId, target.projectId, 'PROV', i * STATE_BLOCK_ROWS + 1, 1), ConsistentRead: true }))).Item!),
    );
    for (const block of blocks) expect(Object.values(block.rows as object)).toHaveLength(STATE_BLOCK_ROWS);
    // 32 arrivals of 8; a write per WRITE_EVERY_RESULTS results and one at the end, each write
    // taking the blocks changed since: a block is written two or three times (three when a write
    // was still under way as the next one's results arrived: on a busy machine), never once per
    // arrival (a block of 50 rows gets 7 arrivals).
    const writes = blocks.reduce((sum, block) => sum + Number(block.version), 0);
    expect(writes).toBeLessThanOrEqual(Math.ceil(250 / WRITE_EVERY_RESULTS) * 2 + 1);
    expect(Math.max(...blocks.map((block) => Number(block.version)))).toBeLessThanOrEqual(3);
  });

  it('a chunk loads only its own shard’s blocks of its rows', async () => {
    const db = testDb();
    const target = { userId: `shards-${Date.now()}`, projectId: 'p1', shards: 3 };
    const all = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    await all.load(1, 450);
    for (let row = 1; row <= 450; row++) all.set(row, { externalStatus: 'success', provisionRun: 'run1' });
    await all.flush();
    const one = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    const entries = await one.load(1, 450, 1);
    expect([...entries.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, i) => i * 3 + 1));
  });
});
