import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { itemKey, itemsByKey } from '../../functions/core/items-by-key';
import { RetryBudgetSpentError, type RetryPolicy } from '../../functions/core/dynamo-retry';

type Key = { PK: string; SK: string };
type BatchGetInput = { RequestItems: Record<string, { Keys: Key[]; ConsistentRead?: boolean; ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> }> };

/**
 * A table answered as DynamoDB answers BatchGetItem: a ValidationException for more than 100 keys
 * or a key asked twice, the items found (in any order), and the first `unprocessed(call)` keys of a
 * call left in UnprocessedKeys (a throttled partition).
 */
function batchDb(stored: Key[], unprocessed: (call: number) => number = () => 0) {
  const byKey = new Map(stored.map((key) => [itemKey(key), { ...key, value: `v:${key.SK}` }]));
  const inputs: BatchGetInput[] = [];
  const db = {
    send: async (command: { input: BatchGetInput }) => {
      inputs.push(command.input);
      const [table, read] = Object.entries(command.input.RequestItems)[0]!;
      if (read.Keys.length > 100) throw Object.assign(new Error('Too many items requested for the BatchGetItem call'), { name: 'ValidationException' });
      if (new Set(read.Keys.map(itemKey)).size < read.Keys.length) throw Object.assign(new Error('Provided list of item keys contains duplicates'), { name: 'ValidationException' });
      const left = read.Keys.slice(0, Math.min(read.Keys.length, unprocessed(inputs.length)));
      const answered = read.Keys.slice(left.length).flatMap((key: Key) => (byKey.has(itemKey(key)) ? [byKey.get(itemKey(key))!] : [])).reverse();
      return { Responses: { [table]: answered }, ...(left.length ? { UnprocessedKeys: { [table]: { ...read, Keys: left } } } : {}) };
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, inputs };
}

const instant: RetryPolicy = { budgetMs: 10_000, baseMs: 10, capMs: 100, random: () => 0, sleep: async () => undefined };
const keyOf = (n: number): Key => ({ PK: `P#${n % 7}`, SK: `S#${n}` });

describe('itemsByKey: the one BatchGetItem reader of the table', () => {
  it('finds every stored key asked for, once, whatever the duplicates, batch size and unprocessed keys', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 350 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 6 }),
        async (asked, keysPerCall, unprocessedCounts) => {
          const stored = Array.from({ length: 200 }, (_, n) => keyOf(n * 2));
          const { db, inputs } = batchDb(stored, (call) => unprocessedCounts[call - 1] ?? 0);
          const found = await itemsByKey(db, 't', asked.map(keyOf), { keysPerCall, retry: instant });
          const expected = [...new Set(asked)].filter((n) => n % 2 === 0 && n < 400).map(keyOf);
          expect([...found.keys()].sort()).toEqual(expected.map(itemKey).sort());
          for (const key of expected) expect(found.get(itemKey(key))).toMatchObject({ ...key, value: `v:${key.SK}` });
          for (const input of inputs) expect(input.RequestItems.t!.Keys.length).toBeLessThanOrEqual(keysPerCall);
        },
      ),
    );
  });

  it('asks for PK and SK beside a projection (its answer is keyed by them), and reads consistently when told', async () => {
    const { db, inputs } = batchDb([keyOf(1)]);
    const found = await itemsByKey(db, 't', [keyOf(1)], { consistent: true, projection: { ProjectionExpression: '#v', ExpressionAttributeNames: { '#v': 'value' } } });
    expect(found.get(itemKey(keyOf(1)))).toMatchObject({ value: 'v:S#1' });
    const read = inputs[0]!.RequestItems.t!;
    expect(read.ConsistentRead).toBe(true);
    expect(read.ProjectionExpression).toBe('#ibkPK, #ibkSK, #v');
    expect(read.ExpressionAttributeNames).toEqual({ '#v': 'value', '#ibkPK': 'PK', '#ibkSK': 'SK' });
  });

  it('gives up with the budget when a key stays unprocessed, naming what it read', async () => {
    const { db } = batchDb([keyOf(1)], () => 1);
    let clock = 0;
    const budget: RetryPolicy = { ...instant, budgetMs: 1_000, now: () => clock, sleep: async (ms) => void (clock += ms), random: (max) => max };
    const failure = itemsByKey(db, 't', [keyOf(1)], { retry: budget, what: 'Reading a chunk' });
    await expect(failure).rejects.toBeInstanceOf(RetryBudgetSpentError);
    await expect(failure).rejects.toThrow(/Reading a chunk/);
  });
});
