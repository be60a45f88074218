import http from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { localScimTenantToken } from '../../functions/integrations/local-scim-tenant';
import type { Integration } from '../../shared/schemas/integrations';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { Project } from '../../shared/schemas/project';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';

/**
 * Provisioning that scales per customer (issue 29, item 3): each integration is paced to its own
 * limit, whoever's workers send the calls (one delivery at a time holds its turn and hands the
 * token bucket on: functions/account-jobs/integration-turn.ts), and a job on a platform keeps one
 * chunk on the queue, so one customer's large run holds one worker and another's small run is
 * not held up by it. Through the API and the stack's own workers, against a SCIM server of this
 * file (one directory per customer: its tenants), one POST per person (no /Bulk), behind a
 * recording proxy on the fake platform's port: every creation's time and the calls in flight,
 * per customer (per bearer token).
 */
const stack = inject('stack');
const origin = () => new URL(stack.fakePlatformOrigin);
const TENANT_KEY = 'per-integration-test-key';

interface Recorded {
  /** Arrival times (ms) of each customer's POST /Users. */
  creates: number[];
  inFlight: number;
  mostInFlight: number;
}

let scim: ScimServer;
let proxy: http.Server;
const recorded = new Map<string, Recorded>();
const recordOf = (token: string) => {
  let found = recorded.get(token);
  if (!found) recorded.set(token, (found = { creates: [], inFlight: 0, mostInFlight: 0 }));
  return found;
};

