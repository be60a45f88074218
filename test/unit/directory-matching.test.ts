import { describe, expect, it } from 'vitest';
import { MATCHING_PAGES_MAX, matchingAccounts } from '../../functions/accounts/directory-matching';
import type { browseAccounts } from '../../functions/accounts/browse-accounts';
import { ConflictError } from '../../functions/core/errors';
import type { AccountView } from '../../shared/schemas/project';

type Browse = ReturnType<typeof browseAccounts>;
const page = (ids: string[], next?: string) => ({ items: ids.map((id) => ({ id }) as AccountView), count: 0, countIs: 'exact' as const, itemsRead: 0, ...(next ? { nextCursor: next } : {}) });

describe('matchingAccounts (an action over "all N matching")', () => {
  it('follows the pages to the end, passing the cursor back', async () => {
    const seen: (string | undefined)[] = [];
    const browse = (async (_user, query) => {
      seen.push(query.cursor);
      return query.cursor ? page(['p.000002']) : page(['p.000003'], 'c1');
    }) as Browse;
    expect(await matchingAccounts(browse)('u', { sort: 'date', state: 'active' }, 10)).toEqual({ ids: ['p.000003', 'p.000002'], more: false });
    expect(seen).toEqual([undefined, 'c1']);
  });

  it('says there are more than the limit', async () => {
    const browse = (async () => page(['a.000001', 'a.000002', 'a.000003'], 'again')) as Browse;
    expect(await matchingAccounts(browse)('u', { sort: 'date' }, 2)).toEqual({ ids: ['a.000001', 'a.000002'], more: true });
  });

  it('refuses, with words, a walk too sparse to finish in one request instead of acting on part of it', async () => {
    let calls = 0;
    const browse = (async () => {
      calls++;
      return page([], 'on');
    }) as Browse;
    await expect(matchingAccounts(browse)('u', { sort: 'date', emailStatus: 'bounced' }, 10)).rejects.toBeInstanceOf(ConflictError);
    expect(calls).toBe(MATCHING_PAGES_MAX);
  });
});
