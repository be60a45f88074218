import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { takeIntegrationTurn, TURN_FENCE_MS, TURN_HEARTBEAT_MS, TURN_LEASE_MS, TurnLost, withRequestTurn, type Every, type IntegrationTurn, type TurnDeps } from '../../functions/account-jobs/integration-turn';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { ConflictError } from '../../functions/core/errors';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { recordOf } from '../../functions/integrations/integration-record';
import { adapterFactory, pacingOf } from '../../functions/provisioning/adapters';
import { provisionChunk, type ProvisionDeps } from '../../functions/provisioning/provision-accounts';
import { chunkPlan, planRun, readJob, startProvisioning } from '../../functions/provisioning/provisioning-jobs';
import type { ProvisioningAdapter } from '../../functions/provisioning/provisioning-port';
import { sqsProvisioningQueue } from '../../functions/provisioning/sqs-provisioning-queue';
import { dynamoPlanReader } from '../../functions/usage/plan-store';
import type { Integration } from '../../shared/schemas/integrations';
import type { Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { queueNoWorkerReads } from '../support/own-queue';
import { until } from '../support/until';

/**
 * The integration's turn (functions/account-jobs/integration-turn.ts) is a short lease that a live
 * holder's heartbeat renews: a crashed holder blocks its integration for one lease (10 s), not the
 * worker's 150 s; a holder whose lease was taken (or is lapsing unrenewed) starts no more calls;
 * a request (the dry run, the connection test) gets the turn from a running job at the job's next
 * heartbeat, and jobs wait while it has it. Clocks are moved (each holder's `now`) and heartbeats
 * fired by the test (`every`), never waited for.
 */
const TABLE = 'bulkonboard';
const stack = () => inject('stack');
// A queue no worker reads: what the deliveries send (requeues, waits) stays there.
const ownQueue = queueNoWorkerReads('integration-turn-test');
let user: ApiUser;

beforeAll(async () => {
  user = await apiUser();
  await upgradeToPro(user);
});

/** A heartbeat timer the test fires by hand; a crashed holder's is never fired. */
function manualBeat(): { every: Every; beat: () => Promise<void> } {
  const ticks: (() => void)[] = [];
  return {
    every: (_ms, tick) => {
      ticks.push(tick);
      return () => ticks.splice(ticks.indexOf(tick), 1);
    },
    // The tick starts a renewal; a turn's `give` waits for it, so a give after the beat sees its answer.
    beat: async () => {
      for (const tick of [...ticks]) tick();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}
const neverBeats: Every = () => () => undefined;

/** A holder's deps on the stack's DynamoDB: its own clock (ms), its own heartbeat. */
function holderDeps(at: { ms: number }, every: Every): TurnDeps {
  return { db: testDb(), tableName: TABLE, now: () => new Date(at.ms), every };
}

const turnItem = async (integrationId: string) =>
  (await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.integrationTurn(user.sub, integrationId), ConsistentRead: true }))).Item;

const pacing = { requestsPerMinute: 600, concurrency: 4 };
let ids = 0;
const integrationId = () => `01TURNTEST${String(Date.now())}${String(ids++).padStart(4, '0')}`;