beforeAll(async () => {
  scim = await startScimServer({ port: 0, token: 'operator-token', maxOperations: 1, tenants: { key: TENANT_KEY } });
  const target = new URL(scim.url);
  proxy = http.createServer((req, res) => {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    const record = recordOf(token);
    const creating = req.method === 'POST' && /\/Users$/.test(req.url ?? '');
    if (creating) {
      record.creates.push(performance.now());
      record.mostInFlight = Math.max(record.mostInFlight, ++record.inFlight);
    }
    const forward = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('end', () => {
        if (creating) record.inFlight--;
      });
    });
    forward.on('error', () => {
      if (creating) record.inFlight--;
      res.destroy();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(Number(origin().port), origin().hostname, resolve));
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await scim?.stop();
});

const pacing = { requestsPerMinute: 1200, concurrency: 2 };

/** A Pro customer with its own directory (a tenant of the server), paced to `pacing`. */
async function customer(): Promise<{ user: ApiUser; integration: Integration; token: string }> {
  const user = await apiUser();
  await upgradeToPro(user);
  const token = localScimTenantToken(TENANT_KEY, user.sub);
  const integration = await user.json<Integration>('/api/integrations', {
    body: {
      name: 'Own directory',
      platform: 'custom',
      baseUrl: `${origin().origin}${new URL(scim.url).pathname}`,
      authMethod: 'bearer_token',
      authConfig: { token },
      apiConfig: { testPath: '/ServiceProviderConfig', provisioning: pacing },
    },
  });
  return { user, integration, token };
}

/** A project of `count` people, created here only. */
async function project(user: ApiUser, count: number, name: string): Promise<Project> {
  const created = await user.json<{ project: Project; job?: BulkJob }>('/api/bulk-create', { body: { projectName: name, csvData: people(count, name.replace(/\W/g, '')) } });
  if (created.job) await until(`${name} created`, () => user.json<BulkJob>(`/api/bulk-jobs/${created.job!.id}`), (job) => job.status === 'completed', 180_000, 250);
  return created.project;
}

const provision = (user: ApiUser, projectId: string, integrationId: string) => user.json<ProvisioningJob>(`/api/projects/${projectId}/provision`, { method: 'POST', body: { integrationId } });
const ended = (user: ApiUser, runId: string, ms = 240_000) =>
  until(`run ${runId}`, () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${runId}`), (job) => job.status === 'completed' || job.status === 'failed', ms, 100);

/** The directory's users as the platform lists them (its own count: lost or duplicated people show here). */
async function directoryUsers(token: string): Promise<string[]> {
  const names: string[] = [];
  for (let start = 1; ; start += 200) {
    const answer = await fetch(`${scim.url}/Users?startIndex=${start}&count=200`, { headers: { authorization: `Bearer ${token}` } });
    const page = ((await answer.json()) as { Resources?: { userName: string }[] }).Resources ?? [];
    names.push(...page.map((user) => user.userName));
    if (page.length < 200) return names;
  }
}

/**
 * The most creations any window of `windowMs` saw: a token bucket of `perMinute` with a burst of
 * `burst` lets through at most burst + perMinute x windowMs / 60,000 in any window.
 */
function mostInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! > windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
const allowedIn = (windowMs: number) => pacing.concurrency + Math.floor((pacing.requestsPerMinute * windowMs) / 60_000) + 1;

describe('provisioning paced per integration, workers shared fairly between customers', () => {
  it("two customers' runs at once, each on its own directory and its own limit: the small one is not held up by the large one, nobody is lost or created twice", async () => {
    const large = await customer();
    const small = await customer();
    const largeProject = await project(large.user, 600, 'Large customer');
    const [smallAlone, smallBeside] = [await project(small.user, 30, 'Small alone'), await project(small.user, 30, 'Small beside')];

    // The small customer alone on the idle stack.
    let began = performance.now();
    const alone = await ended(small.user, (await provision(small.user, smallAlone.id, small.integration.id)).id);
    const aloneMs = performance.now() - began;
    expect(alone).toMatchObject({ status: 'completed', total: 30, synced: 30, failed: 0, pending: 0 });

    // The large customer's 600 (3 chunks, ~30 s at its 1,200 a minute), then the small one's 30 beside it.
    const largeRun = await provision(large.user, largeProject.id, large.integration.id);
    await until('the large run calling its platform', async () => recordOf(large.token).creates.length, (n) => n >= 20, 120_000, 50);
    began = performance.now();
    const beside = await ended(small.user, (await provision(small.user, smallBeside.id, small.integration.id)).id);
    const besideMs = performance.now() - began;
    expect(beside).toMatchObject({ status: 'completed', total: 30, synced: 30, failed: 0, pending: 0 });
    // Fair: the small run took a worker of its own at once (the large one holds one), not a turn behind the large run's chunks.
    const largeThen = await large.user.json<ProvisioningJob>(`/api/provisioning-jobs/${largeRun.id}`);
    expect(largeThen.status).toBe('running');
    expect(besideMs, `beside the large run ${Math.round(besideMs)} ms, alone ${Math.round(aloneMs)} ms`).toBeLessThanOrEqual(2 * aloneMs);

    const largeDone = await ended(large.user, largeRun.id);
    expect(largeDone).toMatchObject({ status: 'completed', total: 600, synced: 600, failed: 0, pending: 0 });

    // Each customer's platform saw its own people once each, and never more than its own limits.
    const largeUsers = await directoryUsers(large.token);
    const smallUsers = await directoryUsers(small.token);
    expect(largeUsers).toHaveLength(600);
    expect(new Set(largeUsers).size).toBe(600);
    expect(smallUsers).toHaveLength(60);
    expect(new Set(smallUsers).size).toBe(60);
    for (const who of [large, small]) {
      const record = recordOf(who.token);
      expect(record.mostInFlight).toBeLessThanOrEqual(pacing.concurrency);
      for (const windowMs of [1000, 5000]) expect(mostInWindow(record.creates, windowMs), `${windowMs} ms`).toBeLessThanOrEqual(allowedIn(windowMs));
    }
    expect(recordOf(large.token).creates).toHaveLength(600);
  }, 600_000);

  it("two jobs of one customer on one integration at once take turns on it: together they keep to its limits, and both finish", async () => {
    const one = await customer();
    const [first, second] = [await project(one.user, 300, 'Turns first'), await project(one.user, 300, 'Turns second')];
    const runs = [await provision(one.user, first.id, one.integration.id), await provision(one.user, second.id, one.integration.id)];
    const done = await Promise.all(runs.map((run) => ended(one.user, run.id)));
    for (const job of done) expect(job).toMatchObject({ status: 'completed', total: 300, synced: 300, failed: 0, pending: 0 });

    const record = recordOf(one.token);
    // However many workers run the two jobs' chunks, the integration's calls keep to its own limits.
    expect(record.mostInFlight).toBeLessThanOrEqual(pacing.concurrency);
    for (const windowMs of [1000, 5000, 10_000]) expect(mostInWindow(record.creates, windowMs), `${windowMs} ms`).toBeLessThanOrEqual(allowedIn(windowMs));
    const users = await directoryUsers(one.token);
    expect(users).toHaveLength(600);
    expect(new Set(users).size).toBe(600);
    expect(record.creates).toHaveLength(600);
  }, 600_000);
});
