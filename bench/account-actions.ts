/**
 * Deactivating 10,000 provisioned accounts (POST /api/projects/{id}/account-actions, every account
 * of the project, until the job is completed: queue, workers, pacing, the platform's PATCH and
 * each account's write here) against a bare client that PATCHes the same 10,000 users of the same
 * SCIM server (bin/local/scim-server.ts in a process of its own, as a platform would be) at the
 * same concurrency (the integration's 8 calls in flight, all in the one delivery that holds its turn), in the same run (the
 * mean of the bare passes before the action and the one after it, so a load that drifts weighs on both alike). Each bare
 * pass changes every user (active false, then true again before ours; true after it), as ours does: a PATCH that changes
 * nothing costs the server less. Target <= 1.25x; then 0 accounts left in a wrong state: every account inactive here and
 * on the server after ours. Printed beside: each process's CPU and the requests the server answered, during ours and a bare pass.
 * The 10,000 accounts are created and provisioned through the API first (a bulk job, a
 * provisioning run to the server's /Bulk): not timed.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { shardsOf } from '../functions/accounts/account-partitions';
import { withStates } from '../functions/accounts/account-states';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { keys } from '../functions/core/keys';
import { defaultPacing } from '../functions/provisioning/adapters';
import { mapBounded } from '../functions/provisioning/pacing';
import { createTestUser } from '../test/support/cognito-users';
import { figure } from './own-process';
import { cpuMeter, cpuText, dynamoDbPid } from './process-cpu';
import { requestCounter, requestText } from './dynamo-requests';
import { dynamo } from '../functions/core/clients';
import { benchOffset } from './ports';
import { startRemoteScimServer } from './provisioning';

const COUNT = 10_000;
const LIMIT = 1.25;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function accountActionsBench(): Promise<void> {
  console.log(`\n== Deactivating ${COUNT.toLocaleString('en-US')} provisioned accounts on a SCIM server against a bare client's PATCHes (local stack)`);
  const offset = benchOffset(35_000);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-account-actions');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const serverPort = offset + 4177;
  // Each queue delivery the stack's workers handled wakes the wait for a job's end (`until`): the job is read once after each, not every 200 ms.
  let deliveries = 0;
  let wake: () => void = () => undefined;
  const observeDeliveries = () => {
    deliveries += 1;
    wake();
  };
  const stack = await startLocalStack({ ports: portsFromEnv({}, offset), dataDir, persistDynamoDb: false, web: 'none', outboundAllowedOrigins: [`http://127.0.0.1:${serverPort}`], log: () => undefined, observeDeliveries });
  const token = 'bench-actions-token';
  const server = await startRemoteScimServer({ port: serverPort, token });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const user = await createTestUser(stack.urls.cognito, stack.userPool);
    const api = async <T>(p: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${stack.urls.app}${p}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      }).catch((error: Error) => {
        throw new Error(`${p}: ${error.message} (${String(error.cause)})`);
      });
      if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    let polls = 0;
    // A job ends in a delivery of its worker (its last chunk's, or its plan's): read once each has been handled (at most 2 s apart),
    // so the job's end is seen at once and the bench's own reads of it do not weigh on the stack's process beside the job.
    const until = async <T extends { status: string }>(p: string): Promise<T> => {
      for (;;) {
        const seen = deliveries;
        polls += 1;
        const job = await api<T>(p);
        if (job.status === 'completed' || job.status === 'failed' || job.status === 'paused') return job;
        // No delivery handled during the read: wait for the next one.
        if (deliveries === seen) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, 2000);
          });
          clearTimeout(timer);
          wake = () => undefined;
        }
      }
    };
    await api('/api/auth/user');
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));
    const integrationId = (await api<{ id: string }>('/api/integrations', { name: 'Bench SCIM', platform: 'custom', baseUrl: server.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: {} })).id;
    const rows = Array.from({ length: COUNT }, (_, i) => ({ firstName: 'Act', lastName: `Person${i}`, email: `act.${i}@example.com` }));
    const { project, job } = await api<{ project: { id: string }; job: { id: string } }>('/api/bulk-create', { projectName: 'Actions bench', csvData: rows });
    if ((await until<{ status: string }>(`/api/bulk-jobs/${job.id}`)).status !== 'completed') throw new Error('bulk job failed');
    const run = await api<{ id: string }>(`/api/projects/${project.id}/provision`, { integrationId });
    const provisioned = await until<{ status: string; synced: number }>(`/api/provisioning-jobs/${run.id}`);
    if (provisioned.synced !== COUNT) throw new Error(`provisioned ${provisioned.synced} of ${COUNT}`);

    // The bare client: the same users, PATCH active (the adapter's request), keep-alive, as many in flight as the
    // job has: the integration's whole concurrency, on the turn of the one delivery that calls it at a time (integration-turn.ts).
    const concurrency = defaultPacing.custom.concurrency;
    const ids = (await server.users()).map((u) => u.id);
    // Each pass changes every user's state, as ours does. A PATCH that changes nothing is not the same work: scimmy then answers
    // 204 with no body and skips the user's representation, where a change answers 200 with the whole user (2 to 5 s more of
    // the server's CPU for 10,000). So a bare answer other than 200 fails the bench.
    let resets = 0;
    const bare = async (active: boolean) => {
      // Node's http with a keep-alive agent, as the adapter's client (platform-client.ts); a pass's sockets are its own.
      const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
      const body = JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: active }] });
      const patch = (id: string) =>
        new Promise<number>((resolve, reject) => {
          const request = http.request(`${server.url}/Users/${id}`, { method: 'PATCH', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json', 'content-length': Buffer.byteLength(body) } }, (response) => {
            // The answer read whole, as the adapter reads it.
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              Buffer.concat(chunks).toString('utf8');
              resolve(response.statusCode ?? 0);
            });
            response.on('error', reject);
          });
          request.on('error', (error) => reject(new Error(`bare PATCH: ${error.message}`)));
          request.end(body);
        });
      const started = performance.now();
      try {
        await mapBounded(ids, concurrency, async (id) => {
          let status = await patch(id).catch(() => undefined);
          // A connection reset (seen on the busy shared machine): sent again, as the adapter's paced calls retry a network
          // error; the first may have changed the user already (then 204).
          if (status === undefined) {
            resets += 1;
            status = await patch(id);
            if (status === 204) return;
          }
          if (status !== 200) throw new Error(`bare PATCH answered ${status} (200 expected: the user changed, as ours change them)`);
        });
      } finally {
        agent.destroy();
      }
      return performance.now() - started;
    };
    // CPU seconds of each process while each side runs (the wall time moves with the machine's load; this does less).
    const meter = () => cpuMeter({ stack: process.pid, 'DynamoDB Local': dynamoDbPid(), 'SCIM server': server.pid });
    // The requests the server answered (ours: the same PATCH per account and nothing else, or the difference is shown).
    const requests = async () => (await server.stats()).requests;
    // Before ours: every user deactivated there (timed, metered), then active again (timed: the same work the other way), as ours finds them.
    const bareBeforeCpu = meter();
    const bareRequestsStart = await requests();
    const bareBefore = await bare(false);
    const bareCpu = bareBeforeCpu.read();
    const bareRequests = (await requests()) - bareRequestsStart;
    const bareBack = await bare(true);

    const oursCpu = meter();
    // The stack's table requests during ours (its workers and routes share this process's client): counted, since they do not move with the load.
    const tableRequests = requestCounter(dynamo());
    polls = 0;
    const oursRequestsStart = await requests();
    const oursStart = performance.now();
    const { job: action } = await api<{ job: { id: string } }>(`/api/projects/${project.id}/account-actions`, { action: 'deactivate', filter: 'all' });
    const done = await until<{ status: string; done: number; failed: number; onPlatform: number }>(`/api/account-actions/${action.id}`);
    const oursMs = performance.now() - oursStart;
    const oursCpuSeconds = oursCpu.read();
    const oursTable = tableRequests.read();
    const oursPolls = polls;
    const oursRequests = (await requests()) - oursRequestsStart;
    // The server's state as the action left it (before the bare pass below, which sets every user active again).
    const activeThere = (await server.users()).filter((u) => u.active).length;
    // The bare client again after ours (reactivating them), and the mean of before and after: a machine whose load drifts during the run weighs on both sides alike.
    const bareAfter = await bare(true);
    const bareMs = ((bareBefore + bareBack) / 2 + bareAfter) / 2;

    // 0 wrong states: inactive on the server (above) and here.
    let activeHere = 0;
    const { Item: projectItem } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, project.id), ConsistentRead: true }));
    const shards = shardsOf(projectItem);
    for (const pk of keys.accountPartitions(user.sub, project.id, shards)) {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db.send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :a)', ProjectionExpression: 'PK, SK, isActive', ExpressionAttributeValues: { ':pk': pk, ':a': 'ACCOUNT#' }, ExclusiveStartKey: start }));
        // As every reader sees them: with the action's outcome (isActive) from the ACT state blocks.
        const accounts = await withStates(db, 'bulkonboard', { userId: user.sub, projectId: project.id, shards }, page.Items ?? [], { consistent: true, channels: ['ACT'] });
        activeHere += accounts.filter((a) => a.isActive !== false).length;
        start = page.LastEvaluatedKey;
      } while (start);
    }
    const ratio = oursMs / bareMs;
    figure(
      `deactivate ${COUNT.toLocaleString('en-US')} accounts: ${seconds(oursMs)} (${done.status}, ${done.done} done, ${done.onPlatform} on the server, ${done.failed} failed); ` +
        `bare client ${COUNT.toLocaleString('en-US')} PATCHes at ${concurrency} in flight (the integration's, one delivery at a time) ${seconds(bareMs)} (mean of ${seconds(bareBefore)} and ${seconds(bareBack)} before, ${seconds(bareAfter)} after); ratio ${ratio.toFixed(2)}x (target <= ${LIMIT}x); ` +
        `wrong states: ${activeThere} still active on the server, ${activeHere} still active here (target 0); ` +
        `CPU during ours: ${cpuText(oursCpuSeconds)}; during the bare pass before it: ${cpuText(bareCpu)}; ` +
        `table requests during ours (the job's and ${oursPolls} polls of it): ${requestText(oursTable)}; ` +
        `requests the server answered: ${oursRequests.toLocaleString('en-US')} during ours, ${bareRequests.toLocaleString('en-US')} in a bare pass (${resets} connection resets sent again in the bare passes)`,
    );
    if (activeThere + activeHere > 0 || done.done !== COUNT) throw new Error('accounts left in a wrong state');
    if (ratio > LIMIT) throw new Error(`deactivating took ${ratio.toFixed(2)}x the bare PATCHes (target <= ${LIMIT}x)`);
  } finally {
    await server.stop();
    await stack.stop();
  }
}
