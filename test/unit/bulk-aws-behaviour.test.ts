/**
 * What AWS does and DynamoDB Local never does, played by a fake DynamoDB client (these paths
 * cannot be reached on the emulator): an index read that lags behind the base table, a
 * TransactionConflict between workers recording chunks of one job, throttled batches, and a
 * delivery that comes back after the job's completion step failed.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the fake reads each command's input in whatever shape that command has */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoBulkStore, USERNAME_BLOCK_MAX_BYTES, usernameBlocks, UsernameTakenError } from '../../functions/bulk/bulk-store';
import { processChunk } from '../../functions/bulk/process-chunk';
import type { BulkChunkMessage } from '../../functions/bulk/bulk-chunk';
import { usernamesFor } from '../../functions/bulk/usernames';
import { aesGcmCipher } from '../../functions/core/encryption';
import { isTransactionConflict, RetryBudgetSpentError, withRetry, type RetryPolicy } from '../../functions/core/dynamo-retry';
import { keys } from '../../functions/core/keys';

type Call = { name: string; input: Record<string, any> };
type Handler = (call: Call) => unknown;

/** A DocumentClient whose answers a test scripts; every call is recorded. */
function scriptedDb(handler: Handler) {
  const calls: Call[] = [];
  const db = {
    send: async (command: { constructor: { name: string }; input: Record<string, any> }) => {
      const call = { name: command.constructor.name, input: command.input };
      calls.push(call);
      if (call.name === 'BatchGetCommand') {
        // A read by several keys answers as the reads of each key would (the script answers GetCommand).
        const [table, { Keys, ...read }] = Object.entries(call.input.RequestItems as Record<string, { Keys: Record<string, unknown>[] }>)[0]!;
        const items = await Promise.all(Keys.map(async (Key: Record<string, unknown>) => ((await handler({ name: 'GetCommand', input: { TableName: table, Key, ...read } })) as { Item?: Record<string, unknown> } | undefined)?.Item));
        return { Responses: { [table]: items.flatMap((item, i) => (item ? [{ ...item, ...Keys[i] }] : [])) } };
      }
      return handler(call) ?? {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, calls };
}

const instantRetry: RetryPolicy = { budgetMs: 60_000, baseMs: 50, capMs: 5_000, random: () => 0, sleep: async () => undefined };

const conflict = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict, None]',
    $metadata: {},
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }, { Code: 'None' }],
  });
const conditionFailed = (at: number, of: number) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: Array.from({ length: of }, (_, i) => ({ Code: i === at ? 'ConditionalCheckFailed' : 'None' })),
  });

