/**
 * Provisioning against real SCIM 2.0 servers on loopback (bin/local/scim-server.ts, scimmy, each
 * in a process of its own as a platform would be),
 * measured as ratios to a bare client in the same run:
 *  - 10,000 accounts of a project provisioned (POST /api/projects/{id}/provision until the run is
 *    completed: queue, worker, pacing, status writes) beside a bare client that POSTs the same
 *    10,000 users to the same kind of server at the same concurrency (the integration's 8 calls
 *    in flight). Once to a server that advertises /Bulk (what the adapter then uses) and once to
 *    one that does not (single POST /Users, the same requests as the bare client).
 *  - What DynamoDB Local takes for the 10,000 results written alone (the worker's recordOutcomes
 *    into the project's state blocks: a conditional write per block of 50 accounts, not per account).
 *  - The same 10,000 against a server that answers 429 (Retry-After: 1) to 20% and 500 to 5% of
 *    calls: counts of synced, failed, duplicates on the server and lost accounts.
 *  - Peak RSS of one provisioning-worker invocation (a 250-account chunk), in a child process.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import type { Delivery } from '../bin/local/poller';
import { fork } from 'node:child_process';
import type { ScimServerOptions, ScimUserSummary } from '../bin/local/scim-server';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountShardsFor, rowRanges } from '../functions/accounts/account-partitions';
import { StateBlockWriter } from '../functions/accounts/account-state-writer';
import { OutcomeRecorder } from '../functions/provisioning/provision-accounts';
import { keys } from '../functions/core/keys';
import { defaultPacing } from '../functions/provisioning/adapters';
import { PROVISIONING_CHUNK_ACCOUNTS } from '../functions/provisioning/provisioning-jobs';
import { mapBounded } from '../functions/provisioning/pacing';
import { scimUser } from '../functions/provisioning/adapters/scim';
import { createTestUser } from '../test/support/cognito-users';
import { benchOffset } from './ports';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A SCIM server in a child process (bench/scim-server-process.ts), driven over IPC. */
interface RemoteScimServer {
  url: string;
  /** The server's process (bench/process-cpu.ts reads its CPU time). */
  pid: number | undefined;
  stats(): Promise<{ requests: number; created: number; faults429: number; faults500: number; users: number }>;
  users(): Promise<ScimUserSummary[]>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}
