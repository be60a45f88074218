import type { EmailSuppression } from '../../shared/schemas/email-suppressions';
import { NotFoundError } from '../core/errors';
import type { SuppressionStore } from './suppression-store';

/**
 * The user's suppression list. Not a Pro feature: a lapsed plan still sees why addresses were
 * skipped and may clear them.
 */
export function suppressionUseCases(deps: { store: SuppressionStore }) {
  return {
    /** Newest first. */
    async list(userId: string): Promise<EmailSuppression[]> {
      const list = await deps.store.list(userId);
      return list.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.email.localeCompare(b.email));
    },
    /** Removes an address (any case); 404 when it is not on the list. */
    async remove(userId: string, email: string): Promise<void> {
      if (!(await deps.store.remove(userId, email.trim().toLowerCase()))) throw new NotFoundError('This address is not on your suppression list');
    },
  };
}
