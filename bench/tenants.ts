/**
 * Many customers at once (issue 29, item 6), the capacity model's shape (docs/capacity.md)
 * scaled down to the local stack: TENANTS customers (default 10), each with its own SCIM
 * directory (a scimmy server in a process of its own, as each customer's Okta is its own), each
 * importing PEOPLE people (default 2,000) through POST /api/bulk-create with provisioning to its
 * directory and its credential e-mails asked for, all started together. Then a small customer
 * (100 people) alone on the idle stack, and the same small customer started while another
 * customer's import of PEOPLE runs. Prints per customer the time to all accounts created, synced
 * and e-mailed; the slowest customer over the fastest (target <= 1.5x); the small customer's time
 * beside the large one against its time alone (target <= 2x); and accounts or e-mails lost or
 * duplicated per customer (target 0: every directory holds exactly its people, every holder got
 * exactly one e-mail). Measured, never asserted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { keys } from '../functions/core/keys';
import { createTestUser } from '../test/support/cognito-users';
import { startRemoteScimServer } from './provisioning';
import { benchOffset } from './ports';

const TENANTS = Number(process.env.TENANTS ?? 10);
const PEOPLE = Number(process.env.PEOPLE ?? 2000);
const SMALL = 100;
/**
 * SES's rate for the whole account, scaled as the customers are: the model's 350 e-mails a
 * second for 100 customers (docs/capacity.md) is 3.5 per customer (at least the 14 a new
 * production account gets). MAIL_SEND_RATE overrides it.
 */
const MAIL_RATE = process.env.MAIL_SEND_RATE ?? String(Math.max(14, 3.5 * TENANTS));
/**
 * Provisioning workers, sized as docs/capacity.md sizes a deploy's provisioningWorkers: one per
 * customer provisioning at once (TENANTS together, then two beside each other, plus one).
 * PROVISIONING_WORKERS overrides it.
 */
const PROVISIONING_WORKERS = Number(process.env.PROVISIONING_WORKERS) || TENANTS + 3;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Timeline {
  name: string;
  people: number;
  created?: number;
  synced?: number;
  emailed?: number;
  error?: string;
  directoryUsers?: number;
  directoryCreates?: number;
  mails?: number;
  duplicateMails?: number;
}

