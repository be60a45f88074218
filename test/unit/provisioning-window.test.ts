import { describe, expect, it } from 'vitest';
import { SQSClient } from '@aws-sdk/client-sqs';
import { dueChunks, firstChunks, PLATFORM_WINDOW, PROVISIONING_WINDOW, windowOf } from '../../functions/provisioning/chunk-window';
import { provisioningRuns } from '../../functions/provisioning/provisioning-jobs';
import { accountActionJobs } from '../../functions/account-actions/account-actions';
import { passwordResets } from '../../functions/security/reset-passwords';
import { projectDeletions } from '../../functions/projects/project-deletion';
import { ownQueued, runWaitReason, sqsRunWait } from '../../functions/provisioning/run-wait';
import { queues } from '../../shared/routes';

const plan = (n: number) => Array.from({ length: n }, (_, chunk) => ({ chunk }));
const chunksOf = (list: readonly { chunk: number }[]) => list.map((c) => c.chunk);

describe("a provisioning run's window of chunks on the shared queue", () => {
  it('is one chunk for a job that calls a platform (its integration is called by one delivery at a time), two for one that only writes here, and none for a run planned before windows', () => {
    expect(PLATFORM_WINDOW).toBe(1);
    expect(PROVISIONING_WINDOW).toBe(2);
    expect(provisioningRuns.window).toBe(PLATFORM_WINDOW);
    const windowFor = (kind: { window: number | ((job: Record<string, unknown>) => number) }, job: Record<string, unknown>) => (typeof kind.window === 'function' ? kind.window(job) : kind.window);
    expect(windowFor(accountActionJobs, { integrationId: 'i' })).toBe(1);
    expect(windowFor(accountActionJobs, {})).toBe(2);
    expect(windowFor(passwordResets, { integrationName: 'Okta' })).toBe(1);
    expect(windowFor(passwordResets, {})).toBe(2);
    expect(windowFor(projectDeletions, { removeFromPlatform: true, integrationId: 'i' })).toBe(1);
    expect(windowFor(projectDeletions, { removeFromPlatform: false, integrationName: 'Okta' })).toBe(2);
    // Not tied to the queue's workers any more (a deploy setting): a job holds one of them, however many there are.
    expect(queues.find((q) => q.name === 'provisioning')!.maxConcurrency).toBeGreaterThanOrEqual(2);
    expect(windowOf({ window: 2 })).toBe(2);
    expect(windowOf({})).toBe(0);
    expect(windowOf({ window: 'x' })).toBe(0);
  });

  it('puts only the first window of chunks on the queue when planned (all of them without a window)', () => {
    expect(chunksOf(firstChunks(plan(12), 2))).toEqual([0, 1]);
    expect(chunksOf(firstChunks(plan(1), 2))).toEqual([0]);
    expect(chunksOf(firstChunks(plan(5), 0))).toEqual([0, 1, 2, 3, 4]);
  });

  it('queues again on a resume the unfinished chunks that were due: the first window, and those whose releaser is done', () => {
    // Chunks 0-3 done, 4 and 5 were on the queue when the run paused: 6 and up wait for 4 and 5.
    expect(chunksOf(dueChunks(plan(12), new Set([0, 1, 2, 3]), 2))).toEqual([4, 5]);
    // Chunk 5 finished (it was being worked on) while 4 was dropped: 4 and 7 are due.
    expect(chunksOf(dueChunks(plan(12), new Set([0, 1, 2, 3, 5]), 2))).toEqual([4, 7]);
    // Nothing done yet: the first window.
    expect(chunksOf(dueChunks(plan(12), new Set(), 2))).toEqual([0, 1]);
    // All done: nothing (the resume ends the run).
    expect(dueChunks(plan(3), new Set([0, 1, 2]), 2)).toEqual([]);
    // A run without a window: every unfinished chunk, as before.
    expect(chunksOf(dueChunks(plan(4), new Set([1]), 0))).toEqual([0, 2, 3]);
  });
});

describe('why a provisioning run waits', () => {
  it('names how many chunks of other runs are ahead of it, in words', () => {
    expect(runWaitReason(3)).toEqual({
      chunksAhead: 3,
      waitReason: 'Queued behind about 3 chunks of other runs on the shared provisioning queue. Runs take turns chunk by chunk, so this one starts as soon as a worker is free.',
    });
    expect(runWaitReason(1).waitReason).toMatch(/^Queued behind about 1 chunk of other runs/);
    expect(runWaitReason(0)).toEqual({ chunksAhead: 0, waitReason: 'Queued: starting as soon as a worker picks it up.' });
  });

  it("counts as its own the start message while queued, then its window of chunks", () => {
    expect(ownQueued({ status: 'queued' })).toBe(1);
    expect(ownQueued({ status: 'running', chunks: 12, window: 2 })).toBe(2);
    expect(ownQueued({ status: 'running', chunks: 1, window: 2 })).toBe(1);
    expect(ownQueued({ status: 'running', chunks: 12 })).toBe(12);
  });

  it('says nothing once a worker has the run, or while it waits for its accounts, is paused or ended', async () => {
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
    const url = 'http://127.0.0.1:9/000000000000/provisioning';
    for (const job of [
      { status: 'running', chunks: 4, window: 2, pickedUpAt: '2026-01-01T00:00:00.000Z' },
      { status: 'running', chunks: 4, window: 2, chunksDone: 1 },
      { status: 'waiting' },
      { status: 'paused', chunks: 4 },
      { status: 'completed', chunks: 4 },
      { status: 'failed', chunks: 4 },
    ]) {
      expect(await sqsRunWait(sqs, url, job), JSON.stringify(job)).toBeUndefined();
    }
    // Waiting, and the queue cannot be read: the sentence without a count, not a failed status read.
    expect(await sqsRunWait(sqs, url, { status: 'queued' })).toEqual({ waitReason: 'Queued: waiting for a free worker on the shared provisioning queue.' });
    expect(await sqsRunWait(sqs, url, { status: 'running', chunks: 4, window: 2 })).toEqual({ waitReason: 'Queued: waiting for a free worker on the shared provisioning queue.' });
  });
});