describe('usernames are decided on the base table, never from a lagging index', () => {
  /**
   * A tiny table: base-table items by key, and an index that has not caught up (it answers as if
   * nothing had been written: AWS's GSIs are eventually consistent).
   */
  function tableWithStaleIndex() {
    const items = new Map<string, Record<string, any>>();
    const id = (key: { PK: string; SK: string }) => `${key.PK}|${key.SK}`;
    return scriptedDb(({ name, input }) => {
      if (name === 'QueryCommand') {
        if (input.IndexName) return { Items: [] };
        const values = input.ExpressionAttributeValues;
        const found = [...items.values()].filter(
          (item) => item.PK === values[':pk'] && String(item.SK).startsWith(values[':prefix'] ?? '') && (!values[':project'] || item.projectId !== values[':project']),
        );
        return { Items: found.map((item) => ({ username: item.username, names: item.names })) };
      }
      if (name === 'TransactWriteCommand') {
        const puts = input.TransactItems.map((t: any) => t.Put);
        const reasons = puts.map((put: any) => {
          const old = items.get(id(put.Item));
          return old && old.accountId !== put.ExpressionAttributeValues[':account'] ? { Code: 'ConditionalCheckFailed' } : { Code: 'None' };
        });
        if (reasons.some((r: any) => r.Code !== 'None')) throw new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });
        for (const put of puts) items.set(id(put.Item), put.Item);
        return {};
      }
      if (name === 'BatchWriteCommand') {
        for (const request of Object.values(input.RequestItems).flat() as any[]) {
          if (request.DeleteRequest) items.delete(id(request.DeleteRequest.Key));
          if (request.PutRequest) items.set(id(request.PutRequest.Item), request.PutRequest.Item);
        }
        return {};
      }
      throw new Error(`unexpected ${name}`);
    });
  }

  it('a creation a moment after another sees the name it just claimed, though the index does not list it yet', async () => {
    const { db, calls } = tableWithStaleIndex();
    const store = dynamoBulkStore(db, 't', instantRetry);
    const slots = [{ base: 'johsmi2026', k: 0 }];
    // The first creation gives the name and claims it.
    const first = usernamesFor(slots, await store.takenUsernames('u1', ['johsmi2026'], 0));
    await store.claimUsernames('u1', [{ username: first[0]!, projectId: 'p1', accountId: 'p1.000001' }]);
    // The second, right after: the index would still answer "free".
    const second = usernamesFor(slots, await store.takenUsernames('u1', ['johsmi2026'], 1, 'p2'));
    expect(first).toEqual(['johsmi2026']);
    expect(second).toEqual(['johsmi2026-2']);
    await store.claimUsernames('u1', [{ username: second[0]!, projectId: 'p2', accountId: 'p2.000001' }]);
    // Every username read was a strongly consistent base-table read.
    const reads = calls.filter((c) => c.name === 'QueryCommand');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((c) => c.input.IndexName === undefined && c.input.ConsistentRead === true)).toBe(true);
  });

  it('a name another account holds is refused by the conditional write, and nothing of that call stays claimed', async () => {
    const { db } = tableWithStaleIndex();
    const store = dynamoBulkStore(db, 't', instantRetry);
    await store.claimUsernames('u1', [{ username: 'annlee2026', projectId: 'p1', accountId: 'p1.000001' }]);
    // A second creation that missed it (say its lock had expired) tries the same name among 150 others.
    const others = Array.from({ length: 150 }, (_, i) => ({ username: `zed${i}`, projectId: 'p2', accountId: `p2.${i}` }));
    const attempt = store.claimUsernames('u1', [...others, { username: 'annlee2026', projectId: 'p2', accountId: 'p2.999' }]);
    await expect(attempt).rejects.toBeInstanceOf(UsernameTakenError);
    await expect(attempt).rejects.toMatchObject({ usernames: ['annlee2026'], statusCode: 409 });
    // The first 100 others were claimed in their own transaction, then given back.
    expect(await store.takenUsernames('u1', [], 1, undefined, { readAll: true })).toEqual(new Set(['annlee2026']));
    // The same account claiming its own name again (a redelivered chunk) is fine.
    await store.claimUsernames('u1', [{ username: 'annlee2026', projectId: 'p1', accountId: 'p1.000001' }]);
  });

  it('names in username blocks count as taken for the bases asked, except those of the project being created; each partition has its blocks read once', async () => {
    const { db, calls } = tableWithStaleIndex();
    const store = dynamoBulkStore(db, 't', instantRetry);
    const bases = Array.from({ length: 100 }, (_, i) => `p${i}lee2026`);
    await store.writeAll(usernameBlocks('u1', { projectId: 'p1', jobId: 'j1', chunk: 0 }, [...bases, 'annlee2026', 'annlee2026-2', 'bob2026']));
    const asked = ['annlee2026', ...bases.slice(0, 60)];
    const before = calls.length;
    // Many accounts: one query per base, and the blocks of each partition once.
    const taken = await store.takenUsernames('u1', asked, 1_000_000, 'p2');
    expect(taken).toEqual(new Set(['annlee2026', 'annlee2026-2', ...bases.slice(0, 60)]));
    const queries = calls.slice(before).filter((c) => c.name === 'QueryCommand');
    const blockReads = queries.filter((c) => c.input.ExpressionAttributeValues[':prefix'] === keys.usernameBlockPrefix).map((c) => c.input.ExpressionAttributeValues[':pk']);
    expect(blockReads.length).toBe(new Set(asked.map((base) => keys.usernamePartition('u1', base))).size);
    expect(new Set(blockReads).size).toBe(blockReads.length);
    expect(queries.length).toBe(blockReads.length + asked.length);
    // The same names for the project that wrote the blocks (its chunk delivered again): none taken.
    expect(await store.takenUsernames('u1', asked, 1_000_000, 'p1')).toEqual(new Set());
    // Every name, read whole partition by partition.
    expect((await store.takenUsernames('u1', [], 1, 'p2', { readAll: true })).size).toBe(103);
  });
});

