/**
 * `npm run bench -- directory`: GET /api/accounts (the Account Database without a term) for a
 * user with 1,000 accounts and a user with many more, against the local stack (the gateway, the
 * accounts handler, DynamoDB Local), page by page with several filter combinations: p95 of a
 * page of 25 for each user, their ratio, and the items a page read (the same function called
 * in process, which counts them).
 *
 * Both users' accounts are written straight to the table with the item the bulk path writes
 * (accountItem: keys, the four search index keys), in projects of 10,000 accounts over 10
 * shards (as an import of that size), with their PROV and MAIL state blocks (1% Sync Failed, 90%
 * Synced, the rest Pending; 60% of the e-mails sent) and the project counters as the writers keep
 * them, and the blocks' Sync Failed lists as provisioning writes them (the projects marked as
 * filled: the steady state, not the one-time fill of older projects). Writing 1,000,000 items to DynamoDB Local takes long on this machine: the large user has
 * DIRECTORY_BENCH_ACCOUNTS accounts (default 200,000), and the output says how many.
 * DIRECTORY_BENCH_PER_PROJECT (default 10,000) sets the size of the projects (smaller: more projects
 * for the same accounts, the first page's project items grow with them).
 * DIRECTORY_BENCH_ONLY (a part of a combination's name, e.g. `term`) measures only the matching ones.
 * DIRECTORY_BENCH_ROUNDS (default 1) measures every combination that many times over the same
 * table (a run of its own each, printed with its round): the seeding of 1,000,000 is done once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { accountItem } from '../functions/accounts/account-item';
import { STATE_BLOCK_ROWS } from '../functions/accounts/account-states';
import { browseAccounts } from '../functions/accounts/browse-accounts';
import { keys } from '../functions/core/keys';
import { timeOrderedId } from '../functions/core/ids';
import { directoryQuerySchema } from '../shared/schemas/account-directory';
import { createTestUser } from '../test/support/cognito-users';
import { benchOffset } from './ports';

const TABLE = 'bulkonboard';
const SMALL = 1_000;
const LARGE = Number(process.env.DIRECTORY_BENCH_ACCOUNTS ?? 200_000);
const PER_PROJECT = Math.max(1, Number(process.env.DIRECTORY_BENCH_PER_PROJECT ?? 10_000) || 10_000);
const REQUESTS = 40;
const ROUNDS = Math.max(1, Number(process.env.DIRECTORY_BENCH_ROUNDS ?? 1) || 1);

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;

/** The combinations measured: each a query string of GET /api/accounts. */
const combinations: [string, Record<string, string>][] = [
  ['no filter, newest first', {}],
  ['Sync Failed', { platformStatus: 'failed' }],
  ['Synced + e-mail sent', { platformStatus: 'success', emailStatus: 'sent' }],
  ['Pending + Standard User + active', { platformStatus: 'pending', accountType: 'Standard User', state: 'active' }],
  ['by name', { sort: 'name' }],
  ['by project + Synced', { sort: 'project', platformStatus: 'success' }],
  ['term + Synced', { q: 'pers', platformStatus: 'success' }],
];

function statusOf(row: number): 'failed' | 'success' | 'pending' {
  if (row % 100 === 37) return 'failed';
  return row % 10 === 9 ? 'pending' : 'success';
}