export async function startRemoteScimServer(options: ScimServerOptions): Promise<RemoteScimServer> {
  const child = fork(path.join(projectRoot, 'bench', 'scim-server-process.ts'), [JSON.stringify(options)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  let next = 1;
  const waiting = new Map<number, (value: unknown) => void>();
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`SCIM server process exited (${code})`)));
    child.on('message', (message: { id: number; value: unknown }) => {
      if (message.id === 0) resolve(String(message.value));
      else waiting.get(message.id)?.(message.value);
    });
  });
  const ask = <T>(command: string) =>
    new Promise<T>((resolve) => {
      const id = next++;
      waiting.set(id, (value) => resolve(value as T));
      child.send({ id, command });
    });
  return {
    url,
    pid: child.pid,
    stats: () => ask('stats'),
    users: () => ask('users'),
    reset: () => ask('reset'),
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.send({ id: next++, command: 'stop' });
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
const COUNT = 10_000;

export async function provisioningBench(): Promise<void> {
  console.log('\n== Provisioning to real SCIM servers on loopback (scimmy), against a bare client in the same run');
  const offset = benchOffset(25_000);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-provisioning');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const serverPorts = { bulk: offset + 4100, single: offset + 4101, faulty: offset + 4102 };
  const origins = Object.values(serverPorts).map((port) => `http://127.0.0.1:${port}`);
  // The provisioning worker's deliveries by run: where a run's time went (in a delivery, on the queue, between them).
  const deliveries = new Map<string, Delivery[]>();
  const observeDeliveries = (delivery: Delivery) => {
    if (delivery.worker !== 'provisioning-worker') return;
    for (const { body } of delivery.messages) {
      const { jobId } = JSON.parse(body) as { jobId?: string };
      if (jobId) deliveries.set(jobId, [...(deliveries.get(jobId) ?? []), delivery]);
    }
  };
  const stack = await startLocalStack({ ports: portsFromEnv({}, offset), dataDir, persistDynamoDb: false, web: 'none', outboundAllowedOrigins: origins, log: () => undefined, observeDeliveries });
  const servers: RemoteScimServer[] = [];
  try {
    const token = 'bench-directory-token';
    const withBulk = await startRemoteScimServer({ port: serverPorts.bulk, token });
    const single = await startRemoteScimServer({ port: serverPorts.single, token, maxOperations: 1 });
    const faulty = await startRemoteScimServer({ port: serverPorts.faulty, token, faults: { rate429: 0.2, rate500: 0.05, retryAfterSeconds: 1 } });
    servers.push(withBulk, single, faulty);

    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const user = await createTestUser(stack.urls.cognito, stack.userPool);
    const api = async <T>(p: string, body?: unknown): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(`${stack.urls.app}${p}`, {
          method: body ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        });
        // A bulk job shows 'completed' a moment before it gives the user's lock back: the next
        // bulk creation may answer 409 in between. Asked again shortly, as a person would.
        if (response.status === 409 && p === '/api/bulk-create' && attempt < 20) {
          await response.arrayBuffer();
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
        return (await response.json()) as T;
      }
    };
    await api('/api/auth/user');
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));

    const integration = async (name: string, server: RemoteScimServer) =>
      (await api<{ id: string }>('/api/integrations', { name, platform: 'custom', baseUrl: server.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: {} })).id;
    /** A project of COUNT accounts (created by the bulk job), not provisioned yet. */
    const project = async (tag: string) => {
      const rows = Array.from({ length: COUNT }, (_, i) => ({ firstName: `Prov${tag}`, lastName: `Person${i}`, email: `prov.${tag}.${i}@example.com` }));
      const { project, job } = await api<{ project: { id: string }; job: { id: string } }>('/api/bulk-create', { projectName: `Provisioning ${tag}`, csvData: rows });
      for (let status = ''; status !== 'completed'; ) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await api<{ status: string }>(`/api/bulk-jobs/${job.id}`)).status;
        if (status === 'failed') throw new Error('bulk job failed');
      }
      return project.id;
    };
    const provision = async (projectId: string, integrationId: string) => {
      const began = performance.now();
      const run = await api<{ id: string }>(`/api/projects/${projectId}/provision`, { integrationId });
      let job: { status: string; synced: number; failed: number; pending: number; total: number };
      for (;;) {
        await new Promise((r) => setTimeout(r, 100));
        job = await api(`/api/provisioning-jobs/${run.id}`);
        if (job.status === 'completed' || job.status === 'failed' || job.status === 'paused') break;
      }
      return { ms: performance.now() - began, job, runId: run.id };
    };
    /** A run's deliveries: their count, the time inside them, and the time between one's end and the next one's start (queue and hand-over). */
    const whereTimeWent = (runId: string) => {
      const list = (deliveries.get(runId) ?? []).slice().sort((a, b) => a.receivedAt - b.receivedAt);
      const inside = list.reduce((sum, d) => sum + (d.handledAt - d.receivedAt), 0);
      let between = 0;
      for (let i = 1; i < list.length; i++) between += Math.max(0, list[i]!.receivedAt - list[i - 1]!.handledAt);
      return `${list.length} deliveries, ${seconds(inside)} in them, ${seconds(between)} between them (${list.length > 1 ? Math.round(between / (list.length - 1)) : 0} ms each)`;
    };
    /** The bare client: the same users, one POST each, `concurrency` in flight, keep-alive (fetch). */
    const bare = async (server: RemoteScimServer, tag: string, concurrency: number) => {
      const began = performance.now();
      await mapBounded(
        Array.from({ length: COUNT }, (_, i) => i),
        concurrency,
        async (i) => {
          const response = await fetch(`${server.url}/Users`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
            body: JSON.stringify(scimUser({ accountId: String(i), username: `bare${tag}${i}`, password: 'Bare-password-1234', firstName: 'Bare', lastName: `Person${i}`, email: `bare.${tag}.${i}@example.com` })),
          });
          if (response.status !== 201) throw new Error(`bare POST answered ${response.status}`);
          await response.arrayBuffer();
        },
      );
      return performance.now() - began;
    };

    const concurrency = defaultPacing.custom.concurrency;
    const projects = { bulk: await project('b'), single: await project('s'), faulty: await project('f') };
    const integrations = { bulk: await integration('With bulk', withBulk), single: await integration('Single POSTs', single), faulty: await integration('Faulty', faulty) };

    // What DynamoDB Local takes for the status writes alone: the worker's own OutcomeRecorder
    // (results set in a scratch project's PROV state blocks, written about a block's worth at a
    // time beside the calls) on the chunks a 10,000-account project gets (10 shards, 250 accounts
    // each, 2 chunks at once as 2 workers do), each chunk's blocks loaded first, its results
    // arriving 8 at a time (the calls in flight), then all written as before a chunk's done marker.
    const scratch = { userId: 'bench-states', projectId: 'scratch', shards: accountShardsFor(COUNT) };
    const writesStart = performance.now();
    await mapBounded(rowRanges(scratch.shards, COUNT, PROVISIONING_CHUNK_ACCOUNTS), 2, async (range) => {
      const states = new StateBlockWriter({ db, tableName: 'bulkonboard' }, scratch, 'PROV');
      await states.load(range.fromRow, range.toRow, range.shard);
      const recorder = new OutcomeRecorder({ now: () => new Date() }, { id: 'bench', mode: 'provision' }, states);
      const accounts: Record<string, unknown>[] = [];
      for (let row = range.fromRow; row <= range.toRow; row++) if (row % scratch.shards === range.shard) accounts.push({ row, externalStatus: 'pending' });
      for (let i = 0; i < accounts.length; i += concurrency) {
        recorder.add(accounts.slice(i, i + concurrency).map((account) => ({ account, outcome: { kind: 'created', externalId: `ext-${String(account.row)}` } })));
        await new Promise((r) => setImmediate(r));
      }
      await recorder.written();
    });
    const writesMs = performance.now() - writesStart;
    console.log(`  the status writes alone: ${COUNT.toLocaleString('en-US')} results through the worker's OutcomeRecorder into state blocks (chunks of ${PROVISIONING_CHUNK_ACCOUNTS}, 2 at once) on DynamoDB Local ${seconds(writesMs)}`);

    for (const [kind, server] of [['bulk', withBulk], ['single', single]] as const) {
      const bareMs = await bare(server, kind, concurrency);
      await server.reset();
      const ours = await provision(projects[kind], integrations[kind]);
      const label = kind === 'bulk' ? 'server with /Bulk (adapter: /Bulk of 100)' : 'server without /Bulk (adapter: single POSTs)';
      console.log(
        `  provision ${COUNT.toLocaleString('en-US')} accounts, ${label}: ${seconds(ours.ms)} (${ours.job.status}, ${ours.job.synced} synced, ${ours.job.failed} failed); ` +
          `bare client ${COUNT.toLocaleString('en-US')} POSTs at ${concurrency} in flight ${seconds(bareMs)}; ratio ${(ours.ms / bareMs).toFixed(2)}x (target <= 1.25x); ` +
          `against the bare POSTs plus the status writes alone (${seconds(bareMs + writesMs)}): ${(ours.ms / (bareMs + writesMs)).toFixed(2)}x; users on the server ${(await server.stats()).users}; ` +
          `the run's worker: ${whereTimeWent(ours.runId)}`,
      );
    }

    await faulty.reset();
    const flaky = await provision(projects.faulty, integrations.faulty);
    const users = await faulty.users();
    const duplicates = users.length - new Set(users.map((u) => u.userName.toLowerCase())).size;
    const stats = await faulty.stats();
    const lost = flaky.job.total - flaky.job.synced - flaky.job.failed;
    console.log(
      `  provision ${COUNT.toLocaleString('en-US')} with 429 (Retry-After: 1) on 20% and 500 on 5% of calls: ${seconds(flaky.ms)}, ${flaky.job.status}; ` +
        `synced ${flaky.job.synced}, failed ${flaky.job.failed}, lost ${lost}, duplicates on the server ${duplicates} (users ${users.length}; server answered ${stats.faults429} x 429, ${stats.faults500} x 500 of ${stats.requests} requests)`,
    );

    // A small project for the probe: one chunk's worth of pending accounts.
    const probeProject = (await api<{ project: { id: string } }>('/api/bulk-create', { projectName: 'Memory probe', csvData: Array.from({ length: PROVISIONING_CHUNK_ACCOUNTS }, (_, i) => ({ firstName: 'Mem', lastName: `Probe${i}`, email: `mem.probe.${i}@example.com` })) })).project.id;
    // Spawned, not spawnSync: the bench process keeps its event loop free while
    // the probe runs (as the bulk bench's worker probe does).
    const probe = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'bench', 'provisioning-memory.ts')], {
      cwd: projectRoot,
      env: { ...process.env, BENCH_USER_ID: user.sub, BENCH_PROJECT_ID: probeProject, BENCH_INTEGRATION_ID: integrations.single },
    });
    let probeOut = '';
    let probeErr = '';
    probe.stdout.on('data', (chunk: Buffer) => (probeOut += chunk.toString('utf8')));
    probe.stderr.on('data', (chunk: Buffer) => (probeErr = (probeErr + chunk.toString('utf8')).slice(-2000)));
    await new Promise((resolve) => probe.on('close', resolve));
    console.log(`  ${probeOut.trim() || `worker probe failed: ${probeErr.slice(-800)}`}`);
  } finally {
    for (const server of servers) await server.stop();
    await stack.stop();
  }
}
