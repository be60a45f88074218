/**
 * Bulk creation against the local stack, measured as ratios to what DynamoDB Local itself
 * allows in the same run (the emulator, not our code, sets the floor):
 *  - POST /api/bulk-create of 10,000 and 50,000 rows until every account is stored, beside a
 *    BatchWrite of the same number of ready-made account items (same shape, same writer) into
 *    the same DynamoDB Local, and of those plus one username item each (what an import stores
 *    now), written by BatchWrite and claimed as the job claims them (conditional transactions);
 *    and the time to the 202 answer.
 *  - What the username items cost: conditional (transactions) against plain BatchWrite.
 *  - WCU per account before and after, from a real item's size and the index projections.
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
import { aesGcmCipher, secretContext } from '../functions/core/encryption';
import { keys } from '../functions/core/keys';
import { tableDefinition } from '../functions/core/table-definition';
import { accountShardsFor } from '../functions/accounts/account-partitions';
import { createPasswordGenerator } from '../shared/generation/password';
import { defaultPasswordSettings } from '../shared/schemas/bulk';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * An item's size as DynamoDB bills it: each attribute's name plus its value (strings and binary
 * by UTF-8 bytes, numbers about one byte per two digits plus one, booleans and null one byte,
 * maps and lists 3 bytes plus their elements).
 */
export function itemSize(item: Record<string, unknown>): number {
  const valueSize = (value: unknown): number => {
    if (typeof value === 'string') return Buffer.byteLength(value);
    if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').replace(/^0+/, '').length / 2) + 1;
    if (typeof value === 'boolean' || value === null) return 1;
    if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueSize(v), 0);
    if (typeof value === 'object') return 3 + Object.entries(value as Record<string, unknown>).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + 1 + valueSize(v), 0);
    return 0;
  };
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}
const units = (bytes: number) => Math.ceil(bytes / 1024);

/**
 * Write units one account costs: its base item, one entry per search index (the whole item when
 * the index projects ALL; keys, index keys and the included attributes otherwise) and, after,
 * its username item written in a transaction (2 units per KB).
 */
export function writeUnitsPerAccount(account: Record<string, unknown>, claim?: Record<string, unknown>, projection: 'ALL' | 'INCLUDE' = 'INCLUDE') {
  const base = units(itemSize(account));
  const indexEntries = tableDefinition.globalSecondaryIndexes.map((index) => {
    if (projection === 'ALL') return units(itemSize(account));
    const entry: Record<string, unknown> = { PK: account.PK, SK: account.SK, [index.partitionKey]: account[index.partitionKey], [index.sortKey]: account[index.sortKey] };
    for (const name of index.projection.nonKeyAttributes) entry[name] = account[name];
    return units(itemSize(entry));
  });
  const claimUnits = claim ? 2 * units(itemSize(claim)) : 0;
  return { bytes: itemSize(account), base, indexes: indexEntries.reduce((a, b) => a + b, 0), claim: claimUnits, total: base + indexEntries.reduce((a, b) => a + b, 0) + claimUnits };
}

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
          passwordCiphertext: cipher.encrypt(nextPassword(), secretContext.account(user.sub, keys.accountId(projectId, i + 1))),
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

      // Each account now also has its username item. Two floors for the same data, measured after
      // the job on the same emulator: both written by BatchWrite (no condition), and the names
      // claimed as the job must claim them (conditional puts in transactions of 100: unique without
      // relying on the lock; see docs/data-model.md) beside the accounts' BatchWrite.
      const nameItems = items.map((item) => ({ ...keys.username(user.sub, `floor-${String(item.username)}`), entityType: 'Username', username: `floor-${String(item.username)}`, projectId, accountId: item.id }));
      const namesStart = performance.now();
      await store.writeAll(nameItems);
      const namesFloor = performance.now() - namesStart;
      const claims = items.map((item) => ({ username: `claim-${String(item.username)}`, projectId: `claims-${size}`, accountId: keys.accountId(`claims-${size}`, Number(item.row)) }));
      const claimStart = performance.now();
      await store.claimUsernames(user.sub, claims);
      const claimed = performance.now() - claimStart;
      console.log(
        `  ${size.toLocaleString('en-US').padStart(6)} rows: 202 in ${answered.toFixed(0)} ms; all stored in ${seconds(total)}; ` +
          `BatchWrite of ${size.toLocaleString('en-US')} ready items ${seconds(baseline)}; ratio ${(total / baseline).toFixed(2)}x (target <= 1.1x); ` +
          `with their ${size.toLocaleString('en-US')} username items also by BatchWrite ${seconds(baseline + namesFloor)}: ratio ${(total / (baseline + namesFloor)).toFixed(2)}x; ` +
          `with the username items claimed as the job claims them (conditional) ${seconds(baseline + claimed)}: ratio ${(total / (baseline + claimed)).toFixed(2)}x`,
      );

      if (size === 50_000) {
        // What the job's username claims cost by themselves (conditional puts in transactions of
        // 100), beside the other way weighed: the same items by BatchWrite (no condition; unique
        // only while the user's lock holds and every read is strongly consistent).
        console.log(
          `  username items for 50,000 accounts: conditional (TransactWriteItems of 100) ${seconds(claimed)}; unconditional BatchWrite ${seconds(namesFloor)} ` +
            `(${((claimed / baseline) * 100).toFixed(0)}% of the accounts' own BatchWrite time)`,
        );
      }
    }

    // Write units per account, from a real account item (long-ish names) and the index projections.
    const sample = accountItem(
      {
        id: keys.accountId('0190f0e2-8a4c-7d1e-9a2b-3c4d5e6f7a8b', 12_345),
        userId: '8f2c1d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
        projectId: '0190f0e2-8a4c-7d1e-9a2b-3c4d5e6f7a8b',
        projectName: 'Spring 2026 onboarding',
        row: 12_345,
        firstName: 'Christopher',
        lastName: 'Richardson',
        email: 'christopher.richardson@example.com',
        username: 'christopherrichardson2026',
        passwordCiphertext: cipher.encrypt(nextPassword(), secretContext.account('8f2c1d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', 'x')),
        accountType: 'Standard User',
        isActive: true,
        externalStatus: 'pending',
        createdAt: new Date().toISOString(),
      },
      accountShardsFor(50_000),
    );
    const claimItem = { ...keys.username(String(sample.userId), String(sample.username)), entityType: 'Username', username: sample.username, projectId: sample.projectId, accountId: sample.id };
    const before = writeUnitsPerAccount(sample, undefined, 'ALL');
    const after = writeUnitsPerAccount(sample, claimItem, 'INCLUDE');
    console.log(
      `  WCU per account (item ${before.bytes} B): before ${before.total} (base ${before.base} + 4 indexes projecting ALL ${before.indexes}); ` +
        `after ${after.total} (base ${after.base} + 4 indexes projecting keys, id and names ${after.indexes} + username item in a transaction ${after.claim})`,
    );

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
