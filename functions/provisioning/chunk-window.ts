/**
 * Chunks of one job on the shared provisioning queue at once. The turns themselves are the
 * account-jobs engine's (functions/account-jobs/window.ts): chunk c, once done, puts chunk
 * c + window on the queue, behind what other jobs queued meanwhile, so a job started later
 * (another customer's 10 accounts) waits behind at most this many chunks of each job before it,
 * not behind all of them (a 10,000-account run has 40, each paced to the platform's rate).
 *
 * - A job that calls a platform keeps **one** (PLATFORM_WINDOW): its integration is called by one
 *   delivery at a time (functions/account-jobs/integration-turn.ts), so a second chunk on the
 *   queue could only wait for the turn. Each such job holds at most one worker, however large,
 *   and the queue's workers (a deploy setting, docs/capacity.md) serve as many customers at once.
 * - A job that only writes here (an account action or a deletion of accounts on no platform)
 *   keeps two (PROVISIONING_WINDOW): two workers write its chunks side by side.
 */
export const PROVISIONING_WINDOW = 2;
export const PLATFORM_WINDOW = 1;

/** The window of a job of the provisioning queue: one when it calls a platform, else two. */
export const windowFor = (callsPlatform: boolean): number => (callsPlatform ? PLATFORM_WINDOW : PROVISIONING_WINDOW);

export { dueChunks, firstChunks, windowOf } from '../account-jobs/window';