describe('username items spread over partitions', () => {
  it("keep one base's names together and spread an import's names evenly", () => {
    const partition = (name: string) => keys.username('u1', name).PK;
    expect(new Set(['johnsmith2026', 'johnsmith2026-2', 'johnsmith2026-17'].map(partition)).size).toBe(1);
    expect(keys.usernamePartition('u1', 'johnsmith2026')).toBe(partition('johnsmith2026-3'));
    const first = 'James Mary John Jennifer Joseph Jessica Michael Linda David Sarah'.split(' ');
    const last = Array.from({ length: 200 }, (_, i) => `Family${i}`);
    const counts = new Map<string, number>();
    for (const f of first) for (const l of last) counts.set(partition(`${f}${l}2026`.toLowerCase()), (counts.get(partition(`${f}${l}2026`.toLowerCase())) ?? 0) + 1);
    expect(counts.size).toBe(37);
    // 2,000 names, J-heavy as real lists are: no partition takes much more than its 1/37 share (54).
    expect(Math.max(...counts.values())).toBeLessThan(90);
    expect(keys.allUsernamePartitions('u1')).toEqual(expect.arrayContaining([...counts.keys()]));
  });
});

describe('retries under AWS load', () => {
  it('tells a TransactionConflict from a failed condition', () => {
    expect(isTransactionConflict(conflict())).toBe(true);
    expect(isTransactionConflict(conditionFailed(0, 3))).toBe(false);
    expect(isTransactionConflict(new ConditionalCheckFailedException({ message: 'x', $metadata: {} }))).toBe(false);
  });

  it('waits a random time up to the exponential cap (full jitter) and stops when the budget is spent', async () => {
    const waits: number[] = [];
    const caps: number[] = [];
    let clock = 0;
    const policy: RetryPolicy = {
      budgetMs: 3_000,
      baseMs: 100,
      capMs: 1_000,
      now: () => clock,
      random: (max) => (caps.push(max), max),
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    };
    const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    await expect(withRetry('x', policy, () => true, async () => Promise.reject(throttled))).rejects.toBeInstanceOf(RetryBudgetSpentError);
    expect(caps.slice(0, 5)).toEqual([200, 400, 800, 1_000, 1_000]);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3_000);
  });

  it('writes every item of a throttled batch: unprocessed items are sent again', async () => {
    let round = 0;
    const { db, calls } = scriptedDb(({ name, input }) => {
      if (name !== 'BatchWriteCommand') throw new Error(name);
      const requests = input.RequestItems.t as unknown[];
      round++;
      if (round === 1) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      // Half of what comes is left unprocessed while the partition is hot.
      return round < 4 ? { UnprocessedItems: { t: requests.slice(requests.length / 2) } } : {};
    });
    const store = dynamoBulkStore(db, 't', instantRetry);
    await store.writeAll(Array.from({ length: 20 }, (_, i) => ({ PK: 'p', SK: String(i) })));
    const sent = calls.map((c) => (c.input.RequestItems.t as unknown[]).length);
    expect(sent).toEqual([20, 20, 10, 5]);
  });
});

const settings = { minLength: 12, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: false, avoidAmbiguous: false };
const message = (chunk: number, rows = 2): BulkChunkMessage => ({
  userId: 'u1',
  jobId: 'job1',
  projectId: 'job1',
  projectName: 'Import',
  accountType: 'Standard User',
  createdAt: '2026-01-01T00:00:00.000Z',
  passwordSettings: settings,
  existingAccounts: 0,
  chunk,
  rows: Array.from({ length: rows }, (_, i) => ({ row: chunk * rows + i + 1, firstName: 'Ann', lastName: 'Lee', email: `a${i}@example.com`, base: 'annlee2026', k: chunk * rows + i })),
});

