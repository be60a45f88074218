import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../core/logger';
import { otherChunks, turnWaitReason, type QueueWait } from '../bulk/queue-wait';
import type { JobItem } from './kind';
import { windowOf } from './window';

/**
 * Why a job no worker has picked up yet waits, for its status read: the shared queue's messages
 * (waiting and in flight) less its own, in a sentence. Every job keeps at most a window of chunks
 * on the queue (window.ts), so what is ahead is a few chunks of each other job, and jobs take
 * turns: the count says how busy the queue is, not how long the wait is.
 */

/** Names in the sentence: the queue ('provisioning') and what else takes turns on it ('runs'). */
export interface QueueWords {
  queue: string;
  others: string;
}

/** The job's own messages on the queue while it waits: its start message while 'queued', then its first window of chunks (all of them for a job planned before windows). */
export function ownQueued(job: JobItem): number {
  if (job.status === 'queued') return 1;
  const chunks = Number(job.chunks ?? 0);
  return Math.min(windowOf(job) || chunks, chunks);
}

/** Whether a job waits on the queue: queued (its start not read yet), or planned with no chunk picked up by a worker yet (`pickedUpAt`, kind.reportsPickup). */
export const waitsOnQueue = (job: JobItem): boolean =>
  job.status === 'queued' || ((job.status === 'running' || job.status === 'resuming') && job.pickedUpAt === undefined && Number(job.chunks ?? 0) > 0 && Number(job.chunksDone ?? 0) === 0);

/**
 * The wait of a job that waits on the queue; nothing for the others (waiting for their accounts,
 * running, paused, ended). A queue that does not answer gives the sentence without a count: the
 * status read never fails for it. `visibleIncludesInFlight`: as in bulk/queue-wait.ts (the local emulator).
 */
export async function sqsJobWait(sqs: SQSClient, queueUrl: string, job: JobItem, words: QueueWords, visibleIncludesInFlight: boolean): Promise<QueueWait | undefined> {
  if (!waitsOnQueue(job)) return undefined;
  try {
    const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    const counts = { visible: Number(Attributes.ApproximateNumberOfMessages ?? 0), inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) };
    return turnWaitReason(otherChunks(counts, ownQueued(job), visibleIncludesInFlight), words);
  } catch (error) {
    logger.warn(`Reading the ${words.queue} queue depth failed`, { error: error instanceof Error ? error.message : String(error) });
    return turnWaitReason(undefined, words);
  }
}
