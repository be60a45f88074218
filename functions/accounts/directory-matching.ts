import type { DirectorySelection } from '../../shared/schemas/account-directory';
import { DIRECTORY_PAGE_MAX } from '../../shared/schemas/account-directory';
import type { browseAccounts } from './browse-accounts';

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
    do {
      const page = await browse(userId, { ...selection, limit: DIRECTORY_PAGE_MAX, ...(cursor ? { cursor } : {}) });
      for (const item of page.items) {
        if (ids.length >= limit) return { ids, more: true };
        ids.push(item.id);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return { ids, more: false };
  };