function worker(handler: Handler, retry: RetryPolicy = instantRetry) {
  const fake = scriptedDb(handler);
  const woken: string[] = [];
  let clock = 0;
  const timed: RetryPolicy = { ...retry, now: () => clock, sleep: async (ms) => void (clock += ms) };
  const run = processChunk({
    db: fake.db,
    tableName: 't',
    store: dynamoBulkStore(fake.db, 't', timed),
    cipher: async () => aesGcmCipher(Buffer.alloc(32, 7)),
    randomBytes: (n) => Buffer.alloc(n, 3),
    now: () => new Date('2026-01-01T00:01:00.000Z'),
    newId: () => 'id',
    retry: timed,
    wake: async (userId, projectId) => void woken.push(`${userId}/${projectId}`),
  });
  return { run, calls: fake.calls, woken };
}

const isKey = (input: Record<string, any>, key: { PK: string; SK: string }) => input.Key?.PK === key.PK && input.Key?.SK === key.SK;

describe('a chunk recorded while other workers record theirs', () => {
  it('runs its transaction again on TransactionConflict, and records the chunk once', async () => {
    let transactions = 0;
    const { run, calls } = worker(({ name, input }) => {
      if (name === 'GetCommand' && isKey(input, keys.bulkJob('u1', 'job1'))) return { Item: { status: 'running', total: 6, done: 2, failedCount: 0 } };
      if (name === 'TransactWriteCommand' && input.TransactItems[0].Put?.Item.entityType === 'BulkJobChunk') {
        transactions++;
        if (transactions <= 2) throw conflict();
      }
      return {};
    });
    await run(message(1));
    expect(transactions).toBe(3);
    // Progress is read again after the record: the job is not complete yet, nothing else happens.
    expect(calls.filter((c) => c.name === 'UpdateCommand' && c.input.UpdateExpression?.includes('#status = :status'))).toHaveLength(0);
  });

  it('does not retry a failed condition: the marker exists, so it is a redelivery', async () => {
    let transactions = 0;
    const { run } = worker(({ name, input }) => {
      if (name === 'GetCommand' && isKey(input, keys.bulkJob('u1', 'job1'))) return { Item: { status: 'running', total: 6, done: 2, failedCount: 0 } };
      if (name === 'TransactWriteCommand' && input.TransactItems[0].Put?.Item.entityType === 'BulkJobChunk') {
        transactions++;
        throw conditionFailed(0, 3);
      }
      return {};
    });
    await run(message(1));
    expect(transactions).toBe(1);
  });

  it('fails the delivery (SQS retries it) when conflicts outlast the budget', async () => {
    const { run } = worker(({ name, input }) => {
      if (name === 'GetCommand' && isKey(input, keys.bulkJob('u1', 'job1'))) return { Item: { status: 'running', total: 6, done: 2, failedCount: 0 } };
      if (name === 'TransactWriteCommand' && input.TransactItems[0].Put?.Item.entityType === 'BulkJobChunk') throw conflict();
      return {};
    }, { ...instantRetry, budgetMs: 1_000, random: (max) => max });
    await expect(run(message(1))).rejects.toBeInstanceOf(RetryBudgetSpentError);
  });
});

describe('the bookkeeping of a chunk', () => {
  /** The requests a new chunk sends before it claims its first names. */
  const requestsBeforeClaims = async (status: string) => {
    const fake = scriptedDb(({ name, input }) => {
      if (name === 'GetCommand' && isKey(input, keys.bulkJob('u1', 'job1'))) return { Item: { status, total: 6, done: 0, failedCount: 0 } };
      return {};
    });
    const run = processChunk({
      db: fake.db,
      tableName: 't',
      store: dynamoBulkStore(fake.db, 't', instantRetry),
      cipher: async () => aesGcmCipher(Buffer.alloc(32, 7)),
      randomBytes,
      now: () => new Date('2026-01-01T00:01:00.000Z'),
      newId: () => 'id',
      retry: instantRetry,
    });
    await run(message(1));
    const claims = fake.calls.findIndex((c) => c.name === 'TransactWriteCommand' && c.input.TransactItems[0].Put?.Item.entityType === 'Username');
    expect(claims).toBeGreaterThan(0);
    return fake.calls.slice(0, claims).map((c) => (c.name === 'UpdateCommand' ? `UpdateCommand ${String(c.input.UpdateExpression)}` : c.name));
  };

  it('of a job already running is one read (its marker and job in one BatchGetItem) before the names are claimed: no status update', async () => {
    expect(await requestsBeforeClaims('running')).toEqual(['BatchGetCommand']);
  });

  it('of a job still queued also marks it running', async () => {
    expect(await requestsBeforeClaims('queued')).toEqual(['BatchGetCommand', 'UpdateCommand SET #status = :running, updatedAt = :now']);
  });
});