export async function tenantsBench(): Promise<void> {
  console.log(
    `\n== Many customers at once: ${TENANTS} customers x ${PEOPLE.toLocaleString('en-US')} people, each with its own SCIM directory, imported, provisioned and e-mailed together (SES paced to ${MAIL_RATE} e-mails a second for all; ${PROVISIONING_WORKERS} provisioning workers)`,
  );
  // The in-process stack's handlers read it as the mail workers do in Lambda.
  process.env.MAIL_SEND_RATE = MAIL_RATE;
  const offset = benchOffset(47_500);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-tenants');
  fs.rmSync(dataDir, { recursive: true, force: true });
  // One directory per customer: TENANTS together, then a small one alone, a small one beside a large one, and the large one.
  const count = TENANTS + 3;
  // Above the stack's own ports (3000 to 9325 plus the offset).
  const serverPorts = Array.from({ length: count }, (_, i) => offset + 9400 + i);
  const stack = await startLocalStack({
    ports: portsFromEnv({}, offset),
    dataDir,
    persistDynamoDb: false,
    web: 'none',
    outboundAllowedOrigins: serverPorts.map((port) => `http://127.0.0.1:${port}`),
    provisioningWorkers: PROVISIONING_WORKERS,
    log: () => undefined,
  });
  const servers: Awaited<ReturnType<typeof startRemoteScimServer>>[] = [];
  try {
    const token = 'bench-tenant-token';
    for (const port of serverPorts) servers.push(await startRemoteScimServer({ port, token }));
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));

    /** A new Pro customer with an integration to its own directory. */
    const customer = async (index: number) => {
      const user = await createTestUser(stack.urls.cognito, stack.userPool);
      const api = async <T>(p: string, body?: unknown): Promise<T> => {
        for (let attempt = 1; ; attempt++) {
          let response: Response;
          try {
            response = await fetch(`${stack.urls.app}${p}`, {
              method: body ? 'POST' : 'GET',
              headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
              body: body ? JSON.stringify(body) : undefined,
            });
          } catch (error) {
            // A poll the loaded local gateway dropped (fetch failed: a reset connection) is asked again, as a browser's next poll
            // would be; a POST is not (it may have been taken), so only reads are.
            if (!body && attempt < 30) {
              await pause(500);
              continue;
            }
            throw error;
          }
          // The local stack's route throttle answers 429 under this load: asked again, as a browser's poll would be.
          if ((response.status === 429 || response.status === 503) && attempt < 30) {
            await response.arrayBuffer();
            await pause(500);
            continue;
          }
          if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
          return (await response.json()) as T;
        }
      };
      await api('/api/auth/user');
      await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));
      const integration = await api<{ id: string }>('/api/integrations', { name: `Directory ${index}`, platform: 'custom', baseUrl: servers[index]!.url, authMethod: 'bearer_token', authConfig: { token }, apiConfig: {} });
      return { user, api, integrationId: integration.id, server: servers[index]! };
    };

    /** One customer's import with provisioning and e-mail, timed from its request to each end. */
    const run = async (c: Awaited<ReturnType<typeof customer>>, name: string, people: number, tag: string): Promise<Timeline> => {
      const line: Timeline = { name, people };
      const rows = Array.from({ length: people }, (_, i) => ({ firstName: `T${tag}`, lastName: `Person${i}`, email: `tenant.${tag}.${i}@example.com` }));
      const began = performance.now();
      try {
        const answer = await c.api<{ job?: { id: string }; project: { id: string }; summary: { provisioningJobId?: string; mailSendId?: string; provisioningError?: string; mailSendError?: string } }>(
          '/api/bulk-create',
          { projectName: `Tenant ${tag}`, csvData: rows, apiIntegrationId: c.integrationId, createExternalAccounts: true, sendCredentials: {} },
        );
        const { provisioningJobId, mailSendId } = answer.summary;
        if (!provisioningJobId || !mailSendId) throw new Error(answer.summary.provisioningError ?? answer.summary.mailSendError ?? 'no run or send started');
        const waits: Promise<void>[] = [];
        if (answer.job) {
          const jobId = answer.job.id;
          waits.push(
            (async () => {
              for (;;) {
                const job = await c.api<{ status: string }>(`/api/bulk-jobs/${jobId}`);
                if (job.status === 'completed' || job.status === 'failed') break;
                await pause(500);
              }
              line.created = performance.now() - began;
            })(),
          );
        } else line.created = performance.now() - began;
        waits.push(
          (async () => {
            for (;;) {
              const job = await c.api<{ status: string }>(`/api/provisioning-jobs/${provisioningJobId}`);
              if (job.status === 'completed' || job.status === 'failed') break;
              await pause(500);
            }
            line.synced = performance.now() - began;
          })(),
          (async () => {
            for (;;) {
              const send = await c.api<{ status: string }>(`/api/mail-sends/${mailSendId}`);
              if (send.status === 'completed' || send.status === 'failed') break;
              await pause(500);
            }
            line.emailed = performance.now() - began;
          })(),
        );
        await Promise.all(waits);
        const stats = await c.server.stats();
        line.directoryUsers = stats.users;
        line.directoryCreates = stats.created;
      } catch (error) {
        line.error = error instanceof Error ? error.message : String(error);
      }
      return line;
    };

    const countMails = async (lines: { line: Timeline; tag: string }[]) => {
      const store = (await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: { destination: { to: string[] } }[] };
      for (const { line, tag } of lines) {
        const to = store.emails.flatMap((m) => m.destination.to).filter((address) => address.startsWith(`tenant.${tag}.`));
        line.mails = new Set(to).size;
        line.duplicateMails = to.length - new Set(to).size;
      }
    };

    const customers = [];
    for (let i = 0; i < count; i++) customers.push(await customer(i));

    // 1. TENANTS customers together.
    const together = await Promise.all(customers.slice(0, TENANTS).map((c, i) => run(c, `customer ${i + 1}`, PEOPLE, `c${i}`).then((line) => ({ line, tag: `c${i}` }))));
    await countMails(together);
    const print = (line: Timeline) =>
      console.log(
        `  ${line.name.padEnd(26)} ${line.people.toLocaleString('en-US').padStart(6)} people: created ${line.created ? seconds(line.created) : '-'}, synced ${line.synced ? seconds(line.synced) : '-'}, e-mailed ${line.emailed ? seconds(line.emailed) : '-'}` +
          `; directory ${line.directoryUsers ?? '?'} users (${line.directoryCreates ?? '?'} creates), ${line.mails ?? '?'} holders e-mailed, ${line.duplicateMails ?? '?'} duplicate e-mails` +
          (line.error ? `; FAILED: ${line.error}` : ''),
      );
    for (const { line } of together) print(line);
    const ends = together.map(({ line }) => Math.max(line.created ?? 0, line.synced ?? 0, line.emailed ?? 0)).filter((ms) => ms > 0);
    const lost = together.reduce((sum, { line }) => sum + Math.max(0, line.people - (line.directoryUsers ?? 0)) + Math.max(0, line.people - (line.mails ?? 0)), 0);
    const duplicated = together.reduce((sum, { line }) => sum + Math.max(0, (line.directoryCreates ?? 0) - line.people) + (line.duplicateMails ?? 0), 0);
    // Each step on its own: the e-mail step is SES's one rate for all (issue 29 item 2), the others each customer's own work.
    for (const step of ['created', 'synced', 'emailed'] as const) {
      const times = together.map(({ line }) => line[step] ?? 0).filter((ms) => ms > 0);
      if (times.length) console.log(`  ${step.padEnd(8)} slowest over fastest: ${seconds(Math.max(...times))} / ${seconds(Math.min(...times))} = ${(Math.max(...times) / Math.min(...times)).toFixed(2)}x`);
    }
    if (ends.length) {
      console.log(
        `  slowest customer over the fastest (all done): ${seconds(Math.max(...ends))} / ${seconds(Math.min(...ends))} = ${(Math.max(...ends) / Math.min(...ends)).toFixed(2)}x (target <= 1.5x); ` +
          `accounts or e-mails lost ${lost}, duplicated ${duplicated} (target 0)`,
      );
    }

    // 2. A small customer alone, then beside another customer's import of PEOPLE.
    const alone = await run(customers[TENANTS]!, 'small customer, alone', SMALL, 's1');
    const largeRun = run(customers[TENANTS + 2]!, 'large customer', PEOPLE, 'l1');
    await pause(2000);
    const beside = await run(customers[TENANTS + 1]!, 'small customer, beside it', SMALL, 's2');
    const largeLine = await largeRun;
    const pair = [
      { line: alone, tag: 's1' },
      { line: beside, tag: 's2' },
      { line: largeLine, tag: 'l1' },
    ];
    await countMails(pair);
    for (const { line } of pair) print(line);
    const end = (line: Timeline) => Math.max(line.created ?? 0, line.synced ?? 0, line.emailed ?? 0);
    for (const step of ['created', 'synced', 'emailed'] as const) {
      if (alone[step] && beside[step]) console.log(`  ${step.padEnd(8)} small beside a large one over alone: ${seconds(beside[step])} / ${seconds(alone[step])} = ${(beside[step] / alone[step]).toFixed(2)}x`);
    }
    if (end(alone) && end(beside)) console.log(`  small customer beside a large one over alone: ${seconds(end(beside))} / ${seconds(end(alone))} = ${(end(beside) / end(alone)).toFixed(2)}x (target <= 2x)`);
  } finally {
    await Promise.all(servers.map((server) => server.stop().catch(() => undefined)));
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
