import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../core/logger';
import { plural } from '../../shared/text/plural';

/** What GET /api/bulk-jobs/{id} adds to a job still waiting for its first chunk to be picked up. */
export interface QueueWait {
  /** Chunks of other jobs on the bulk queue (waiting or being written) when asked; approximate, like SQS's counts. */
  chunksAhead?: number;
  /** The sentence the bulk dialog shows instead of a silent "0 of N rows". */
  waitReason: string;
}

/**
 * Why a queued job waits, in words. Every job keeps at most a window of chunks on the shared queue
 * (bulk-jobs.ts CHUNK_WINDOW), so what is ahead of this job is a few chunks of each other running
 * job, and jobs take turns: the count says how busy the queue is, not how long the wait is.
 */
export function queueWaitReason(chunksAhead: number | undefined): QueueWait {
  return turnWaitReason(chunksAhead, { queue: 'bulk', others: 'jobs' });
}

/**
 * The sentence for anything that takes turns chunk by chunk on a shared queue (bulk jobs here,
 * provisioning runs in functions/provisioning/run-wait.ts): how many chunks of others are ahead.
 */
export function turnWaitReason(chunksAhead: number | undefined, { queue, others }: { queue: string; others: string }): QueueWait {
  if (chunksAhead === undefined) return { waitReason: `Queued: waiting for a free worker on the shared ${queue} queue.` };
  if (chunksAhead <= 0) return { chunksAhead: 0, waitReason: 'Queued: starting as soon as a worker picks it up.' };
  const chunks = plural(chunksAhead, 'chunk');
  const Others = others.charAt(0).toUpperCase() + others.slice(1);
  return {
    chunksAhead,
    waitReason: `Queued behind about ${chunks} of other ${others} on the shared ${queue} queue. ${Others} take turns chunk by chunk, so this one starts as soon as a worker is free.`,
  };
}

/**
 * The bulk queue's messages (waiting and in flight) less the job's own on it: at most `ownQueued`
 * (its window) while it is queued. A queue that does not answer gives the sentence without a count:
 * the status read never fails for it. `visibleIncludesInFlight`: the local SQS emulator's
 * ApproximateNumberOfMessages counts the in-flight messages as well (SQS counts only the visible
 * ones), so there they are not added twice.
 */
export async function sqsQueueWait(sqs: SQSClient, queueUrl: string, ownQueued: number, visibleIncludesInFlight = process.env.SQS_VISIBLE_COUNT_INCLUDES_IN_FLIGHT === 'true'): Promise<QueueWait> {
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    );
    const counts = { visible: Number(Attributes.ApproximateNumberOfMessages ?? 0), inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) };
    return queueWaitReason(otherChunks(counts, ownQueued, visibleIncludesInFlight));
  } catch (error) {
    logger.warn('Reading the bulk queue depth failed', { error: error instanceof Error ? error.message : String(error) });
    return queueWaitReason(undefined);
  }
}

/** Messages on the queue (waiting and in flight) that are not the job's own. */
export function otherChunks(counts: { visible: number; inFlight: number }, ownQueued: number, visibleIncludesInFlight: boolean): number {
  const onQueue = visibleIncludesInFlight ? Math.max(counts.visible, counts.inFlight) : counts.visible + counts.inFlight;
  return Math.max(0, onQueue - ownQueued);
}
