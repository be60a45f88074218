import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, type QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { chunkAccountItems } from '../../functions/accounts/account-partitions';
import { chunkRunner, deadChunkRecorder, type ChunkTally } from '../../functions/account-jobs/chunk-runner';
import type { AccountJobKind, JobItem } from '../../functions/account-jobs/kind';
import { leaseItem } from '../../functions/account-jobs/lease';
import { planJob, startJob } from '../../functions/account-jobs/lifecycle';
import { accountsOfJob, isSelected, rowsOf, selectedRanges } from '../../functions/account-jobs/selection';
import { rowRanges } from '../../functions/accounts/account-partitions';
import { testDb } from '../support/api';

/**
 * The account-jobs engine with a kind written the way docs/jobs.md says a new one is: a small
 * description and its work on a chunk's accounts. Here a job "touches" a selected set of a
 * project's accounts (an attribute on each account item, marked with the job): the engine starts
 * it (the project's lock), plans only the chunks that hold the selection, runs each chunk under
 * its lease, counts it once however often it is delivered, releases the next chunk, gives a dead
 * chunk up through the kind, and ends the job once, with the lock given back.
 */
const TABLE = 'bulkonboard';

type Start = { type: 'touch-start'; userId: string; jobId: string };
type Chunk = { type: 'touch-chunk'; userId: string; jobId: string; chunk: number; shard: number; fromRow: number; toRow: number; requeues?: number };

