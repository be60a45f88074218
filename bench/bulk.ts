/**
 * Bulk creation against the local stack, measured as ratios to what DynamoDB Local itself
 * allows in the same run (the emulator, not our code, sets the floor):
 *  - POST /api/bulk-create of 10,000 and 50,000 rows until every account is stored, beside a
 *    bare BatchWrite of everything the import stored (accounts, username blocks, the project's and
 *    job's own items: read back after the job and written again under another user by the same
 *    writer, on the app's client with the same capacity meter): like with like (target <= 1.15x).
 *    A 5,000-row import and its bare write run first, untimed: the emulator's JIT warm on every path
 *    both take. The pair runs BENCH_BULK_ROUNDS times (3), each with a fresh user, and the median of
 *    the ratios is printed: one pair swings 0.9-1.3x on two shared cores. Beside it, where the time went: CPU of this process and of DynamoDB Local in each, the
 *    job's chunks (from the worker's deliveries) and the import's DynamoDB requests by kind. Also, as before, beside the accounts alone and with
 *    one username item each (the import no longer writes those: it flatters), and the time to the 202.
 *  - Write capacity per account: what the import consumed (ReturnConsumedCapacity on every write of
 *    the app's DynamoDB client, as DynamoDB Local reports it) beside the stored items' minimum
 *    (1 KB units and index entries as AWS rounds them; target <= 1.1x).
 *  - What the username items cost: conditional (transactions) against plain BatchWrite.
 *  - Account search p95 for a user with over 100,000 accounts.
 *  - Peak RSS of one bulk-worker invocation (a 500-row chunk), in a child process.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../functions/core/clients';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { benchOffset } from './ports';
import { cpuMeter, dynamoDbPid } from './process-cpu';
import type { Delivery } from '../bin/local/poller';
import { startLocalStack } from '../bin/local/stack';
import { createTestUser } from '../test/support/cognito-users';
import { accountItem } from '../functions/accounts/account-item';
import { accountShardsFor } from '../functions/accounts/account-partitions';
import { dynamoBulkStore } from '../functions/bulk/bulk-store';
import { aesGcmCipher, secretContext } from '../functions/core/encryption';
import { keys } from '../functions/core/keys';
import { tableDefinition } from '../functions/core/table-definition';
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

// Realistic people: names spread over initials like real lists (the search index is sharded by them).
const FIRST = 'James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty Anthony Sandra Mark Margaret Donald Ashley Steven Kimberly Andrew Emily Paul Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa George Deborah Timothy Stephanie Ronald Dorothy Jason Rebecca Edward Sharon Jeffrey Laura Ryan Cynthia Jacob Amy Gary Kathleen Nicholas Angela Eric Shirley Jonathan Brenda Stephen Emma Larry Anna Justin Pamela Scott Nicole Brandon Samantha Benjamin Katherine Samuel Christine Gregory Helen Alexander Debra Patrick Rachel Frank Carolyn Raymond Janet Jack Maria Dennis Olivia Jerry Heather Tyler Diane Aaron Julie Jose Joyce Adam Victoria Nathan Ruth Henry Virginia Zachary Lauren Douglas Kelly Peter Christina Kyle Joan Noah Evelyn Ethan Judith Jeremy Andrea Walter Hannah Christian Megan Keith Cheryl Roger Jacqueline Terry Martha Austin Madison Sean Teresa Gerald Gloria Carl Sara Harold Janice Dylan Ann Arthur Kathryn Lawrence Abigail Jordan Sophia Jesse Frances Bryan Jean Billy Alice Bruce Judy Gabriel Isabella Joe Julia Logan Grace Alan Amber Juan Denise Albert Danielle Willie Marilyn Elijah Beverly Wayne Charlotte Randy Natalie Vincent Theresa Mason Diana Roy Brittany Ralph Doris Bobby Kayla Russell Alexis Bradley Lori Philip Marie'.split(' ');
const LAST = 'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce Vazquez Hansen Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson Carroll Lane Riley Andrews'.split(' ');
const person = (i: number, tag: string) => {
  const firstName = FIRST[i % FIRST.length]!;
  const lastName = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
  return { firstName, lastName, email: `${firstName}.${lastName}.${tag}${i}@example.com`.toLowerCase() };
};

/** Write units an item costs as AWS rounds them (1 KB units), with its entry in each index whose keys it has. */
export function minimumWriteUnits(item: Record<string, unknown>): number {
  let total = units(itemSize(item));
  for (const index of tableDefinition.globalSecondaryIndexes) {
    if (item[index.partitionKey] === undefined || item[index.sortKey] === undefined) continue;
    const entry: Record<string, unknown> = { PK: item.PK, SK: item.SK, [index.partitionKey]: item[index.partitionKey], [index.sortKey]: item[index.sortKey] };
    for (const name of index.projection.nonKeyAttributes) if (item[name] !== undefined) entry[name] = item[name];
    total += units(itemSize(entry));
  }
  return total;
}

