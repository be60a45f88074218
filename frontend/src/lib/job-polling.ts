import { pollCap } from './poll-cap';

/**
 * How often a background job's progress is read: bulk creation jobs and provisioning runs poll
 * through the same schedule, so every open window costs the stage's shared request limit the same.
 */

/** A job's first polls come this often: a small job ends within them. */
export const JOB_POLL_MS = 1000;
/** The slowest poll of a long job: its progress still moves on screen, at a fifth of the requests (the e2e build: poll-cap.ts). */
export const JOB_POLL_MAX_MS = pollCap(5000);
/** Polls at the fast rate before slowing down. */
export const JOB_FAST_POLLS = 5;
/** Each poll after the fast ones waits this much longer than the one before, up to JOB_POLL_MAX_MS. */
export const JOB_POLL_GROWTH = 1.25;

/**
 * The wait before the next poll, given how many answers have come so far: 1 s for the first five,
 * then 25% longer each time, 5 s from the 13th on (about 25 s into a job). Every open Bulk Creator
 * polls through the stage's shared request limit (docs/deploy.md, API throttling): a job of three
 * minutes costs about 45 polls instead of 180.
 */
export function jobPollInterval(answers: number): number {
  const slowed = Math.max(0, answers - JOB_FAST_POLLS);
  return Math.min(JOB_POLL_MAX_MS, Math.round(JOB_POLL_MS * JOB_POLL_GROWTH ** slowed));
}
