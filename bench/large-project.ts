/**
 * The large project of the benches that work on one (bench/add-people.ts, bench/sync.ts), written
 * straight into the table as the bulk job writes it, NOT through the API (minutes here; each
 * bench's output says so): its project item (the shards an import of that size has, `lastRow`),
 * its accounts (`Large Person<row>`, `large.<row>@example.com`, username `large<row>person<year>`)
 * with their username blocks, and the user's counters (Pro, one project, that many accounts).
 */
import { BatchWriteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountItem } from '../functions/accounts/account-item';
import { accountShardsFor } from '../functions/accounts/account-partitions';
import { usernameBlocks } from '../functions/bulk/bulk-store';
import { keys } from '../functions/core/keys';
import { timeOrderedId } from '../functions/core/ids';

const TABLE = 'bulkonboard';

export async function seedLargeProject(db: DynamoDBDocumentClient, userId: string, accounts: number, now = new Date()): Promise<{ projectId: string; shards: number }> {
  const projectId = timeOrderedId(now);
  const shards = accountShardsFor(accounts);
  const createdAt = now.toISOString();
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...keys.project(userId, projectId), entityType: 'Project', id: projectId, userId, name: 'Large', accountType: 'Standard User', status: 'active', accountCount: accounts, lastRow: accounts, failedCount: 0, accountShards: shards, statsCounted: true, createdAt, updatedAt: createdAt },
    }),
  );
  const year = now.getUTCFullYear();
  const names: string[] = [];
  const items: Record<string, unknown>[] = [];
  for (let row = 1; row <= accounts; row++) {
    const username = `large${row}person${year}`;
    names.push(username);
    items.push(
      accountItem(
        { id: keys.accountId(projectId, row), userId, projectId, projectName: 'Large', row, firstName: 'Large', lastName: `Person${row}`, email: `large.${row}@example.com`, username, passwordCiphertext: 'bench', accountType: 'Standard User', isActive: true, externalStatus: 'pending', createdAt },
        shards,
      ),
    );
  }
  items.push(...usernameBlocks(userId, { projectId, jobId: projectId, chunk: 0 }, names));
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let batch = batches.pop(); batch; batch = batches.pop()) {
        let pending: unknown[] = batch.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length) {
          const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: pending as never } }));
          pending = UnprocessedItems?.[TABLE] ?? [];
        }
      }
    }),
  );
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: keys.user(userId),
      UpdateExpression: 'SET subscriptionPlan = :pro, usernameItems = :one, projectCount = :p, accountCount = :n',
      ExpressionAttributeValues: { ':pro': 'pro', ':one': 1, ':p': 1, ':n': accounts },
    }),
  );
  return { projectId, shards };
}
