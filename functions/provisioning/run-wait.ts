import type { SQSClient } from '@aws-sdk/client-sqs';
import { turnWaitReason } from '../bulk/queue-wait';
import { ownQueued, sqsJobWait } from '../account-jobs/queue-wait';

/** What GET /api/provisioning-jobs/{id} adds to a run no worker has picked up yet. */
export interface RunWait {
  /** Messages of other runs on the provisioning queue (waiting or being worked on) when asked; approximate, like SQS's counts. */
  chunksAhead?: number;
  /** The sentence the provisioning progress shows instead of a silent "0 synced ... pending". */
  waitReason: string;
}

const words = { queue: 'provisioning', others: 'runs' };

/** Why a run waits, in words (the account-jobs engine's queue-wait.ts, for the provisioning queue). */
export function runWaitReason(chunksAhead: number | undefined): RunWait {
  return turnWaitReason(chunksAhead, words);
}

/** The run's own messages on the queue while it waits. */
export { ownQueued };

/**
 * A run that is queued, or planned with no chunk picked up by a worker yet, waits on the shared
 * queue: the queue's messages (waiting and in flight) less its own, in a sentence; others get nothing.
 */
export function sqsRunWait(
  sqs: SQSClient,
  queueUrl: string,
  job: Record<string, unknown>,
  visibleIncludesInFlight = process.env.SQS_VISIBLE_COUNT_INCLUDES_IN_FLIGHT === 'true',
): Promise<RunWait | undefined> {
  return sqsJobWait(sqs, queueUrl, job, words, visibleIncludesInFlight);
}
