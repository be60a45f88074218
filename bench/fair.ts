/**
 * Fair turns on the shared bulk queue (issue 15, part 5), against the local stack:
 *  - a 100-row creation (answered at once, no queue: up to SYNC_ROW_LIMIT rows) and a 1,500-row
 *    job (queued: 3 chunks) of one user, each timed from the request to every account stored,
 *    first on an idle stack, then while another user's 50,000-row job (100 chunks, the largest
 *    the request path takes) runs;
 *  - printed side by side with their ratio (target <= 2x), and how far the large job had got
 *    when the small one ended. Measured, never asserted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { benchPortShift } from './ports';
import { startLocalStack } from '../bin/local/stack';
import { createTestUser } from '../test/support/cognito-users';
import { keys } from '../functions/core/keys';
import type { BulkJob } from '../shared/schemas/bulk';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const people = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ firstName: `${tag}${i}`, lastName: 'Fair', email: `${tag}${i}@example.com`.toLowerCase() }));

export async function fairBench(): Promise<void> {
  console.log('\n== Fair bulk queue: a small job while another user\'s 50,000-row job runs, beside the same job on an idle stack');
  const dataDir = path.join(projectRoot, '.test-data', 'bench-fair');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, 15_000 + benchPortShift), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const proUser = async () => {
      const user = await createTestUser(stack.urls.cognito, stack.userPool);
      const api = (p: string, body?: unknown) =>
        fetch(`${stack.urls.app}${p}`, {
          method: body ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        });
      await api('/api/auth/user');
      await api('/api/bulk-jobs/warm-up');
      await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));
      return api;
    };
    type Api = Awaited<ReturnType<typeof proUser>>;
    const jobOf = async (api: Api, id: string) => (await (await api(`/api/bulk-jobs/${id}`)).json()) as BulkJob & { waitReason?: string };
    /** From the request to every account stored: the 200 answer, or the job's end. */
    const timed = async (api: Api, rows: number, tag: string): Promise<{ ms: number; kind: string; reasons: Set<string> }> => {
      const began = performance.now();
      const response = await api('/api/bulk-create', { projectName: `Fair ${tag}`, csvData: people(rows, tag) });
      if (response.status === 200) return { ms: performance.now() - began, kind: 'answered at once', reasons: new Set() };
      if (response.status !== 202) throw new Error(`${rows} rows: ${response.status} ${await response.text()}`);
      const { job } = (await response.json()) as { job: BulkJob };
      const reasons = new Set<string>();
      for (;;) {
        const now = await jobOf(api, job.id);
        if (now.waitReason) reasons.add(now.waitReason);
        if (now.status === 'failed') throw new Error(`${rows} rows: the job failed: ${now.reason ?? ''}`);
        if (now.status === 'completed') return { ms: performance.now() - began, kind: 'a job', reasons };
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // The worker loaded once, as a warm Lambda would be (the local stack runs TypeScript through tsx).
    await import('../functions/workers/bulk-worker');
    await timed(await proUser(), 1500, 'warm');

    const idle100 = await timed(await proUser(), 100, 'idle100');
    const idle1500 = await timed(await proUser(), 1500, 'idle1500');

    const large = await proUser();
    const began = performance.now();
    const started = await large('/api/bulk-create', { projectName: 'Fair large', csvData: people(50_000, 'large') });
    if (started.status !== 202) throw new Error(`50,000 rows: ${started.status} ${await started.text()}`);
    const { job: largeJob } = (await started.json()) as { job: BulkJob };
    // The small ones come while it runs: once its first rows are stored.
    for (let job = await jobOf(large, largeJob.id); job.done === 0; job = await jobOf(large, largeJob.id)) await new Promise((r) => setTimeout(r, 100));
    const busy100 = await timed(await proUser(), 100, 'busy100');
    const busy1500 = await timed(await proUser(), 1500, 'busy1500');
    const largeThen = await jobOf(large, largeJob.id);
    let largeEnd = largeThen;
    while (largeEnd.status !== 'completed' && largeEnd.status !== 'failed') {
      await new Promise((r) => setTimeout(r, 250));
      largeEnd = await jobOf(large, largeJob.id);
    }
    const largeMs = performance.now() - began;

    const line = (rows: number, idle: { ms: number; kind: string }, busy: { ms: number }) =>
      `  ${rows.toLocaleString('en-US').padStart(5)} rows (${idle.kind}): idle stack ${seconds(idle.ms)}; while another user's 50,000-row job runs ${seconds(busy.ms)}; ratio ${(busy.ms / idle.ms).toFixed(2)}x (target <= 2x)`;
    console.log(line(100, idle100, busy100));
    console.log(line(1500, idle1500, busy1500));
    console.log(`  the 50,000-row job had ${(largeThen.done + largeThen.failedCount).toLocaleString('en-US')} of 50,000 rows stored when the 1,500-row job ended; it ended ${largeEnd.status} (${largeEnd.done.toLocaleString('en-US')} stored) after ${seconds(largeMs)}`);
    // The first and the last sentence it showed (the count goes down as the chunks ahead are written).
    const said = [...busy1500.reasons];
    const shown = said.length > 2 ? [said[0]!, `... ${said.length - 2} more ...`, said[said.length - 1]!] : said;
    console.log(`  what the 1,500-row job said while queued: ${shown.length ? shown.map((r) => (r.startsWith('...') ? r : `"${r}"`)).join(' / ') : '(never seen queued: picked up before the first poll)'}`);
  } finally {
    await stack.stop();
  }
}
