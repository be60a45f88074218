import { queues } from '../../shared/routes';

/**
 * Chunks of one run on the shared provisioning queue at once: as many as the queue has workers,
 * so a run alone keeps every worker busy, while a run started later (another user's 10 accounts)
 * waits behind at most this many chunks of each run before it instead of behind all of them (a
 * 10,000-account run has 40, each paced to the platform's rate). The turns themselves are the
 * account-jobs engine's (functions/account-jobs/window.ts): chunk c, once done, puts chunk
 * c + window on the queue, behind what other runs queued meanwhile.
 */
export const PROVISIONING_WINDOW = queues.find((q) => q.name === 'provisioning')?.maxConcurrency ?? 2;

export { dueChunks, firstChunks, windowOf } from '../account-jobs/window';
