import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryCount, queryItems, queryPages } from '../../functions/core/query-pages';

/**
 * One partition answered as DynamoDB pages a Query: sort-key order, `Limit`, at most `pageCap`
 * items a page (its 1 MB), `ExclusiveStartKey`, `LastEvaluatedKey` while items are left,
 * `Select: 'COUNT'` answering a count and no items.
 */
function pagedDb(count: number, pageCap: number) {
  const items = Array.from({ length: count }, (_, i) => ({ PK: 'P', SK: `S#${String(i).padStart(6, '0')}` }));
  const inputs: Record<string, unknown>[] = [];
  const db = {
    send: async (command: { input: { Limit?: number; ExclusiveStartKey?: { SK: string }; Select?: string } }) => {
      inputs.push(command.input);
      const after = command.input.ExclusiveStartKey?.SK;
      const left = items.filter((item) => after === undefined || item.SK > after);
      const page = left.slice(0, Math.min(pageCap, command.input.Limit ?? Number.POSITIVE_INFINITY));
      const last = page.length < left.length ? { LastEvaluatedKey: page[page.length - 1] } : {};
      return command.input.Select === 'COUNT' ? { Count: page.length, ...last } : { Items: page, ...last };
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, items, inputs };
}

const query = { TableName: 't', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'P' } };

describe('queryPages: the one paging loop of the table readers', () => {
  it('reads every item once, in order, whatever the page size, and counts them alike', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 70 }), async (count, pageCap) => {
        const { db, items } = pagedDb(count, pageCap);
        expect(await queryItems(db, query)).toEqual(items);
        expect(await queryCount(db, query)).toBe(count);
      }),
    );
  });

  it('stops at maxItems, each page asking at most for what is left', async () => {
    const { db, inputs } = pagedDb(250, 1000);
    const pages = [];
    for await (const page of queryPages(db, { ...query, Limit: 100 }, { maxItems: 230 })) pages.push(page.Items?.length);
    expect(pages).toEqual([100, 100, 30]);
    expect(inputs.map((input) => input.Limit)).toEqual([100, 100, 30]);
  });

  it('starts after a kept key, and a caller that stops early reads no further page', async () => {
    const { db, items, inputs } = pagedDb(50, 10);
    const read = [];
    for await (const page of queryPages(db, query, { from: items[19] })) {
      read.push(...(page.Items ?? []));
      if (read.length >= 15) break;
    }
    expect(read).toEqual(items.slice(20, 40));
    expect(inputs).toHaveLength(2);
  });

  it('asks again for a page DynamoDB throttles, within the retry budget, keeping the pages before it', async () => {
    const { db: paged, items } = pagedDb(30, 10);
    let calls = 0;
    const throttled = {
      send: async (command: unknown) => {
        calls++;
        // The second page is throttled twice (the SDK's own retries spent), then answered.
        if (calls === 2 || calls === 3) throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ThrottlingException' });
        return paged.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    const instant = { budgetMs: 10_000, baseMs: 1, capMs: 5, random: () => 0, sleep: async () => undefined };
    expect(await queryItems(throttled, query, { retry: instant })).toEqual(items);
    expect(calls).toBe(5);
    calls = 0;
    await expect(queryItems(throttled, query)).rejects.toThrow(/allowed throughput/);
  });
});