describe("the integration's turn: a short lease, a heartbeat, a fence", () => {
  it("a crashed holder's turn lapses after one lease; a live holder's heartbeat keeps it; a holder whose lease was taken starts no more calls", async () => {
    const integration = integrationId();
    const t0 = Date.now();
    const a = { ms: t0 };
    const aBeat = manualBeat();
    const first = (await takeIntegrationTurn(holderDeps(a, aBeat.every), { userId: user.sub, jobId: 'job-a', integrationId: integration }, pacing))!;
    expect(first).toBeDefined();
    expect(first.open()).toBe(true);

    // Held: another job does not get it within the lease.
    const b = { ms: t0 + TURN_LEASE_MS - 1000 };
    expect(await takeIntegrationTurn(holderDeps(b, neverBeats), { userId: user.sub, jobId: 'job-b', integrationId: integration }, pacing)).toBeUndefined();

    // A's heartbeat 8 s in renews the lease (and writes its bucket): B still waits at 11 s.
    a.ms = t0 + 8000;
    await aBeat.beat();
    await until('the lease renewed', () => turnItem(integration), (item) => Number(item?.until) === a.ms + TURN_LEASE_MS, 10_000, 20);
    expect(await turnItem(integration)).toMatchObject({ tokensAt: expect.any(Number), tokens: expect.any(Number) });
    b.ms = t0 + TURN_LEASE_MS + 1000;
    expect(await takeIntegrationTurn(holderDeps(b, neverBeats), { userId: user.sub, jobId: 'job-b', integrationId: integration }, pacing)).toBeUndefined();

    // A stalls (no more heartbeats): within TURN_FENCE_MS of its lease's end it starts no call.
    a.ms = t0 + 8000 + TURN_LEASE_MS - TURN_FENCE_MS;
    expect(first.open()).toBe(false);
    await expect(first.bucket.take()).rejects.toBeInstanceOf(TurnLost);

    // One lease after A's last renewal, B takes the turn.
    b.ms = t0 + 8000 + TURN_LEASE_MS + 1;
    const second = (await takeIntegrationTurn(holderDeps(b, neverBeats), { userId: user.sub, jobId: 'job-b', integrationId: integration }, pacing))!;
    expect(second).toBeDefined();

    // A comes back with its clock behind (it was stalled): its heartbeat finds B holding, and it calls nothing more.
    a.ms = t0 + 9000;
    expect(first.open()).toBe(true);
    await aBeat.beat();
    await until('A sees the turn lost', async () => first.open(), (open) => !open, 10_000, 20);
    await expect(first.bucket.take()).rejects.toBeInstanceOf(TurnLost);
    // A's give writes nothing over B's turn.
    await first.give();
    expect(await turnItem(integration)).toMatchObject({ holderJob: 'job-b' });
    await second.give();
    expect(await turnItem(integration)).not.toHaveProperty('holder');
  });

  it("a request (dry run, connection test) gets the turn at the running job's next heartbeat, before any job in line; a holder that does not stop makes it a 409", async () => {
    const integration = integrationId();
    const beat = manualBeat();
    const job = (await takeIntegrationTurn({ ...holderDeps({ ms: Date.now() }, beat.every), now: () => new Date() }, { userId: user.sub, jobId: 'job-a', integrationId: integration }, pacing))!;
    const realDeps: TurnDeps = { db: testDb(), tableName: TABLE, now: () => new Date() };
    let called = 0;
    let answered = false;
    const request = withRequestTurn(realDeps, { userId: user.sub, integrationId: integration, platformName: 'the directory' }, pacing, async (turn: IntegrationTurn) => {
      await turn.bucket.take();
      called++;
      return 'checked';
    }).finally(() => (answered = true));
    await until('the request in line', () => turnItem(integration), (item) => String(item?.nextJob ?? '').startsWith('request#'), 10_000, 20);
    // Another job asking now waits behind the request.
    expect(await takeIntegrationTurn(realDeps, { userId: user.sub, jobId: 'job-c', integrationId: integration }, pacing)).toBeUndefined();
    expect(job.open()).toBe(true);
    // The job's heartbeat sees the request: it starts no more calls and gives the turn back (its delivery ends with the rest queued).
    await beat.beat();
    await until('the job yields', async () => job.open(), (open) => !open, 10_000, 20);
    expect(answered).toBe(false);
    expect(called).toBe(0);
    await job.give();
    expect(await request).toBe('checked');
    expect(called).toBe(1);
    // The request gave it back: the job in line takes it.
    expect(await turnItem(integration)).not.toHaveProperty('holder');
    const next = await takeIntegrationTurn(realDeps, { userId: user.sub, jobId: 'job-c', integrationId: integration }, pacing);
    expect(next).toBeDefined();

    // A holder that does not stop (its heartbeat renews the lease, but it is stuck in a long call): the request answers 409 after its wait, nothing called.
    let fake = 0;
    const quick: TurnDeps = { ...realDeps, clock: () => fake, sleep: async (ms) => void (fake += ms) };
    await expect(
      withRequestTurn(quick, { userId: user.sub, integrationId: integration, platformName: 'the directory' }, pacing, async () => {
          called++;
          return 'no';
        }),
      ).rejects.toBeInstanceOf(ConflictError);
    expect(called).toBe(1);
    await next!.give();
  });
});

describe('the dry run and the connection test call the platform on the turn', () => {
  it("wait for a running job to give the turn up (at its heartbeat) and answer; a holder that does not stop makes them a 409, nothing called", async () => {
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'Turn requests', platform: 'custom', baseUrl: stack().scim.url, authMethod: 'bearer_token', authConfig: { token: stack().scim.token }, apiConfig: {} },
    });
    const realDeps: TurnDeps = { db: testDb(), tableName: TABLE, now: () => new Date() };
    // A job's delivery holds the turn with a live heartbeat; it ends at its next call once the turn is asked for, as the lanes do.
    const job = (await takeIntegrationTurn(realDeps, { userId: user.sub, jobId: 'job-running', integrationId: integration.id }, pacing))!;
    const ended = until('the job asked to give the turn up', async () => job.open(), (open) => !open, 30_000, 50).then(() => job.give());
    const tested = user.call(`/api/integrations/${integration.id}/test`, { method: 'POST' });
    const checked = user.call(`/api/integrations/${integration.id}/check`, { body: { people: people(2, 'TurnCheck') } });
    expect((await tested).status).toBe(200);
    expect((await checked).status).toBe(200);
    await ended;

    // A live holder that does not stop (stuck in a long call; its heartbeat keeps its lease): 409 with the reason, the test not recorded.
    const stuck = (await takeIntegrationTurn(realDeps, { userId: user.sub, jobId: 'job-stuck', integrationId: integration.id }, pacing))!;
    const before = (await user.json<Integration[]>(`/api/integrations`)).find((i) => i.id === integration.id);
    // Both asked at once: each waits the API's whole wait for the turn before its 409, so one after the other would wait twice.
    const [busyTest, busyCheck] = await Promise.all([
      user.call(`/api/integrations/${integration.id}/test`, { method: 'POST' }),
      user.call(`/api/integrations/${integration.id}/check`, { body: { people: people(1, 'TurnBusy') } }),
    ]);
    expect(busyTest.status).toBe(409);
    expect(((await busyTest.json()) as { message?: string; error?: string }).message ?? '').toContain('Try again in a few seconds');
    expect(busyCheck.status).toBe(409);
    const after = (await user.json<Integration[]>(`/api/integrations`)).find((i) => i.id === integration.id);
    expect(after?.lastTestDate).toBe(before?.lastTestDate);
    await stuck.give();
    expect((await user.call(`/api/integrations/${integration.id}/test`, { method: 'POST' })).status).toBe(200);
  });
});

