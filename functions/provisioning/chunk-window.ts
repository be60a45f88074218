import { queues } from '../../shared/routes';

/**
 * Chunks of one run on the shared provisioning queue at once: as many as the queue has workers,
 * so a run alone keeps every worker busy, while a run started later (another user's 10 accounts)
 * waits behind at most this many chunks of each run before it instead of behind all of them (a
 * 10,000-account run has 40, each paced to the platform's rate). The run's other chunks are not
 * stored anywhere: the chunk plan is fixed (chunkPlan), so chunk c, once done, puts chunk
 * c + window on the queue (provisioning-jobs.ts releaseNext), behind what other runs queued
 * meanwhile: running runs take turns chunk by chunk.
 */
export const PROVISIONING_WINDOW = queues.find((q) => q.name === 'provisioning')?.maxConcurrency ?? 2;

/** The window a run was planned with; 0 for a run planned before windows existed (it queued every chunk at once). */
export const windowOf = (job: Record<string, unknown>): number => Math.max(0, Math.floor(Number(job.window ?? 0)) || 0);

/** What a run puts on the queue when it is planned: its first `window` chunks (all of them without a window). */
export function firstChunks<T extends { chunk: number }>(plan: readonly T[], window: number): T[] {
  return window ? plan.filter((c) => c.chunk < window) : [...plan];
}

/**
 * What a resume puts on the queue again: the unfinished chunks that were due on it, the first
 * `window` ones and those whose releaser (chunk - window) is done. The others are released as
 * those finish, so a resumed run holds a window again, not all of its unfinished chunks.
 */
export function dueChunks<T extends { chunk: number }>(plan: readonly T[], done: ReadonlySet<number>, window: number): T[] {
  return plan.filter((c) => !done.has(c.chunk) && (!window || c.chunk < window || done.has(c.chunk - window)));
}
