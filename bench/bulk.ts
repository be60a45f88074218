/**
 * Bulk creation against the local stack, measured as ratios to what DynamoDB Local itself
 * allows in the same run (the emulator, not our code, sets the floor):
 *  - POST /api/bulk-create of 10,000 and 50,000 rows until every account is stored, beside a
 *    BatchWrite of the same number of ready-made account items (same shape, same writer) into
 *    the same DynamoDB Local; and the time to the 202 answer.
 *  - Account search p95 for a user with over 100,000 accounts.
 *  - Peak RSS of one bulk-worker invocation (a 500-row chunk), in a child process.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { benchPortShift } from './ports';
import { startLocalStack } from '../bin/local/stack';
import { createTestUser } from '../test/support/cognito-users';
import { accountItem } from '../functions/accounts/account-item';
import { dynamoBulkStore } from '../functions/bulk/bulk-store';
import { aesGcmCipher } from '../functions/core/encryption';
import { keys } from '../functions/core/keys';
import { createPasswordGenerator } from '../shared/generation/password';
import { defaultPasswordSettings } from '../shared/schemas/bulk';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// Realistic people: names spread over initials like real lists (the search index is sharded by them).
const FIRST = 'James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty Anthony Sandra Mark Margaret Donald Ashley Steven Kimberly Andrew Emily Paul Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa George Deborah Timothy Stephanie Ronald Dorothy Jason Rebecca Edward Sharon Jeffrey Laura Ryan Cynthia Jacob Amy Gary Kathleen Nicholas Angela Eric Shirley Jonathan Brenda Stephen Emma Larry Anna Justin Pamela Scott Nicole Brandon Samantha Benjamin Katherine Samuel Christine Gregory Helen Alexander Debra Patrick Rachel Frank Carolyn Raymond Janet Jack Maria Dennis Olivia Jerry Heather Tyler Diane Aaron Julie Jose Joyce Adam Victoria Nathan Ruth Henry Virginia Zachary Lauren Douglas Kelly Peter Christina Kyle Joan Noah Evelyn Ethan Judith Jeremy Andrea Walter Hannah Christian Megan Keith Cheryl Roger Jacqueline Terry Martha Austin Madison Sean Teresa Gerald Gloria Carl Sara Harold Janice Dylan Ann Arthur Kathryn Lawrence Abigail Jordan Sophia Jesse Frances Bryan Jean Billy Alice Bruce Judy Gabriel Isabella Joe Julia Logan Grace Alan Amber Juan Denise Albert Danielle Willie Marilyn Elijah Beverly Wayne Charlotte Randy Natalie Vincent Theresa Mason Diana Roy Brittany Ralph Doris Bobby Kayla Russell Alexis Bradley Lori Philip Marie'.split(' ');
const LAST = 'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce Vazquez Hansen Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson Carroll Lane Riley Andrews'.split(' ');
const person = (i: number, tag: string) => {
  const firstName = FIRST[i % FIRST.length]!;
  const lastName = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
  return { firstName, lastName, email: `${firstName}.${lastName}.${tag}${i}@example.com`.toLowerCase() };
};

export async function bulkBench(): Promise<void> {
  console.log('\n== Bulk creation against the local stack (DynamoDB Local in memory)');
  const dataDir = path.join(projectRoot, '.test-data', 'bench-bulk');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, 40_000 + benchPortShift), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    const db = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    );
    // A fresh Pro user per run, as a new customer importing a file.
    const proUser = async () => {
      const user = await createTestUser(stack.urls.cognito, stack.userPool);
      const api = (p: string, body?: unknown) =>
        fetch(`${stack.urls.app}${p}`, {
          method: body ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        });
      await api('/api/auth/user');
      // Load the bulk handler once (a Lambda cold start is not what this measures).
      await api('/api/bulk-jobs/warm-up');
      await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));
      return { user, api };
    };
    let searchUser: Awaited<ReturnType<typeof proUser>> | undefined;
    // The local stack runs TypeScript through tsx: load the worker once, as a warm Lambda would be.
    await import('../functions/workers/bulk-worker');

    const store = dynamoBulkStore(db, 'bulkonboard');
    const cipher = aesGcmCipher(randomBytes(32));
    const nextPassword = createPasswordGenerator(defaultPasswordSettings, randomBytes);

    for (const size of [10_000, 50_000]) {
      const current = await proUser();
      const { user, api } = current;
      searchUser = current;
      const rows = Array.from({ length: size }, (_, i) => person(i, `b${size}-`));
      // Baseline first (the emulator's JVM warms up on it): the same number of ready-made items of
      // the same shape, written by the same writer.
      const projectId = `baseline-${size}`;
      const items = rows.map((row, i) =>
        accountItem({
          id: keys.accountId(projectId, i + 1),
          userId: user.sub,
          projectId,
          projectName: 'Baseline',
          row: i + 1,
          ...person(i, `r${size}-`),
          username: `baseline${size}-${i}`,
          passwordCiphertext: cipher.encrypt(nextPassword()),
          accountType: 'Standard User',
          isActive: true,
          externalStatus: 'pending',
          createdAt: new Date().toISOString(),
        }),
      );
      const baseStart = performance.now();
      await store.writeAll(items);
      const baseline = performance.now() - baseStart;
      const began = performance.now();
      const response = await api('/api/bulk-create', { projectName: `Bench ${size}`, csvData: rows });
      const answered = performance.now() - began;
      const { job } = (await response.json()) as { job: { id: string } };
      let status = '';
      while (status !== 'completed' && status !== 'failed') {
        await new Promise((r) => setTimeout(r, 100));
        status = ((await (await api(`/api/bulk-jobs/${job.id}`)).json()) as { status: string }).status;
      }
      const total = performance.now() - began;

      console.log(
        `  ${size.toLocaleString('en-US').padStart(6)} rows: 202 in ${answered.toFixed(0)} ms; all stored in ${seconds(total)}; ` +
          `BatchWrite of ${size.toLocaleString('en-US')} ready items ${seconds(baseline)}; ratio ${(total / baseline).toFixed(2)}x (target <= 1.5x)`,
      );
    }

    // The last user now has 100,000 accounts (50,000 created, 50,000 written directly): search latency.
    const { api } = searchUser!;
    const prefixes = ['j', 'ma', 'smi', 'robert', 'gonz', 'patricia.w', 'jameswilliams', 'zzz', 'e', 'thompson', 'baseline50000-7', 'kim', 'l', 'sarah.m', 'x'];
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const q = prefixes[i % prefixes.length]!;
      const t = performance.now();
      const res = await api(`/api/accounts/search?q=${encodeURIComponent(q)}`);
      await res.json();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(
      `  search, user with 100,000 accounts, 200 requests: p50 ${times[100]!.toFixed(1)} ms, p95 ${times[190]!.toFixed(1)} ms, max ${times[199]!.toFixed(1)} ms (target p95 < 100 ms)`,
    );

    // One worker invocation in a child process: peak RSS.
    const probe = spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'bench', 'worker-memory.ts')], {
      cwd: projectRoot,
      env: { ...process.env, BENCH_USER_ID: searchUser!.user.sub },
      encoding: 'utf8',
    });
    console.log(`  ${probe.stdout.trim() || `worker probe failed: ${probe.stderr.slice(-500)}`}`);
  } finally {
    await stack.stop();
  }
}
