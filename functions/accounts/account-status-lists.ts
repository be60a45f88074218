import type { StateEntry } from './account-states';

/**
 * The platform statuses whose rows each PROV block also lists in an item of its own
 * (keys.accountStatusList): the exceptions a user filters to ("every account that failed to
 * sync"), which the Account Database finds without passing over the others. Synced and Pending
 * are most of a project's accounts: walking the project finds them at a page's cost.
 */
export const LISTED_STATUSES = ['failed', 'removed'] as const;
export type ListedStatus = (typeof LISTED_STATUSES)[number];

/** A block's rows in each listed status, ascending (what its list items hold). */
export function listedRows(rows: Record<string, StateEntry>): Record<ListedStatus, number[]> {
  const lists = { failed: [] as number[], removed: [] as number[] };
  for (const [row, entry] of Object.entries(rows)) {
    const status = entry.externalStatus;
    if (status === 'failed' || status === 'removed') lists[status].push(Number(row));
  }
  for (const list of Object.values(lists)) list.sort((a, b) => a - b);
  return lists;
}

export const sameRows = (a: number[], b: number[]) => a.length === b.length && a.every((row, i) => row === b[i]);

/** Writes a block's changed lists in the block's own transaction (the writer calls it; only the PROV writer is given one). */
export interface StatusListWrites {
  writes(
    tableName: string,
    target: { userId: string; projectId: string },
    block: { shard: number; fromRow: number },
    lists: Record<ListedStatus, number[]>,
    changed: readonly ListedStatus[],
    blockVersion: number,
  ): Record<string, unknown>[];
}