describe('a job whose completion step failed once', () => {
  it('is completed by the next delivery of any of its chunks, though that chunk is already recorded', async () => {
    // Every chunk recorded (done = total) but the status never changed: the completing delivery died.
    const job: Record<string, unknown> = { status: 'running', total: 4, done: 4, failedCount: 0, lockOwner: 'job1', startedAt: Date.parse('2026-01-01T00:00:00.000Z'), projectName: 'Import', createdAt: '2026-01-01T00:00:00.000Z' };
    const { run, calls, woken } = worker(({ name, input }) => {
      if (name === 'GetCommand' && isKey(input, keys.bulkJobChunk('u1', 'job1', 1))) return { Item: { done: 2 } };
      if (name === 'GetCommand' && isKey(input, keys.bulkJob('u1', 'job1'))) return { Item: { ...job } };
      if (name === 'UpdateCommand' && isKey(input, keys.bulkJob('u1', 'job1'))) {
        job.status = input.ExpressionAttributeValues[':status'];
        job.completedAt = input.ExpressionAttributeValues[':now'];
      }
      if (name === 'TransactWriteCommand' && !(input.TransactItems as any[]).some((t) => t.Put?.Item?.entityType === 'Notification')) job.finalizedAt = 'now';
      return {};
    });
    await run(message(1));
    expect(job.status).toBe('completed');
    // What waits for the accounts (the project's run and send) is woken once the import has ended.
    expect(woken).toEqual([`u1/${message(1).projectId}`]);
    // Activity entries with fixed keys (a second run rewrites the same items), statistics once, lock released.
    const activities = calls.filter((c) => c.name === 'BatchWriteCommand').flatMap((c) => (c.input.RequestItems.t as any[]).map((r) => r.PutRequest.Item.title));
    expect(activities).toEqual(['Project "Import" created', '4 accounts created in "Import"']);
    // The statistics' transaction once (the job's notification and its unread item are a transaction of their own).
    const isNotification = (c: { input: any }) => (c.input.TransactItems as any[]).some((t) => t.Put?.Item?.entityType === 'Notification');
    expect(calls.filter((c) => c.name === 'TransactWriteCommand' && !isNotification(c))).toHaveLength(1);
    const release = calls.find((c) => c.name === 'UpdateCommand' && isKey(c.input, keys.user('u1')) && c.input.UpdateExpression.includes('REMOVE bulkLock'));
    expect(release?.input.ExpressionAttributeValues).toMatchObject({ ':owner': 'job1' });

    // A later delivery finds it finished: no second statistics, the lock release is simply repeated.
    const before = calls.length;
    await run(message(1));
    expect(calls.slice(before).filter((c) => c.name === 'TransactWriteCommand' || c.name === 'BatchWriteCommand')).toHaveLength(0);
  });
});

