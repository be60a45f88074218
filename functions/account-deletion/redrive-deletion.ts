import { DELETION_REQUESTED_AT } from '../core/account-gate';
import { logger } from '../core/logger';
import type { DeletionMessage } from './deletion-message';
import type { DeletionQueue } from './deletion-queue';

/** How long a deletion that failed every delivery waits before it is tried again (SQS's longest delay). */
export const REDRIVE_DELAY_SECONDS = 900;

/**
 * The account-deletion dead-letter worker: a deletion that failed every delivery (a service down
 * for over an hour, a bug) is not left in the dead-letter queue for someone to redrive by hand:
 * the user asked to be erased and is refused meanwhile, so it goes back on the queue after
 * REDRIVE_DELAY_SECONDS, as often as it takes (each run resumes from what is left). Every failed
 * delivery was logged ('Record failed', alarmed), and each redrive is logged as an error too, so
 * someone hears of a deletion that keeps failing. A deletion that finished meanwhile (no user item)
 * or was never requested is dropped.
 */
export const redriveDeletion =
  (deps: { profile: (userId: string) => Promise<Record<string, unknown> | undefined>; queue: DeletionQueue; delaySeconds?: number }) =>
  async (message: DeletionMessage): Promise<'redriven' | 'nothing-left'> => {
    const profile = await deps.profile(message.userId);
    if (!profile || profile[DELETION_REQUESTED_AT] === undefined) return 'nothing-left';
    const redrives = (message.redrives ?? 0) + 1;
    await deps.queue.send({ userId: message.userId, redrives }, deps.delaySeconds ?? REDRIVE_DELAY_SECONDS);
    logger.error('Account deletion failed every delivery: queued again', { userId: message.userId, redrives });
    return 'redriven';
  };
