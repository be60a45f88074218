import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountShardsFor, accountsPageInOrder, MAX_ACCOUNT_SHARDS } from '../../functions/accounts/account-partitions';
import { keys } from '../../functions/core/keys';

/** Query over in-memory partitions, as DynamoDB answers it: sort-key order, `SK > :after`, Limit, LastEvaluatedKey. */
function partitionsDb(items: { PK: string; SK: string }[]) {
  let queries = 0;
  const db = {
    send: async (command: { input: { ExpressionAttributeValues: Record<string, string>; Limit: number } }) => {
      queries++;
      const { ':pk': pk, ':after': after } = command.input.ExpressionAttributeValues;
      const matching = items.filter((i) => i.PK === pk && (after === undefined || i.SK > after)).sort((a, b) => (a.SK < b.SK ? -1 : 1));
      const page = matching.slice(0, command.input.Limit);
      return { Items: page, ...(matching.length > page.length ? { LastEvaluatedKey: page[page.length - 1] } : {}) };
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, queries: () => queries };
}

describe("a project's accounts over shards", () => {
  it('one partition up to the synchronous limit, one more per 1,000 rows, at most 16', () => {
    expect([1, 1000, 1001, 2000, 2001, 15_999, 50_000, 100_000].map(accountShardsFor)).toEqual([1, 1, 2, 2, 3, 16, 16, 16]);
    expect(keys.account('u', 'p', 7, 1).PK).toBe('USER#u#PROJECT#p');
    expect(keys.account('u', 'p', 32, 16).PK).toBe('USER#u#PROJECT#p');
    expect(keys.account('u', 'p', 33, 16).PK).toBe('USER#u#PROJECT#p#SHARD#1');
  });

  it('pages list every stored row once, in file order, whatever the gaps (rejected rows) and the page size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: MAX_ACCOUNT_SHARDS }), fc.integer({ min: 1, max: 60 }), fc.array(fc.boolean(), { minLength: 0, maxLength: 400 }), async (shards, limit, stored) => {
        const rows = stored.flatMap((kept, i) => (kept ? [i + 1] : []));
        const { db } = partitionsDb(rows.map((row) => keys.account('u', 'p', row, shards)));
        const seen: number[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 1000; pages++) {
          const page = await accountsPageInOrder(db, 't', { userId: 'u', projectId: 'p', shards }, limit, after);
          expect(page.items.length).toBeLessThanOrEqual(limit);
          seen.push(...page.items.map((item) => Number(String(item.SK).slice('ACCOUNT#'.length))));
          if (!page.lastSk) break;
          after = page.lastSk;
        }
        expect(seen).toEqual(rows);
      }),
      { numRuns: 150 },
    );
  });
});