describe('a chunk under the unbroken lock of its job', () => {
  const startedAt = Date.parse('2026-01-01T00:00:00.000Z');
  const rows = Array.from({ length: 60 }, (_, i) => ({ row: i + 1, firstName: `P${i}`, lastName: 'Lee', email: `p${i}@example.com`, base: `p${i}lee2026`, k: 0 }));
  const chunkOf60 = { ...message(0), rows };
  const run = async () => {
    const { db, calls } = scriptedDb(({ name, input }) => {
      if (name === 'GetCommand' && isKey(input, keys.bulkJob('u1', 'job1'))) return { Item: { status: 'running', total: 60, done: 0, failedCount: 0, lockOwner: 'job1', startedAt, chunks: 1 } };
      // The lock extended by its owner, in the tenure that began at the job's start.
      if (name === 'UpdateCommand' && isKey(input, keys.user('u1')) && input.UpdateExpression === 'SET bulkLock.#until = :until') return { Attributes: { bulkLock: { owner: 'job1', since: startedAt } } };
      return {};
    });
    const store = dynamoBulkStore(db, 't', instantRetry);
    await processChunk({ db, tableName: 't', store, cipher: async () => aesGcmCipher(Buffer.alloc(32, 7)), randomBytes, now: () => new Date(startedAt + 60_000), newId: () => 'id', retry: instantRetry })(chunkOf60);
    const batches = calls.filter((c) => c.name === 'BatchWriteCommand').map((c) => (c.input.RequestItems.t as any[]).map((r) => r.PutRequest.Item));
    return { calls, batches, puts: batches.flat() };
  };

  it('writes its names as username blocks before its accounts: one item per username partition, no name items, no transactions', async () => {
    const { calls, batches, puts } = await run();
    const types = puts.map((item) => String(item.entityType));
    expect(types.filter((t) => t === 'Account')).toHaveLength(60);
    expect(types).not.toContain('Username');
    expect(types.lastIndexOf('UsernameBlock')).toBeLessThan(types.indexOf('Account'));
    const blocks = puts.filter((item) => item.entityType === 'UsernameBlock');
    const usernames = puts.filter((item) => item.entityType === 'Account').map((item) => String(item.username));
    expect(blocks.flatMap((b) => b.names).sort()).toEqual([...usernames].sort());
    // One block per partition the names fall in, each in the partition of its names.
    expect(new Set(blocks.map((b) => b.PK)).size).toBe(blocks.length);
    for (const block of blocks) {
      expect(block).toMatchObject({ projectId: 'job1', jobId: 'job1', chunk: 0, SK: expect.stringMatching(/^USERNAMEBLOCK#job1#000000#0$/) });
      for (const name of block.names) expect(keys.username('u1', name).PK).toBe(block.PK);
    }
    // 60 names in at most 37 partitions: two BatchWriteItem calls instead of three of name items.
    expect(batches.filter((batch) => batch.every((item) => item.entityType === 'UsernameBlock'))).toHaveLength(Math.ceil(blocks.length / 25));
    expect(calls.filter((c) => c.name === 'TransactWriteCommand' && c.input.TransactItems.some((t: any) => t.Put?.Item.entityType === 'Username'))).toHaveLength(0);
  });

  it('writes the same blocks when delivered again', async () => {
    const blocksOf = (puts: Record<string, any>[]) => puts.filter((item) => item.entityType === 'UsernameBlock');
    expect(blocksOf((await run()).puts)).toEqual(blocksOf((await run()).puts));
  });
});

describe('username blocks', () => {
  it('split a partition past the size bound into parts, keeping every name once and in order', () => {
    const names = Array.from({ length: 30 }, (_, i) => (i ? `annlee2026-${i + 1}` : 'annlee2026'));
    const blocks = usernameBlocks('u1', { projectId: 'p1', jobId: 'j1', chunk: 3 }, names, 200);
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.map((b) => b.SK)).toEqual(blocks.map((_, part) => `USERNAMEBLOCK#j1#000003#${part}`));
    expect(blocks.flatMap((b) => b.names as string[])).toEqual(names);
    for (const block of blocks) expect((block.names as string[]).reduce((sum, name) => sum + name.length + 4, 0)).toBeLessThanOrEqual(200);
  });

  it('keep a full chunk of the longest names of one base in one item, far below the 400 KB limit', () => {
    const base = `${'x'.repeat(64)}2026`;
    const names = Array.from({ length: 500 }, (_, i) => (i ? `${base}-${i + 1}` : base));
    const blocks = usernameBlocks('u1', { projectId: 'p1', jobId: 'j1', chunk: 0 }, names);
    expect(blocks).toHaveLength(1);
    expect(Buffer.byteLength(JSON.stringify(blocks[0]))).toBeLessThan(USERNAME_BLOCK_MAX_BYTES);
    expect(() => usernameBlocks('u1', { projectId: 'p1', jobId: 'j1', chunk: 0 }, ['y'.repeat(300)], 200)).toThrow(/cannot fit/);
  });
});