/**
 * Sums the write capacity DynamoDB reports for every write the app's own client sends (the local
 * stack runs the handlers in this process, through functions/core/clients.ts's one client):
 * ReturnConsumedCapacity TOTAL on each write, as DynamoDB Local reports it (transactions count 2x,
 * index entries included).
 */
function meterWrites(): { consumed: () => number; requests: () => Record<string, number>; reset: () => void; stop: () => void } {
  let consumed = 0;
  const requests: Record<string, number> = {};
  const writes = new Set(['PutCommand', 'UpdateCommand', 'DeleteCommand', 'BatchWriteCommand', 'TransactWriteCommand', 'PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);
  const name = 'benchConsumedCapacity';
  const stack = dynamo().middlewareStack as unknown as {
    add: (mw: (next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>, context: { commandName?: string }) => (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>, options: { step: string; name: string }) => void;
    remove: (name: string) => boolean;
  };
  stack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? '?').replace(/Command$/, '');
      requests[command] = (requests[command] ?? 0) + 1;
      if (!writes.has(context.commandName ?? '')) return next(args);
      args.input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      const reported = result.output.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
      for (const entry of Array.isArray(reported) ? reported : reported ? [reported] : []) consumed += entry.CapacityUnits ?? 0;
      return result;
    },
    { step: 'initialize', name },
  );
  return { consumed: () => consumed, requests: () => ({ ...requests }), reset: () => void (consumed = 0), stop: () => void stack.remove(name) };
}

/**
 * Everything an import stored for one project, as it lies in the table: the project's partitions
 * (accounts, state blocks ...), the user's username partitions (the name blocks the import
 * claimed) and the user's own items of the project and the job (project item, job, chunk
 * markers). The like-with-like baseline writes the same items again.
 */
