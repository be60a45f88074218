import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isBatchRetryable, UnprocessedItemsError, withRetry, workerRetry } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { attributeOf, blockOf, type Deps, type HistoryBlockEntry } from './account-history-blocks';

/**
 * The writes of an account action's history items (account-history-blocks.ts), apart from their
 * reads: only the action's workers hold BatchWriteItem, not the routes that read the drawer.
 *
 * Puts the items of one job's blocks whole, with these entries: `entries` holds every entry of the
 * job in each block it names (a block's item is replaced, so an entry left out would be lost).
 * BatchWriteItem, 25 blocks a request: a chunk's history in one or two requests, not one per block.
 */
export async function writeHistoryBlocks(
  deps: Deps,
  target: { userId: string; projectId: string; shards: number; jobId: string },
  entries: ReadonlyMap<number, HistoryBlockEntry>,
): Promise<void> {
  const byBlock = new Map<string, { fromRow: number; shard: number; rows: [number, HistoryBlockEntry][] }>();
  for (const [row, entry] of entries) {
    const block = blockOf(row, target.shards);
    const id = `${block.fromRow}#${block.shard}`;
    const found = byBlock.get(id) ?? { ...block, rows: [] };
    found.rows.push([row, entry]);
    byBlock.set(id, found);
  }
  const items = [...byBlock.values()].map((block) => ({
    ...keys.accountHistoryBlock(target.userId, target.projectId, block.fromRow, block.shard, target.jobId),
    entityType: 'AccountHistoryBlock',
    userId: target.userId,
    projectId: target.projectId,
    jobId: target.jobId,
    ...Object.fromEntries(block.rows.map(([row, entry]) => [attributeOf(row), { kind: entry.kind, at: entry.at, ...(entry.detail !== undefined ? { detail: entry.detail } : {}) }])),
  }));
  await Promise.all(
    Array.from({ length: Math.ceil(items.length / 25) }, async (_, n) => {
      let requests: Record<string, unknown>[] = items.slice(n * 25, n * 25 + 25).map((Item) => ({ PutRequest: { Item } }));
      await withRetry('Recording account history', deps.retry ?? workerRetry, isBatchRetryable, async () => {
        const { UnprocessedItems } = await deps.db.send(new BatchWriteCommand({ RequestItems: { [deps.tableName]: requests as never } }));
        requests = (UnprocessedItems?.[deps.tableName] ?? []) as Record<string, unknown>[];
        if (requests.length) throw new UnprocessedItemsError(requests.length);
      });
    }),
  );
}

