import type { DirectorySelection } from '../../shared/schemas/account-directory';
import { DIRECTORY_PAGE_MAX } from '../../shared/schemas/account-directory';
import { ConflictError } from '../core/errors';
import type { browseAccounts } from './browse-accounts';

/**
 * Pages one resolution walks at most (each reads at most READ_FACTOR x 100 items): a selection
 * so sparse that finding its accounts would take longer than the request may is refused with
 * words, never cut short (the set acted on must be the one matching).
 */
export const MATCHING_PAGES_MAX = 150;

/**
 * Every account id the filters and term select now, for an action over "all N matching"
 * (functions/account-jobs/directory-actions.ts): the Account Database's own pages, walked to the
 * end, so the set is what the page shows and the badge counts. At most `limit` ids (`more` says
 * there were more); a walk is bounded by what its pages read (READ_FACTOR per page item).
 */
export const matchingAccounts =
  (browse: ReturnType<typeof browseAccounts>) =>
  async (userId: string, selection: DirectorySelection, limit: number): Promise<{ ids: string[]; more: boolean }> => {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (++pages > MATCHING_PAGES_MAX) throw new ConflictError('These filters match too few of the accounts to find them all at once: narrow them (a project, a status), or act from a project page.');
      const page = await browse(userId, { ...selection, limit: DIRECTORY_PAGE_MAX, ...(cursor ? { cursor } : {}) });
      for (const item of page.items) {
        if (ids.length >= limit) return { ids, more: true };
        ids.push(item.id);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return { ids, more: false };
  };
