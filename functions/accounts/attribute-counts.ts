import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { isThrottling, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { attributeIndexItems } from './attribute-index-items';
import { inLanes } from '../core/lanes';

/**
 * The Attribute filter's exact count (docs/data-model.md, "Counts"): one counter item per project,
 * column and value (`~COUNT#<key>#<value key>` in the project's `#ATTR` partition, `n`), moved
 * where the index entries are written, each move counted once:
 *  - an Edit or a sync's change (account-change.ts): −1 / +1 in the account's own transaction;
 *  - a deleted account (account action 'delete'): −1 in its erase transaction, with its entries;
 *  - accounts written in bulk (a job's chunk, a creation or an add answered at once): after the
 *    accounts are stored, one UpdateItem per value of the batch, `ADD n :k, counted :once` on the
 *    condition that the batch's id is not in `counted` yet, so a redelivered chunk adds nothing
 *    twice (a value's counter holds the ids of the batches that counted it: ~45 bytes each);
 *  - a project's deletion erases them with its partitions.
 * Every move also adds 1 to the counter's `moves`: the recount of a project older than its
 * counters (attribute-recount.ts) writes only when no move came between its reads.
 * A project is counted from its creation on (`attributeCountsKept` on its item, projectItem);
 * older projects, and one whose counting failed where it could not be retried (a write answered
 * at once), lose the mark and answer with the bound ('Up to N') as before.
 */
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A counter's column and value key, from an index entry's sort key (`<key>#<value key>#<row>`). */
function counterOf(entrySK: string): { key: string; valueKey: string } {
  const [key = '', valueKey = ''] = entrySK.split('#');
  return { key, valueKey };
}

/** What a batch of accounts adds: per column and value key, how many of them hold it. */
export function attributeTally(rows: readonly { row: number; attributes?: Readonly<Record<string, string>> }[], userId: string, projectId: string): Map<string, { key: string; valueKey: string; n: number }> {
  const tally = new Map<string, { key: string; valueKey: string; n: number }>();
  for (const row of rows) {
    for (const entry of attributeIndexItems(userId, projectId, row.row, row.attributes)) {
      const { key, valueKey } = counterOf(entry.SK);
      const id = `${key}#${valueKey}`;
      const seen = tally.get(id);
      if (seen) seen.n++;
      else tally.set(id, { key, valueKey, n: 1 });
    }
  }
  return tally;
}

/** The counter moves of one account's entries going (`remove`) and coming (`put`): items of the transaction that moves the entries. */
export function attributeCountMoves(tableName: string, userId: string, projectId: string, change: { remove: readonly { SK: string }[]; put: readonly { SK: string }[] }): TransactItem[] {
  const moves = [...change.remove.map((entry) => [entry.SK, -1] as const), ...change.put.map((entry) => [entry.SK, 1] as const)];
  return moves.map(([sk, by]) => {
    const { key, valueKey } = counterOf(sk);
    return {
      Update: {
        TableName: tableName,
        Key: keys.accountAttributeCount(userId, projectId, key, valueKey),
        UpdateExpression: 'ADD n :by, moves :one SET entityType = :type',
        ExpressionAttributeValues: { ':by': by, ':one': 1, ':type': 'AccountAttributeCount' },
      },
    };
  });
}

/** Values counted at once per batch (each its own UpdateItem). */
const IN_FLIGHT = 8;

/**
 * Counts a batch of stored accounts' values, once per `once` (a chunk's or a request's id): a
 * counter that already lists it is left alone, so a delivery that ran part-way and its redelivery
 * count each value once.
 */
export async function countAttributes(
  deps: { db: DynamoDBDocumentClient; tableName: string; retry?: RetryPolicy },
  userId: string,
  projectId: string,
  rows: readonly { row: number; attributes?: Readonly<Record<string, string>> }[],
  once: string,
): Promise<void> {
  await inLanes([...attributeTally(rows, userId, projectId).values()], IN_FLIGHT, async ({ key, valueKey, n }) => {
    try {
      await withRetry('Counting attribute values', deps.retry ?? workerRetry, isThrottling, () =>
        deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: keys.accountAttributeCount(userId, projectId, key, valueKey),
            UpdateExpression: 'ADD n :n, counted :once, moves :one SET entityType = :type',
            ConditionExpression: 'attribute_not_exists(counted) OR NOT contains(counted, :id)',
            ExpressionAttributeValues: { ':n': n, ':once': new Set([once]), ':id': once, ':one': 1, ':type': 'AccountAttributeCount' },
          }),
        ),
      );
    } catch (error) {
      // Counted by an earlier delivery of the same batch.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  });
}

/**
 * Counting a batch answered at once failed after its accounts were stored (no redelivery will
 * count them): the project's counters are no longer exact, so its mark goes and its count reads
 * 'Up to N' again. Never fails the request that stored the accounts.
 */
export async function countAttributesOrGiveUp(deps: { db: DynamoDBDocumentClient; tableName: string; retry?: RetryPolicy }, userId: string, projectId: string, rows: readonly { row: number; attributes?: Readonly<Record<string, string>> }[], once: string): Promise<void> {
  try {
    await countAttributes(deps, userId, projectId, rows, once);
  } catch (error) {
    logger.error('Counting the attribute values of accounts stored at once failed: the project counts them as a bound from now on', { userId, projectId, error: error instanceof Error ? error.message : String(error) });
    await deps.db
      .send(new UpdateCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), UpdateExpression: 'REMOVE attributeCountsKept', ConditionExpression: 'attribute_exists(PK)' }))
      .catch((markError: unknown) => logger.error('Could not take the exact-count mark off the project', { userId, projectId, error: String(markError) }));
  }
}
