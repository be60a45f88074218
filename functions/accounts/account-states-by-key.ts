import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isThrottling, requestRetry, withRetry } from '../core/dynamo-retry';
import { addBlock, emptyStates, overlayState, rowOf, stateBlockKey, stateChannels, type AccountStates } from './account-states';

/**
 * Accounts of any projects of one user (a search's hits) with their states: the blocks are read
 * by key (BatchGetItem), which needs each project's shard count.
 */
export async function withStatesByKey(db: DynamoDBDocumentClient, tableName: string, userId: string, accounts: Record<string, unknown>[], shardsOfProject: Map<string, number>): Promise<Record<string, unknown>[]> {
  const blockKeys = new Map<string, { PK: string; SK: string }>();
  for (const account of accounts) {
    const projectId = String(account.projectId);
    for (const channel of stateChannels) {
      const key = stateBlockKey(userId, projectId, channel, rowOf(account), shardsOfProject.get(projectId) ?? 1);
      blockKeys.set(`${key.PK}|${key.SK}`, key);
    }
  }
  const byProject = new Map<string, AccountStates>();
  const pending = [...blockKeys.values()];
  for (let i = 0; i < pending.length; i += 100) {
    let batch: Record<string, unknown>[] = pending.slice(i, i + 100);
    await withRetry('Reading account states', requestRetry, (e) => isThrottling(e) || e instanceof UnprocessedStateKeys, async () => {
      const { Responses, UnprocessedKeys } = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: batch } } }));
      for (const item of Responses?.[tableName] ?? []) {
        const projectId = String(item.projectId);
        if (!byProject.has(projectId)) byProject.set(projectId, emptyStates());
        addBlock(byProject.get(projectId)!, item);
      }
      batch = UnprocessedKeys?.[tableName]?.Keys ?? [];
      if (batch.length) throw new UnprocessedStateKeys();
    });
  }
  return accounts.map((account) => {
    const states = byProject.get(String(account.projectId));
    return states ? overlayState(account, states) : account;
  });
}

class UnprocessedStateKeys extends Error {}