describe('a provisioning delivery that dies mid-chunk', () => {
  /** A run of a new project of `count` accounts to the stack's SCIM directory, planned (one chunk). */
  async function plannedRun(integration: Integration, count: number, tag: string) {
    const db = testDb();
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: `Turn ${tag}`, csvData: people(count, `Turn${tag}`) } });
    const queue = sqsProvisioningQueue(ownQueue.sqs, ownQueue.url);
    const run = await startProvisioning({ db, tableName: TABLE, queue, now: () => new Date(), newId: timeOrderedId, plan: dynamoPlanReader(db, TABLE), integration: integrationOf })(user.sub, created.project.id, {
      integrationId: integration.id,
      mode: 'provision',
    });
    await planRun({ db, tableName: TABLE, queue, now: () => new Date() })(user.sub, run.id);
    const job = (await readJob({ db, tableName: TABLE }, user.sub, run.id))!;
    const [message] = chunkPlan(user.sub, run.id, Number(job.shards), Number(job.maxRow));
    return { run, message: message! };
  }
  const integrationOf = async (userId: string, id: string) => {
    const { Item } = await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.integration(userId, id), ConsistentRead: true }));
    return Item ? recordOf(Item) : undefined;
  };
  const deps = (now: () => Date, every: Every, adapterFor: ProvisionDeps['adapterFor']): ProvisionDeps => {
    const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack().dataDir, 'encryption.key'), 'utf8')));
    return Object.assign({ db: testDb(), tableName: TABLE, queue: sqsProvisioningQueue(ownQueue.sqs, ownQueue.url), now, cipher: async () => cipher, integration: integrationOf, adapterFor, pacingOf }, { every });
  };

  it('blocks its integration for one lease: the next job on it starts once the lease lapsed (clock moved), not 150 s later', async () => {
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'Turn directory', platform: 'custom', baseUrl: stack().scim.url, authMethod: 'bearer_token', authConfig: { token: stack().scim.token }, apiConfig: {} },
    });
    const factory = adapterFactory({ allowedOrigins: [new URL(stack().scim.url).origin] });
    const crashed = await plannedRun(integration, 3, 'Crashed');
    const next = await plannedRun(integration, 3, 'Next');

    // The first delivery takes the turn and dies in its first platform call: its heartbeat never fires again.
    let reached!: () => void;
    const inCall = new Promise<void>((resolve) => (reached = resolve));
    const t0 = Date.now();
    const dying = provisionChunk(
      deps(() => new Date(t0), neverBeats, (record, credentials, policy) => {
        const real = factory(record, credentials, policy);
        return { ...real, create: () => (reached(), new Promise<never>(() => undefined)) } satisfies ProvisioningAdapter;
      }),
    )(crashed.message);
    void dying;
    await inCall;
    expect(await turnItem(integration.id)).toMatchObject({ holderJob: crashed.run.id });

    // Within the lease the next job's delivery waits (its chunk back on the queue, nothing called).
    await provisionChunk(deps(() => new Date(t0 + TURN_LEASE_MS - 2000), neverBeats, factory))(next.message);
    expect(await readJob({ db: testDb(), tableName: TABLE }, user.sub, next.run.id)).toMatchObject({ status: 'running' });
    expect(await turnItem(integration.id)).toMatchObject({ holderJob: crashed.run.id });

    // Just after the lease (a heartbeat or so, not the worker's 150 s) it takes the turn and does the chunk.
    await provisionChunk(deps(() => new Date(t0 + TURN_LEASE_MS + TURN_HEARTBEAT_MS), neverBeats, factory))(next.message);
    expect(await user.json(`/api/provisioning-jobs/${next.run.id}`)).toMatchObject({ status: 'completed', total: 3, synced: 3, failed: 0, pending: 0 });
    expect(await turnItem(integration.id)).not.toHaveProperty('holder');
  });
});