async function writeUser(db: DynamoDBDocumentClient, userId: string, total: number, log: (m: string) => void) {
  const projects = Math.ceil(total / PER_PROJECT);
  const started = Date.now();
  let written = 0;
  for (let p = 0; p < projects; p++) {
    const count = Math.min(PER_PROJECT, total - p * PER_PROJECT);
    const shards = count > 1000 ? Math.min(16, Math.ceil(count / 1000)) : 1;
    const createdAt = new Date(Date.now() - (projects - p) * 3_600_000);
    const projectId = timeOrderedId(createdAt);
    const rows = Array.from({ length: count }, (_, i) => i + 1);
    const failed = rows.filter((row) => statusOf(row) === 'failed').length;
    const synced = rows.filter((row) => statusOf(row) === 'success').length;
    const sent = rows.filter((row) => row % 5 < 3).length;
    // As the app leaves a project provisioned and sent to, never acted on: no ACT blocks (`noStatesYet`).
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: `Project ${p}`, accountType: 'Standard User', status: 'active', accountCount: count, failedCount: 0, accountShards: shards, syncedCount: synced, syncFailedCount: failed, emailSentCount: sent, statusListsAt: createdAt.toISOString(), noStatesYet: new Set(['ACT']), createdAt: createdAt.toISOString(), updatedAt: createdAt.toISOString() },
      }),
    );
    const items: Record<string, unknown>[] = rows.map((row) =>
      accountItem(
        {
          id: keys.accountId(projectId, row),
          userId,
          projectId,
          projectName: `Project ${p}`,
          row,
          firstName: `Person${row}`,
          lastName: `${String.fromCharCode(97 + (row % 26))}ster${row}`,
          email: `person${row}.${p}@example.com`,
          username: `person${row}p${p}`,
          passwordCiphertext: 'not-read-in-this-bench',
          accountType: 'Standard User',
          isActive: true,
          externalStatus: 'pending',
          createdAt: createdAt.toISOString(),
        },
        shards,
      ),
    );
    // The state blocks as the writer leaves them: one per channel, shard and STATE_BLOCK_ROWS of its rows.
    const width = STATE_BLOCK_ROWS * shards;
    for (let first = 1; first <= count; first += width) {
      for (let shard = 0; shard < shards; shard++) {
        const prov: Record<string, unknown> = {};
        const mail: Record<string, unknown> = {};
        for (let row = first; row < first + width && row <= count; row++) {
          if (row % shards !== shard) continue;
          const status = statusOf(row);
          if (status !== 'pending') prov[String(row)] = status === 'failed' ? { externalStatus: 'failed', externalError: 'Refused', provisionRun: 'bench' } : { externalStatus: 'success', externalAccountId: `x${row}`, provisionRun: 'bench' };
          if (row % 5 < 3) mail[String(row)] = { emailStatus: 'sent', emailMessageId: `m${row}` };
        }
        for (const [channel, entries] of [['PROV', prov], ['MAIL', mail]] as const) {
          if (Object.keys(entries).length) items.push({ ...keys.accountStateBlock(userId, projectId, channel, first, shard), entityType: 'AccountStates', userId, projectId, channel, shard, fromRow: first, rows: entries, version: 1 });
        }
        // The block's Sync Failed list, as provisioning writes it with the block (provStatusLists).
        const failedRows = Object.entries(prov).filter(([, entry]) => (entry as { externalStatus: string }).externalStatus === 'failed').map(([row]) => Number(row)).sort((a, b) => a - b);
        if (failedRows.length) items.push({ ...keys.accountStatusList(userId, projectId, 'failed', first, shard), entityType: 'AccountStatusList', userId, projectId, status: 'failed', shard, fromRow: first, rows: failedRows, blockVersion: 1 });
      }
    }
    const batches: Record<string, unknown>[][] = [];
    for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < batches.length) {
          let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
          while (pending.length) {
            const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: pending } }));
            pending = (UnprocessedItems?.[TABLE] ?? []) as typeof pending;
          }
        }
      }),
    );
    written += count;
    if (projects > 1 && (p % 5 === 4 || p === projects - 1)) log(`  wrote ${written.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} accounts (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.user(userId), UpdateExpression: 'SET subscriptionPlan = :pro, accountCount = :n, projectCount = :p', ExpressionAttributeValues: { ':pro': 'pro', ':n': total, ':p': projects } }));
}

export async function directoryBench(): Promise<void> {
  console.log(`\n== GET /api/accounts (Account Database, filtered pages of 25): ${SMALL.toLocaleString('en-US')} accounts against ${LARGE.toLocaleString('en-US')} (local stack)`);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-directory');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(22_500)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const signedIn = async () => {
      const user = await createTestUser(stack.urls.cognito, stack.userPool);
      const call = async (query: string) => {
        const response = await fetch(`${stack.urls.app}/api/accounts?${query}`, { headers: { authorization: `Bearer ${user.accessToken}` } });
        if (!response.ok) throw new Error(`/api/accounts?${query}: ${response.status} ${await response.text()}`);
        return (await response.json()) as { items: unknown[]; count: number; countIs: string; nextCursor?: string };
      };
      await fetch(`${stack.urls.app}/api/auth/user`, { headers: { authorization: `Bearer ${user.accessToken}` } });
      return { user, call };
    };
    const small = await signedIn();
    const large = await signedIn();
    await writeUser(db, small.user.sub, SMALL, console.log);
    const writing = Date.now();
    await writeUser(db, large.user.sub, LARGE, console.log);
    console.log(`  the large user's ${LARGE.toLocaleString('en-US')} accounts and their state blocks written straight to the table in ${((Date.now() - writing) / 1000).toFixed(0)} s (not through the bulk path)`);

    // Every item DynamoDB returns to the in-process call (projects, accounts, index entries, state blocks).
    const counted = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    // By kind: the project items (the first page's count reads one per project: pattern 73), the
    // state blocks and status lists, and the rest (index entries and accounts).
    let returned = { all: 0, projects: 0, states: 0 };
    counted.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const output = result.output as { Items?: Record<string, unknown>[]; Responses?: Record<string, Record<string, unknown>[]> };
        for (const item of [...(output.Items ?? []), ...Object.values(output.Responses ?? {}).flat()]) {
          returned.all++;
          if (item.entityType === 'Project') returned.projects++;
          else if (item.channel !== undefined || item.entityType === 'AccountStates' || item.entityType === 'AccountStatusList') returned.states++;
        }
        return result;
      },
      { step: 'initialize', name: 'countReturnedItems' },
    );
    const browse = browseAccounts({ db: counted, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords in this bench')) });
    const readBy = async (userId: string, parsed: ReturnType<typeof directoryQuerySchema.parse>) => {
      returned = { all: 0, projects: 0, states: 0 };
      const page = await browse(userId, parsed);
      return { ...page, returned };
    };
    const only = process.env.DIRECTORY_BENCH_ONLY?.toLowerCase();
    const measured = combinations.filter(([name]) => !only || name.toLowerCase().includes(only));
    for (const [round, name, params] of Array.from({ length: ROUNDS }, (_, r) => measured.map(([name, params]) => [r + 1, name, params] as const)).flat()) {
      const query = new URLSearchParams({ limit: '25', ...params }).toString();
      // Warm both users' path, then alternate them (the same JVM and handler warmth for both).
      for (let i = 0; i < 5; i++) await Promise.all([small.call(query), large.call(query)]);
      const times = { small: [] as number[], large: [] as number[] };
      // Pages 1 to 3 of the listing, in turn: a page after a cursor costs what the first does.
      const cursors: Record<'small' | 'large', (string | undefined)[]> = { small: [undefined], large: [undefined] };
      for (const who of ['small', 'large'] as const) {
        for (let page = 0; page < 2; page++) {
          const cursor = cursors[who][page];
          const answer = await (who === 'small' ? small : large).call(`${query}${cursor ? `&cursor=${cursor}` : ''}`);
          cursors[who].push(answer.nextCursor);
        }
      }
      for (let i = 0; i < REQUESTS; i++) {
        for (const who of (i % 2 ? ['small', 'large'] : ['large', 'small']) as ('small' | 'large')[]) {
          const cursor = cursors[who][i % 3];
          const started = performance.now();
          await (who === 'small' ? small : large).call(`${query}${cursor ? `&cursor=${cursor}` : ''}`);
          times[who].push(performance.now() - started);
        }
      }
      const parsed = directoryQuerySchema.parse({ limit: '25', ...params });
      const smallPage = await readBy(small.user.sub, parsed);
      const largePage = await readBy(large.user.sub, parsed);
      // A later page: what a page costs once the count is known (it rides in the cursor newest first).
      const later = async (userId: string, page: { nextCursor?: string }) => (page.nextCursor ? (await readBy(userId, { ...parsed, cursor: page.nextCursor })).returned : undefined);
      const [smallLater, largeLater] = [await later(small.user.sub, smallPage), await later(large.user.sub, largePage)];
      const laterText = (r: typeof smallLater) => (r ? `${r.all} (${r.projects} projects, ${r.states} blocks)` : 'none');
      console.log(
        `  ${ROUNDS > 1 ? `[${round}/${ROUNDS}] ` : ''}${name.padEnd(34)} p95 ${p95(times.small).toFixed(1).padStart(6)} ms vs ${p95(times.large).toFixed(1).padStart(6)} ms, ratio ${(p95(times.large) / p95(times.small)).toFixed(2)}x;` +
          ` first page: ${smallPage.items.length} vs ${largePage.items.length} shown, accounts/index entries read ${smallPage.itemsRead} vs ${largePage.itemsRead}, all items ${smallPage.returned.all} vs ${largePage.returned.all} (project items ${smallPage.returned.projects} vs ${largePage.returned.projects}, state blocks and lists ${smallPage.returned.states} vs ${largePage.returned.states}), count ${smallPage.count.toLocaleString('en-US')} vs ${largePage.count.toLocaleString('en-US')} (${largePage.countIs}); page 2: all items ${laterText(smallLater)} vs ${laterText(largeLater)}`,
      );
    }
  } finally {
    await stack.stop();
  }
}