describe('a kind of account job on the engine', () => {
  it('touches each selected account once under redelivery, gives a dead chunk up, and ends once with the lock given back', async () => {
    const db = testDb();
    const userId = randomUUID();
    const projectId = randomUUID();
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: 'Touch', accountCount: 6 } }));
    for (let row = 1; row <= 6; row++) {
      await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.account(userId, projectId, row), entityType: 'Account', id: keys.accountId(projectId, row), projectId, row } }));
    }
    const sent: (Start | Chunk)[] = [];
    const ended: string[] = [];
    const deps = { db, tableName: TABLE, queue: { send: async (messages: readonly (Start | Chunk)[]) => void sent.push(...messages) }, now: () => new Date() };

    const touches: AccountJobKind<Start, Chunk> = {
      name: 'touch',
      entityType: 'TestTouchJob',
      key: (user, job) => ({ PK: `USER#${user}`, SK: `TOUCH#${job}` }),
      chunkKey: (user, job, chunk) => ({ PK: `USER#${user}`, SK: `TOUCH#${job}#CHUNK#${chunk}` }),
      chunkEntityType: 'TestTouchChunk',
      lock: 'activeTouch',
      working: ['running'],
      window: 1,
      jobOf: (message) => message.jobId,
      startMessage: (user, job) => ({ type: 'touch-start', userId: user, jobId: job }),
      chunks: (job) => selectedRanges(Number(job.shards ?? 1), [...(rowsOf(job) ?? [])], 2).map((range) => ({ type: 'touch-chunk', userId: String(job.userId), jobId: String(job.id), ...range })),
      plan: async (_deps, job, project) => ({ total: (job.rows as number[]).length, fields: { shards: Number(project.accountShards ?? 1), maxRow: 0 } }),
      ended: async (_deps, job, status) => void ended.push(`${String(job.id)}:${status}`),
    };
    const chunkOf = (job: JobItem, message: Chunk) => chunkAccountItems(db, TABLE, { userId, projectId: String(job.projectId), shard: message.shard, fromRow: message.fromRow, toRow: message.toRow });
    const tally = async (job: JobItem, message: Chunk): Promise<ChunkTally> => {
      const accounts = await chunkOf(job, message);
      const touched = accounts.filter((a) => a.touchedBy === job.id && a.touchResult === 'done').length;
      const failed = accounts.filter((a) => a.touchedBy === job.id && a.touchResult === 'failed').length;
      return { marker: { touched, failed }, job: { touched, failed } };
    };
    const mark = async (job: JobItem, account: Record<string, unknown>, touch: string) => {
      try {
        await db.send(
          new UpdateCommand({
            TableName: TABLE,
            Key: { PK: account.PK, SK: account.SK },
            UpdateExpression: 'SET touchedBy = :job, touchResult = :touch, touchCount = if_not_exists(touchCount, :zero) + :one',
            ConditionExpression: 'attribute_not_exists(touchedBy) OR touchedBy <> :job',
            ExpressionAttributeValues: { ':job': job.id, ':touch': touch, ':zero': 0, ':one': 1 },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    };
    const left = async (job: JobItem, message: Chunk) => (await chunkOf(job, message)).filter((a) => isSelected(rowsOf(job), a) && a.touchedBy !== job.id);
    const run = chunkRunner(deps, touches, {
      run: async (job, message) => {
        for (const account of await left(job, message)) await mark(job, account, 'done');
        return { done: await tally(job, message) };
      },
    }, leaseItem(touches));
    const dead = deadChunkRecorder(deps, touches, async (job, message) => {
      for (const account of await left(job, message)) await mark(job, account, 'failed');
      return tally(job, message);
    });

    const jobId = randomUUID();
    const at = new Date().toISOString();
    const item = { ...touches.key(userId, jobId), entityType: 'TestTouchJob', id: jobId, userId, projectId, rows: [1, 2, 5], status: 'queued', total: 0, touched: 0, failed: 0, chunks: 0, chunksDone: 0, createdAt: at, updatedAt: at };
    expect(await startJob(deps, touches, item, { excludes: [], projectSet: {}, unqueued: 'not queued' })).toBe('started');
    // One job of this lock per project at a time.
    expect(await startJob(deps, touches, { ...item, ...touches.key(userId, 'second'), id: 'second' }, { excludes: [], projectSet: {}, unqueued: 'not queued' })).toBe('busy');
    expect(sent).toEqual([{ type: 'touch-start', userId, jobId }]);

    // Planned: the rows 1, 2 and 5 are in two chunks (rows 1-2, and row 5: the plan ends at the last row selected); the window puts one on the queue.
    await planJob(deps, touches, userId, jobId);
    const chunks = sent.filter((m): m is Chunk => m.type === 'touch-chunk');
    expect(chunks.map((c) => [c.chunk, c.fromRow, c.toRow])).toEqual([[0, 1, 2]]);
    // A start delivered twice plans and queues nothing more.
    await planJob(deps, touches, userId, jobId);
    expect(sent.filter((m) => m.type === 'touch-chunk')).toHaveLength(1);

    // Chunk 0, delivered twice: each account touched once, counted once; chunk 1 released once.
    await run(chunks[0]!);
    await run(chunks[0]!);
    const released = sent.filter((m): m is Chunk => m.type === 'touch-chunk').slice(1);
    expect(released.map((c) => [c.chunk, c.fromRow, c.toRow])).toEqual([[1, 5, 5]]);
    // Chunk 1 failed every delivery: the dead-letter worker gives its selected account up.
    await dead(released[0]!);
    await run(released[0]!);

    const { Item: job } = await db.send(new GetCommand({ TableName: TABLE, Key: touches.key(userId, jobId), ConsistentRead: true }));
    expect(job).toMatchObject({ status: 'completed', total: 3, chunks: 2, chunksDone: 2, touched: 2, failed: 1 });
    expect(ended).toEqual([`${jobId}:completed`]);
    const { Item: project } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(userId, projectId), ConsistentRead: true }));
    expect(project?.activeTouch).toBeUndefined();
    const touchedRows: number[] = [];
    for (let row = 1; row <= 6; row++) {
      const { Item: account } = await db.send(new GetCommand({ TableName: TABLE, Key: keys.account(userId, projectId, row), ConsistentRead: true }));
      if (account?.touchedBy === jobId) touchedRows.push(row);
      expect(account?.touchCount ?? 0).toBeLessThanOrEqual(1);
    }
    expect(touchedRows).toEqual([1, 2, 5]);
  });

  it("lists a finished job's failed accounts from the rows its chunks kept beside it: a page of 50 reads about 50 items of a 300-account project; an old job is read as before", async () => {
    const db = testDb();
    const userId = randomUUID();
    const projectId = randomUUID();
    const ACCOUNTS = 300;
    const PAGE = 50;
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: 'Failures', accountCount: ACCOUNTS } }));
    const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({ ...keys.account(userId, projectId, i + 1), entityType: 'Account', id: keys.accountId(projectId, i + 1), projectId, row: i + 1, username: `user${i + 1}` }));
    for (let i = 0; i < accounts.length; i += 25) {
      await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: accounts.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
    const sent: (Start | Chunk)[] = [];
    const deps = { db, tableName: TABLE, queue: { send: async (messages: readonly (Start | Chunk)[]) => void sent.push(...messages) }, now: () => new Date() };
    const checks: AccountJobKind<Start, Chunk> = {
      name: 'check',
      entityType: 'TestCheckJob',
      key: (user, job) => ({ PK: `USER#${user}`, SK: `CHECK#${job}` }),
      chunkKey: (user, job, chunk) => ({ PK: `USER#${user}`, SK: `CHECK#${job}#CHUNK#${chunk}` }),
      chunkEntityType: 'TestCheckChunk',
      lock: 'activeCheck',
      working: ['running'],
      window: 0,
      listsFailures: true,
      jobOf: (message) => message.jobId,
      startMessage: (user, job) => ({ type: 'touch-start', userId: user, jobId: job }),
      chunks: (job) => rowRanges(1, Number(job.maxRow), 40).map((range) => ({ type: 'touch-chunk', userId: String(job.userId), jobId: String(job.id), ...range })),
      plan: async () => ({ total: ACCOUNTS, fields: { shards: 1, maxRow: ACCOUNTS } }),
    };
    // Every third account fails (100 of them, in every chunk); each chunk's tally names its failed rows.
    const run = chunkRunner(deps, checks, {
      run: async (job, message) => {
        const chunk = await chunkAccountItems(db, TABLE, { userId, projectId, shard: message.shard, fromRow: message.fromRow, toRow: message.toRow });
        for (const account of chunk) {
          const result = Number(account.row) % 3 === 0 ? 'failed' : 'done';
          await db.send(new UpdateCommand({ TableName: TABLE, Key: { PK: account.PK, SK: account.SK }, UpdateExpression: 'SET checkRun = :job, checkResult = :result', ExpressionAttributeValues: { ':job': job.id, ':result': result } }));
        }
        const failedRows = chunk.filter((a) => Number(a.row) % 3 === 0).map((a) => Number(a.row));
        return { done: { marker: { failed: failedRows.length }, job: { failed: failedRows.length }, failedRows } };
      },
    }, leaseItem(checks));
    const jobId = randomUUID();
    const at = new Date().toISOString();
    const item = { ...checks.key(userId, jobId), entityType: 'TestCheckJob', id: jobId, userId, projectId, status: 'queued', total: 0, failed: 0, chunks: 0, chunksDone: 0, createdAt: at, updatedAt: at };
    expect(await startJob(deps, checks, item, { excludes: [], projectSet: {}, unqueued: 'not queued' })).toBe('started');
    await planJob(deps, checks, userId, jobId);
    const chunks = sent.filter((m): m is Chunk => m.type === 'touch-chunk');
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) await run(chunk);
    await run(chunks[0]!); // a redelivery of a done chunk adds nothing
    const readJob = async () => (await db.send(new GetCommand({ TableName: TABLE, Key: checks.key(userId, jobId), ConsistentRead: true }))).Item!;
    expect(await readJob()).toMatchObject({ status: 'completed', failed: 100, failuresListed: true });

    // What the list reads: the items each Query read (before its filter) and each GetItem or BatchGetItem returned.
    let itemsRead = 0;
    const counting = {
      send: async (command: QueryCommand | BatchGetCommand) => {
        const answer = (await db.send(command as QueryCommand)) as { ScannedCount?: number; Responses?: Record<string, unknown[]>; Item?: unknown };
        itemsRead += (answer.ScannedCount ?? 0) + Object.values(answer.Responses ?? {}).reduce((n, items) => n + items.length, 0) + (answer.Item ? 1 : 0);
        return answer;
      },
    } as unknown as DynamoDBDocumentClient;
    const failures = (job: JobItem) =>
      accountsOfJob({ db: counting, tableName: TABLE }, job, { failed: (a) => a.checkRun === jobId && a.checkResult === 'failed', filter: 'checkRun = :run AND checkResult = :failed', projection: 'id, username', values: { ':run': jobId, ':failed': 'failed' } }, PAGE, (a) => String(a.username));
    const firstPage = Array.from({ length: PAGE }, (_, i) => `user${3 * (i + 1)}`);
    expect(await failures(await readJob())).toEqual(firstPage);
    expect(itemsRead).toBe(2 * PAGE);

    // An account failed by this job and handled by a later one since is not listed: the next failure takes its place.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.account(userId, projectId, 3), UpdateExpression: 'SET checkRun = :later', ExpressionAttributeValues: { ':later': 'a-later-job' } }));
    itemsRead = 0;
    expect(await failures(await readJob())).toEqual([...firstPage.slice(1), `user${3 * (PAGE + 1)}`]);
    expect(itemsRead).toBe(2 * (PAGE + 1));

    // A job started before the failed rows were kept (no failuresListed): the same list, read through the project's accounts (all of them).
    const { failuresListed: _listed, ...oldJob } = await readJob();
    itemsRead = 0;
    expect(await failures(oldJob)).toEqual([...firstPage.slice(1), `user${3 * (PAGE + 1)}`]);
    expect(itemsRead).toBe(ACCOUNTS);
  });
});