async function storedByImport(db: DynamoDBDocumentClient, userId: string, projectId: string, shards: number, jobId: string): Promise<Record<string, unknown>[]> {
  const all = async (pk: string, prefix?: string) => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new QueryCommand({
          TableName: 'bulkonboard',
          KeyConditionExpression: prefix ? 'PK = :pk AND begins_with(SK, :prefix)' : 'PK = :pk',
          ExpressionAttributeValues: { ':pk': pk, ...(prefix ? { ':prefix': prefix } : {}) },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  const partitions = [...keys.projectPartitions(userId, projectId, shards), ...keys.allUsernamePartitions(userId)];
  const own = [keys.project(userId, projectId).SK, keys.bulkJob(userId, jobId).SK];
  return [...(await Promise.all(partitions.map((pk) => all(pk)))).flat(), ...(await Promise.all(own.map((sk) => all(keys.user(userId).PK, sk)))).flat()];
}

/** The same items under another user (same-length id): same sizes, same partitions' shape. */
const underOtherUser = (items: Record<string, unknown>[], from: string, to: string) =>
  items.map((item) => Object.fromEntries(Object.entries(item).map(([name, value]) => [name, typeof value === 'string' ? value.split(from).join(to) : value])));

/**
 * Where a job's time went, from the bulk worker's deliveries: from the request to the first chunk
 * received, the chunks' own time (summed, and on average at once), the waits on the queue, and
 * from the last chunk handled to the status poll that saw the job end.
 */
function jobBreakdown(deliveries: readonly Delivery[], began: number, answeredAt: number, seenAt: number): string {
  const chunks = deliveries.filter((d) => d.worker === 'bulk-worker');
  if (!chunks.length) return 'no bulk deliveries observed';
  const firstReceived = Math.min(...chunks.map((d) => d.receivedAt));
  const lastHandled = Math.max(...chunks.map((d) => d.handledAt));
  const busy = chunks.reduce((sum, d) => sum + (d.handledAt - d.receivedAt), 0);
  const waits = chunks.flatMap((d) => d.messages.map((m) => d.receivedAt - m.sentAt)).sort((a, b) => a - b);
  const median = (values: number[]) => values[Math.floor(values.length / 2)] ?? 0;
  return (
    `${chunks.length} chunks; request to 202 ${(answeredAt - began).toFixed(0)} ms, to the first chunk received ${(firstReceived - began).toFixed(0)} ms; ` +
    `chunks ${seconds(lastHandled - firstReceived)} from the first received to the last handled, each ${median(chunks.map((d) => d.handledAt - d.receivedAt)).toFixed(0)} ms (median), ` +
    `${(busy / Math.max(1, lastHandled - firstReceived)).toFixed(2)} at once on average; on the queue ${median(waits).toFixed(0)} ms (median); last handled to the status seen ${(seenAt - lastHandled).toFixed(0)} ms`
  );
}

export async function bulkBench(): Promise<void> {
  console.log('\n== Bulk creation against the local stack (DynamoDB Local in memory)');
  const dataDir = path.join(projectRoot, '.test-data', 'bench-bulk');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const deliveries: Delivery[] = [];
  /** Resolved at the next bulk worker delivery handled (the job's end is recorded by one). */
  let delivered: () => void = () => undefined;
  const stack = await startLocalStack({
    ports: portsFromEnv({}, benchOffset(40_000)),
    dataDir,
    persistDynamoDb: false,
    web: 'none',
    log: () => undefined,
    observeDeliveries: (d) => {
      deliveries.push(d);
      if (d.worker === 'bulk-worker') delivered();
    },
  });
  const cpu = (meter: { read: () => Record<string, number> }) => {
    const spent = meter.read();
    return `CPU: this process ${spent.stack!.toFixed(1)} s, DynamoDB Local ${spent.dynamodb!.toFixed(1)} s`;
  };
  const cpuNow = () => cpuMeter({ stack: process.pid, dynamodb: dynamoDbPid() });
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
    /** The same writer on the app's client (meterWrites counts what it consumes, as for the import). */
    const meteredStore = dynamoBulkStore(dynamo(), 'bulkonboard');
    const cipher = aesGcmCipher(randomBytes(32));
    const nextPassword = createPasswordGenerator(defaultPasswordSettings, randomBytes);

    /**
     * POST /api/bulk-create of the rows, then the job's item (consistent read) after each bulk
     * worker delivery until it ends (a delivery records the end), and its status once through the
     * API. Not a poll of GET /api/bulk-jobs every 100 ms: in this process each poll cost the local
     * API gateway's token check and handler (~500 requests at 50,000 rows), CPU the bare write
     * never pays, on the cores the emulator needs; and the end is seen when it happens, not up to
     * 100 ms later. The web app's polls run in a Lambda of their own on AWS.
     */
    const importRows = async (api: Awaited<ReturnType<typeof proUser>>['api'], userId: string, projectName: string, rows: ReturnType<typeof person>[]) => {
      const began = performance.now();
      const response = await api('/api/bulk-create', { projectName, csvData: rows });
      const answered = performance.now() - began;
      const { job } = (await response.json()) as { job: { id: string } };
      const statusNow = async () => String((await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.bulkJob(userId, job.id), ConsistentRead: true, ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': 'status' } }))).Item?.status);
      const ended = (status: string) => status === 'completed' || status === 'failed';
      for (;;) {
        // Armed before the read: a delivery handled while it runs is not missed.
        const next = new Promise<void>((resolve) => {
          delivered = resolve;
          setTimeout(resolve, 1_000);
        });
        if (ended(await statusNow())) break;
        await next;
      }
      const total = performance.now() - began;
      const { status } = (await (await api(`/api/bulk-jobs/${job.id}`)).json()) as { status: string };
      if (!ended(status)) throw new Error(`The job's item ended but the API says ${status}`);
      return { jobId: job.id, answered, total };
    };
    // The emulator's JIT warmed on every path the import takes (transactions, reads, the queue's
    // release of waiting chunks), not only on BatchWrite: a first import on a cold JVM paid for
    // its compilation (the JVM's compiler threads took as much CPU as its SQLite thread), which
    // the bare write after it did not. A Lambda cold start is not what this measures, nor is the emulator's.
    {
      const warmMeter = meterWrites();
      const warm = await proUser();
      const { jobId } = await importRows(warm.api, warm.user.sub, 'Warm-up', Array.from({ length: 5_000 }, (_, i) => person(i, 'warm-')));
      const { projectId } = (await (await warm.api(`/api/bulk-jobs/${jobId}`)).json()) as { projectId: string };
      await meteredStore.writeAll(underOtherUser(await storedByImport(db, warm.user.sub, projectId, accountShardsFor(5_000), jobId), warm.user.sub, randomUUID()) as { PK: string; SK: string }[]);
      warmMeter.stop();
    }

    // BENCH_BULK_SIZES=50000 runs one size (a profile of it, say); the default runs both.
    const sizes = process.env.BENCH_BULK_SIZES ? process.env.BENCH_BULK_SIZES.split(',').map(Number) : [10_000, 50_000];
    // Rounds of the like-with-like pair per size (odd: the median is one of them).
    const rounds = Math.max(1, Number(process.env.BENCH_BULK_ROUNDS ?? 3) || 1);
    for (const size of sizes) {
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
      const meter = meterWrites();
      deliveries.length = 0;
      const importCpu = cpuNow();
      const startedAt = Date.now();
      const { jobId, answered, total } = await importRows(api, user.sub, `Bench ${size}`, rows);
      const job = { id: jobId };
      const importSpent = cpu(importCpu);
      const requests = Object.entries(meter.requests()).sort((a, b) => b[1] - a[1]);
      const breakdown = `${jobBreakdown(deliveries, startedAt, startedAt + answered, startedAt + total)}; DynamoDB requests of the import ${requests.reduce((sum, [, n]) => sum + n, 0).toLocaleString('en-US')} (${requests.map(([command, n]) => `${command} ${n}`).join(', ')}), besides its account and name writes (BatchWriteItem) ${(requests.filter(([command]) => command !== 'BatchWriteItem').reduce((sum, [, n]) => sum + n, 0) / Math.max(1, Math.ceil(size / 500))).toFixed(1)} a chunk`;
      meter.stop();
      const consumedByImport = meter.consumed();

      // Like with like (issue 29, item 7): a bare BatchWrite of everything the import stored (the
      // accounts, their username blocks, the project's and job's own items), read back and written
      // again under another user by the same writer, on the same emulator, in the same run.
      const { projectId: importedProject } = (await (await api(`/api/bulk-jobs/${job.id}`)).json()) as { projectId: string };
      const projectItem = (await db.send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND SK = :sk', ExpressionAttributeValues: { ':pk': keys.user(user.sub).PK, ':sk': keys.project(user.sub, importedProject).SK } }))).Items?.[0];
      const stored = await storedByImport(db, user.sub, importedProject, Number(projectItem?.accountShards ?? 1), job.id);
      const other = randomUUID();
      const likeItems = underOtherUser(stored, user.sub, other);
      // Through the app's own client with the same meter as the import: asking DynamoDB Local for
      // the consumed capacity costs it CPU on every write (about a quarter more on the emulator's
      // side, measured), which the bare write must pay as well for the two to be alike.
      const likeMeter = meterWrites();
      const likeCpu = cpuNow();
      const likeStart = performance.now();
      await meteredStore.writeAll(likeItems as { PK: string; SK: string }[]);
      const likeWithLike = performance.now() - likeStart;
      const likeSpent = cpu(likeCpu);
      likeMeter.stop();
      const minimum = stored.reduce((sum, item) => sum + minimumWriteUnits(item), 0);
      const accountsStored = stored.filter((item) => item.entityType === 'Account').length;
      console.log(
        `  ${size.toLocaleString('en-US').padStart(6)} rows, like with like: the import stored ${stored.length.toLocaleString('en-US')} items (${accountsStored.toLocaleString('en-US')} accounts, ` +
          `${stored.filter((item) => item.entityType === 'UsernameBlock').length.toLocaleString('en-US')} username blocks, ${stored.filter((item) => item.entityType !== 'Account' && item.entityType !== 'UsernameBlock').length.toLocaleString('en-US')} others); ` +
          `bare BatchWrite of the same items ${seconds(likeWithLike)}; import ${seconds(total)}: ratio ${(total / likeWithLike).toFixed(2)}x (target <= 1.15x)`,
      );
      console.log(`  ${size.toLocaleString('en-US').padStart(6)} rows, where the time went: bare BatchWrite ${likeSpent}; import ${importSpent}; ${breakdown}`);
      // One pair says little on two shared cores: the same code gave 0.93x and 1.27x in two runs
      // (2026-11-28). More rounds of the same pair (a fresh user, its import, then the bare write
      // of what it stored, both metered alike), and the median of their ratios.
      const ratios = [total / likeWithLike];
      for (let round = 2; round <= rounds; round++) {
        const again = await proUser();
        const roundMeter = meterWrites();
        const imported = await importRows(again.api, again.user.sub, `Bench ${size} round ${round}`, Array.from({ length: size }, (_, i) => person(i, `b${size}r${round}-`)));
        roundMeter.stop();
        const { projectId: roundProject } = (await (await again.api(`/api/bulk-jobs/${imported.jobId}`)).json()) as { projectId: string };
        const roundItems = underOtherUser(await storedByImport(db, again.user.sub, roundProject, accountShardsFor(size), imported.jobId), again.user.sub, randomUUID());
        const bareMeter = meterWrites();
        const bareStart = performance.now();
        await meteredStore.writeAll(roundItems as { PK: string; SK: string }[]);
        const bare = performance.now() - bareStart;
        bareMeter.stop();
        ratios.push(imported.total / bare);
      }
      if (rounds > 1) {
        const sorted = [...ratios].sort((a, b) => a - b);
        console.log(
          `  ${size.toLocaleString('en-US').padStart(6)} rows, like with like over ${rounds} rounds (BENCH_BULK_ROUNDS; each a fresh user's import, then the bare write of what it stored): ` +
            `ratios ${ratios.map((r) => `${r.toFixed(2)}x`).join(', ')}; median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}x (target <= 1.15x)`,
        );
      }
      console.log(
        `  ${size.toLocaleString('en-US').padStart(6)} rows, write capacity per account: consumed by the import ${(consumedByImport / size).toFixed(2)} WCU ` +
          `(as DynamoDB Local reports it, ReturnConsumedCapacity on every write); the stored items' minimum ${(minimum / size).toFixed(2)} WCU ` +
          `(1 KB units and index entries as AWS rounds them): ratio ${(consumedByImport / Math.max(1, minimum)).toFixed(2)}x (target <= 1.1x); the bare BatchWrite of the same items ${(likeMeter.consumed() / size).toFixed(2)} WCU`,
      );

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
          `BatchWrite of ${size.toLocaleString('en-US')} ready account items alone ${seconds(baseline)}: ratio ${(total / baseline).toFixed(2)}x (the earlier target, restated above); ` +
          `with one username item each (which the import no longer writes: it flatters) ${seconds(baseline + namesFloor)}: ratio ${(total / (baseline + namesFloor)).toFixed(2)}x; ` +
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

    // The last user now has twice its size in accounts (100,000: 50,000 created, 50,000 written directly): search latency.
    const searched = 2 * sizes[sizes.length - 1]!;
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
      `  search, user with ${searched.toLocaleString('en-US')} accounts, 200 requests: p50 ${times[100]!.toFixed(1)} ms, p95 ${times[190]!.toFixed(1)} ms, max ${times[199]!.toFixed(1)} ms (target p95 < 100 ms)`,
    );

    // One worker invocation in a child process: peak RSS. Not spawnSync: the emulators (SQS, S3)
    // run in this process, and a blocked event loop left the child's calls unanswered until
    // middy's timeout (the probe's 'middy timeout' failure).
    const probe = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'bench', 'worker-memory.ts')], {
      cwd: projectRoot,
      env: { ...process.env, BENCH_USER_ID: searchUser!.user.sub },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let probeOut = '';
    let probeErr = '';
    probe.stdout.on('data', (chunk: Buffer) => (probeOut += chunk.toString('utf8')));
    probe.stderr.on('data', (chunk: Buffer) => (probeErr = (probeErr + chunk.toString('utf8')).slice(-2000)));
    await new Promise((resolve) => probe.on('close', resolve));
    console.log(`  ${probeOut.trim() || `worker probe failed: ${probeErr.slice(-500)}`}`);
  } finally {
    await stack.stop();
  }
}
