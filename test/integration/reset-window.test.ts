import { describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { PROVISIONING_WINDOW } from '../../functions/provisioning/chunk-window';
import type { ProvisioningMessage } from '../../functions/provisioning/provisioning-message';
import { planReset, resetChunks, resetKey } from '../../functions/security/reset-passwords';
import { recordDeadResetChunk, resetChunk, type ResetChunkDeps } from '../../functions/security/reset-passwords-chunk';
import { testDb } from '../support/api';

/**
 * Reset Passwords takes turns on the shared provisioning queue like provisioning runs
 * (functions/provisioning/chunk-window.ts): a reset puts its first window of chunks on the queue,
 * and each chunk done (by its worker or by the dead-letter worker) puts the next one on it, once.
 * The use cases against DynamoDB Local; the queue records what it is given.
 */
const TABLE = 'bulkonboard';
// 6 chunks of one shard: chunkPlan cuts rows 1..1500 into ranges of 250.
const MAX_ROW = 1500;

function recordingQueue() {
  const sent: ProvisioningMessage[] = [];
  return { sent, queue: { send: async (messages: readonly ProvisioningMessage[]) => void sent.push(...messages) } };
}

const chunkNumbers = (messages: readonly ProvisioningMessage[]) => messages.map((m) => (m.type === 'reset-chunk' ? m.chunk : -1));

describe('Reset Passwords on the shared provisioning queue', () => {
  it('queues a window of chunks, and each chunk done releases the next one exactly once', async () => {
    const db = testDb();
    const userId = randomUUID();
    const projectId = randomUUID();
    const jobId = randomUUID();
    const now = new Date().toISOString();
    // A project of which no account is left to reset (every chunk finds nothing): what is measured is the turns.
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: 'Turns', accountCount: 0, shards: 1 } }));
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...resetKey(userId, jobId), entityType: 'PasswordReset', id: jobId, userId, projectId, status: 'running', total: 0, done: 0, failed: 0, chunks: 6, chunksDone: 0, shards: 1, maxRow: MAX_ROW, window: PROVISIONING_WINDOW, createdAt: now, updatedAt: now },
      }),
    );
    expect(resetChunks(userId, jobId, 1, MAX_ROW)).toHaveLength(6);
    const { sent, queue } = recordingQueue();
    const base = { db, tableName: TABLE, queue, now: () => new Date() };
    const chunkDeps = {
      ...base,
      cipher: async () => ({ encrypt: (p: string) => p, decrypt: (p: string) => p }),
      randomBytes,
      integration: async () => undefined,
      adapterFor: () => {
        throw new Error('no platform in this test');
      },
      pacingOf: () => ({ requestsPerSecond: 10, concurrency: 1 }),
    } as unknown as ResetChunkDeps;

    await planReset(base)(userId, jobId);
    expect(chunkNumbers(sent)).toEqual([0, 1]);
    expect(PROVISIONING_WINDOW).toBe(2);

    const chunks = resetChunks(userId, jobId, 1, MAX_ROW);
    await resetChunk(chunkDeps)(chunks[0]!);
    expect(chunkNumbers(sent)).toEqual([0, 1, 2]);
    // Redelivered: nothing released twice.
    await resetChunk(chunkDeps)(chunks[0]!);
    expect(chunkNumbers(sent)).toEqual([0, 1, 2]);
    // A chunk that failed every delivery, recorded by the dead-letter worker, releases its successor too.
    await recordDeadResetChunk(chunkDeps)(chunks[1]!);
    expect(chunkNumbers(sent)).toEqual([0, 1, 2, 3]);
    for (const chunk of [2, 3, 4, 5]) await resetChunk(chunkDeps)(chunks[chunk]!);
    expect(chunkNumbers(sent)).toEqual([0, 1, 2, 3, 4, 5]);

    const { Item: job } = await db.send(new GetCommand({ TableName: TABLE, Key: resetKey(userId, jobId), ConsistentRead: true }));
    expect(job).toMatchObject({ status: 'completed', chunksDone: 6 });
  });
});
