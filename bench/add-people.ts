/**
 * Adding 100 people to a project of 50,000 against creating a new project of 100, in the same
 * run, against the local stack (the gateway, the bulk handler, DynamoDB Local): the add must take
 * no longer than 1.2x the creation (median of alternating requests).
 *  - The 50,000-account project is NOT created through the API (minutes here): its project item
 *    (16 shards, as an import of that size has), its 50,000 account items and their username
 *    blocks are written straight into the table, as the bulk job writes them; the user's counters
 *    say 50,000 accounts. The output says so.
 *  - Each add and each creation is a real POST /api/bulk-create of 100 people answered at once
 *    (a Pro user: no plan limit in the way).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { createTestUser } from '../test/support/cognito-users';
import { figure } from './own-process';
import { seedLargeProject } from './large-project';
import { benchOffset } from './ports';

const EXISTING = 50_000;
const ADDED = 100;
const ROUNDS = 7;
const LIMIT = 1.2;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function addPeopleBench(): Promise<void> {
  console.log(`\n== Adding ${ADDED} people to a project of ${EXISTING.toLocaleString('en-US')} against creating a project of ${ADDED} (local stack)`);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-lifecycle');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(35_000)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
      marshallOptions: { removeUndefinedValues: true },
    });
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
    const userId = user.sub;

    // The large project, written as the bulk job writes it (bench/large-project.ts).
    const { projectId } = await seedLargeProject(db, userId, EXISTING);

    const people = (tag: string) => Array.from({ length: ADDED }, (_, i) => ({ firstName: `New${tag}`, lastName: `Person${i}`, email: `new.${tag}.${i}@example.com` }));
    const times = { add: [] as number[], create: [] as number[] };
    // One of each first, not timed (handler warmth).
    await call('/api/bulk-create', { projectName: 'Warm', csvData: people('warm') });
    await call('/api/bulk-create', { projectName: 'ignored', projectId, csvData: people('warmadd') });
    for (let round = 0; round < ROUNDS; round++) {
      const order: ('add' | 'create')[] = round % 2 ? ['create', 'add'] : ['add', 'create'];
      for (const kind of order) {
        const started = performance.now();
        const body = kind === 'add' ? { projectName: 'ignored', projectId, csvData: people(`a${round}`) } : { projectName: `New ${round}`, csvData: people(`c${round}`) };
        const answer = await call<{ summary: { successful: number } }>('/api/bulk-create', body);
        times[kind].push(performance.now() - started);
        if (answer.summary.successful !== ADDED) throw new Error(`${kind}: ${answer.summary.successful} of ${ADDED} created`);
      }
    }
    const [add, create] = [median(times.add), median(times.create)];
    const ratio = add / create;
    figure(
      `add ${ADDED} to a project of ${EXISTING.toLocaleString('en-US')}: median ${add.toFixed(0)} ms; new project of ${ADDED}: median ${create.toFixed(0)} ms; ratio ${ratio.toFixed(2)}x (target <= ${LIMIT}x; ${ROUNDS} rounds each, alternating)` +
        ` (the ${EXISTING.toLocaleString('en-US')} accounts were NOT created through the API: written into the table as the bulk job writes them)`,
    );
    if (ratio > LIMIT) throw new Error(`adding took ${ratio.toFixed(2)}x a creation (target <= ${LIMIT}x)`);
  } finally {
    await stack.stop();
  }
}
