/**
 * GET /api/analytics for a user with 100 accounts and for a user with 1,000,000, against the
 * local stack (the gateway, the analytics handler, DynamoDB Local).
 *  - The small user creates its 100 accounts through POST /api/bulk-create.
 *  - The large user creates 1,000 accounts through POST /api/bulk-create too; the other 999,000
 *    are NOT created (that would take hours here): the counters the bulk path writes for them
 *    are written instead, with the same function and the same ADDs (100 projects of 9,990
 *    accounts spread over the last 12 months, 1% of rows refused), plus the project items, so the
 *    user looks to analytics exactly as after 1,000,000 real creations. The output says so.
 * Requests alternate between the two users (the same JVM and handler warmth for both); p95 of
 * each and their ratio on one line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { counterUpdates, monthOf, monthsUpTo } from '../functions/analytics/counters';
import { keys } from '../functions/core/keys';
import { timeOrderedId } from '../functions/core/ids';
import { createTestUser } from '../test/support/cognito-users';
import { benchOffset } from './ports';

const REQUESTS = 300;
const LARGE = 1_000_000;
const CREATED_FOR_REAL = 1_000;
const SIMULATED_PROJECTS = 100;

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;

export async function analyticsBench(): Promise<void> {
  console.log('\n== GET /api/analytics: a user with 100 accounts against one with 1,000,000 (local stack)');
  const dataDir = path.join(projectRoot, '.test-data', 'bench-analytics');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(35_000)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const signedIn = async () => {
      const user = await createTestUser(stack.urls.cognito, stack.userPool);
      const call = async <T>(p: string, body?: unknown): Promise<T> => {
        const response = await fetch(`${stack.urls.app}${p}`, {
          method: body ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        });
        if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
        return (await response.json()) as T;
      };
      await call('/api/auth/user');
      return { user, call };
    };
    const people = (count: number, tag: string) => Array.from({ length: count }, (_, i) => ({ firstName: `An${tag}`, lastName: `Person${i}`, email: `an.${tag}.${i}@example.com` }));

    const small = await signedIn();
    await small.call('/api/bulk-create', { projectName: 'Small', csvData: people(100, 's') });

    const large = await signedIn();
    // Pro, as a customer with a million accounts would be (the free plan stops at 300).
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(large.user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));
    await large.call('/api/bulk-create', { projectName: 'Real 1,000', csvData: people(CREATED_FOR_REAL, 'l') });
    // The first read fills nothing (the real project was counted when created); read once so the
    // simulated projects below are never taken for older ones.
    await large.call('/api/analytics');
    const now = new Date();
    const months = monthsUpTo(monthOf(now, 'UTC'), 12);
    const perProject = (LARGE - CREATED_FOR_REAL) / SIMULATED_PROJECTS;
    const refused = Math.round(perProject / 100);
    for (let i = 0; i < SIMULATED_PROJECTS; i++) {
      const month = months[i % months.length]!;
      const createdAt = new Date(`${month}-10T12:00:00Z`);
      const id = timeOrderedId(createdAt);
      // As the job path writes it: the project with its counters, then its chunks' counts.
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: 'bulkonboard',
                Item: { ...keys.project(large.user.sub, id), entityType: 'Project', id, userId: large.user.sub, name: `Simulated ${i}`, accountType: 'Standard User', status: 'active', accountCount: perProject, failedCount: refused, statsCounted: true, createdAt: createdAt.toISOString(), updatedAt: createdAt.toISOString() },
              },
            },
            ...counterUpdates('bulkonboard', large.user.sub, month, { projects: 1, rowsSettled: refused, rowsFailed: refused }),
          ],
        }),
      );
      for (let chunk = 0; chunk < Math.ceil(perProject / 500); chunk++) {
        const done = Math.min(500, perProject - chunk * 500);
        await db.send(new TransactWriteCommand({ TransactItems: counterUpdates('bulkonboard', large.user.sub, month, { accounts: done, rowsSettled: done }) }));
      }
      await db.send(new PutCommand({ TableName: 'bulkonboard', Item: { ...keys.activity(large.user.sub, createdAt.toISOString(), id), entityType: 'Activity', title: `${perProject} accounts created in "Simulated ${i}"`, timestamp: createdAt.toISOString() } }));
    }
    const check = await large.call<{ totalAccounts: number }>('/api/analytics');
    if (check.totalAccounts !== LARGE) throw new Error(`the large user shows ${check.totalAccounts} accounts, not ${LARGE}`);
    const smallCheck = await small.call<{ totalAccounts: number }>('/api/analytics');
    if (smallCheck.totalAccounts !== 100) throw new Error(`the small user shows ${smallCheck.totalAccounts} accounts, not 100`);

    const times = { small: [] as number[], large: [] as number[] };
    for (let i = 0; i < 20; i++) await Promise.all([small.call('/api/analytics'), large.call('/api/analytics')]);
    for (let i = 0; i < REQUESTS; i++) {
      for (const [name, who] of (i % 2 ? [['small', small], ['large', large]] : [['large', large], ['small', small]]) as ['small' | 'large', typeof small][]) {
        const started = performance.now();
        await who.call('/api/analytics');
        times[name].push(performance.now() - started);
      }
    }
    const smallP95 = p95(times.small);
    const largeP95 = p95(times.large);
    console.log(
      `analytics GET /api/analytics p95 (${REQUESTS} requests each): 100 accounts ${smallP95.toFixed(1)} ms, 1,000,000 accounts ${largeP95.toFixed(1)} ms, ratio ${(largeP95 / smallP95).toFixed(2)}x` +
        ` (large user: ${CREATED_FOR_REAL.toLocaleString('en-US')} accounts created through POST /api/bulk-create, the other ${(LARGE - CREATED_FOR_REAL).toLocaleString('en-US')} NOT created: their counters written as the bulk path writes them)`,
    );
  } finally {
    await stack.stop();
  }
}
