import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../core/logger';
import { otherChunks, turnWaitReason } from '../bulk/queue-wait';
import { windowOf } from './chunk-window';

/** What GET /api/provisioning-jobs/{id} adds to a run no worker has picked up yet. */
export interface RunWait {
  /** Messages of other runs on the provisioning queue (waiting or being worked on) when asked; approximate, like SQS's counts. */
  chunksAhead?: number;
  /** The sentence the provisioning progress shows instead of a silent "0 synced ... pending". */
  waitReason: string;
}

/**
 * Why a run waits, in words. Every run keeps at most a window of chunks on the shared queue
 * (chunk-window.ts), so what is ahead of it is a few chunks of each other running run, and runs
 * take turns: the count says how busy the queue is, not how long the wait is.
 */
export function runWaitReason(chunksAhead: number | undefined): RunWait {
  return turnWaitReason(chunksAhead, { queue: 'provisioning', others: 'runs' });
}

/**
 * The run's own messages on the queue while it waits: its start message while 'queued', then its
 * first window of chunks (all of its chunks for a run planned before windows existed).
 */
export function ownQueued(job: Record<string, unknown>): number {
  if (job.status === 'queued') return 1;
  const chunks = Number(job.chunks ?? 0);
  return Math.min(windowOf(job) || chunks, chunks);
}

/**
 * A run that is queued (its start not read yet), or planned with no chunk picked up by a worker
 * yet (`pickedUpAt`), waits on the shared queue: the queue's messages (waiting and in flight)
 * less its own, in a sentence. Others (waiting for their accounts, running, paused, ended) get
 * nothing. A queue that does not answer gives the sentence without a count: the status read
 * never fails for it. `visibleIncludesInFlight`: as in bulk/queue-wait.ts (the local emulator).
 */
export async function sqsRunWait(
  sqs: SQSClient,
  queueUrl: string,
  job: Record<string, unknown>,
  visibleIncludesInFlight = process.env.SQS_VISIBLE_COUNT_INCLUDES_IN_FLIGHT === 'true',
): Promise<RunWait | undefined> {
  const waiting = job.status === 'queued' || ((job.status === 'running' || job.status === 'resuming') && job.pickedUpAt === undefined && Number(job.chunks ?? 0) > 0 && Number(job.chunksDone ?? 0) === 0);
  if (!waiting) return undefined;
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    );
    const counts = { visible: Number(Attributes.ApproximateNumberOfMessages ?? 0), inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) };
    return runWaitReason(otherChunks(counts, ownQueued(job), visibleIncludesInFlight));
  } catch (error) {
    logger.warn('Reading the provisioning queue depth failed', { error: error instanceof Error ? error.message : String(error) });
    return runWaitReason(undefined);
  }
}
