import { NotFoundError } from '../core/errors';
import type { DeletionQueue } from './deletion-queue';
import type { DeletionRequestStore } from './deletion-request-store';

export interface RequestDeletionDeps {
  store: DeletionRequestStore;
  queue: DeletionQueue;
  now: () => Date;
}

export interface DeletionAccepted {
  status: 'deleting';
}

/**
 * DELETE /api/user/account:
 * 1. Mark the user item as being deleted: from now on every other route answers 410 to this user
 *    (functions/core/account-gate.ts), so nothing new is written while the job runs.
 * 2. Queue the deletion job. This route itself stays open to the user, so a request whose queueing
 *    failed can be sent again (the job is idempotent: a second message finds nothing more to do).
 */
export const requestAccountDeletion =
  (deps: RequestDeletionDeps) =>
  async (userId: string, onMarked?: () => Promise<void>): Promise<DeletionAccepted> => {
    if (!(await deps.store.markDeleting(userId, deps.now()))) throw new NotFoundError('User not found');
    // Before the job is queued (the security event): what it writes in the user's partitions is
    // there before the job starts, so the job erases it with the rest.
    await onMarked?.();
    await deps.queue.send({ userId });
    return { status: 'deleting' };
  };
