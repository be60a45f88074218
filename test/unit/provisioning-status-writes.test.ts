/**
 * What AWS can answer to the provisioning worker's batched status writes and DynamoDB Local never
 * does, played by a scripted client: a statement throttled inside an accepted batch is sent again
 * alone, a condition that fails is final (recorded by another delivery), and any other refusal
 * is an error, never a silent loss. The happy path runs on DynamoDB Local in
 * test/integration/provisioning.test.ts.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the fake reads each command's input in whatever shape that command has */
import { describe, expect, it } from 'vitest';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RetryPolicy } from '../../functions/core/dynamo-retry';
import { recordOutcomes } from '../../functions/provisioning/provision-accounts';

type Statement = { Statement: string; Parameters: unknown[] };

function scriptedDb(answer: (statements: Statement[], call: number) => { Responses: { Error?: { Code: string; Message?: string } }[] }) {
  const calls: Statement[][] = [];
  const db = {
    send: async (command: { constructor: { name: string }; input: Record<string, any> }) => {
      expect(command.constructor.name).toBe('BatchExecuteStatementCommand');
      const statements = command.input.Statements as Statement[];
      calls.push(statements);
      return answer(statements, calls.length);
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, calls };
}

const instantRetry: RetryPolicy = { budgetMs: 60_000, baseMs: 50, capMs: 5_000, random: () => 0, sleep: async () => undefined };
const job = { id: 'run-1', mode: 'provision' };
const finals = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ account: { PK: 'USER#u#PROJECT#p', SK: `ACCOUNT#${String(i).padStart(6, '0')}` }, outcome: { kind: 'created' as const, externalId: `ext-${i}` } }));
const deps = (db: DynamoDBDocumentClient) => ({ db, tableName: 'bulkonboard', now: () => new Date('2026-11-23T00:00:00Z'), retry: instantRetry });
const accountOf = (statement: Statement) => statement.Parameters[statement.Parameters.length - 3];

describe('provisioning status writes (BatchExecuteStatement)', () => {
  it('writes 25 conditional statements a call, each with the run and its source status in the condition', async () => {
    const { db, calls } = scriptedDb((statements) => ({ Responses: statements.map(() => ({})) }));
    await recordOutcomes(deps(db), job, finals(60));
    expect(calls.map((c) => c.length)).toEqual([25, 25, 10]);
    const first = calls[0]![0]!;
    expect(first.Statement).toMatch(/^UPDATE "bulkonboard" SET externalStatus = \? SET externalAccountId = \?.* WHERE PK = \? AND SK = \? AND externalStatus = \? AND \(attribute_not_exists\(provisionRun\) OR provisionRun <> \?\)$/);
    expect(first.Parameters).toEqual(['success', 'ext-0', '2026-11-23T00:00:00.000Z', 'run-1', 'USER#u#PROJECT#p', 'ACCOUNT#000000', 'pending', 'run-1']);
  });

  it('sends again only the statements throttled inside a batch, and takes a failed condition as recorded', async () => {
    const { db, calls } = scriptedDb((statements, call) => ({
      Responses: statements.map((_, i) => (call === 1 && i % 5 === 0 ? { Error: { Code: 'ThrottlingError' } } : call === 1 && i === 1 ? { Error: { Code: 'ConditionalCheckFailed' } } : {})),
    }));
    await recordOutcomes(deps(db), job, finals(10));
    expect(calls).toHaveLength(2);
    expect(calls[1]!.map(accountOf)).toEqual(['ACCOUNT#000000', 'ACCOUNT#000005']);
  });

  it('throws on any other refusal instead of losing the result', async () => {
    const { db } = scriptedDb((statements) => ({ Responses: statements.map((_, i) => (i === 3 ? { Error: { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' } } : {})) }));
    await expect(recordOutcomes(deps(db), job, finals(5))).rejects.toThrow(/ValidationError: Item size/);
  });

  it('a failure keeps its reason (cut to 500 characters) and does not touch the external id', async () => {
    const { db, calls } = scriptedDb((statements) => ({ Responses: statements.map(() => ({})) }));
    await recordOutcomes(deps(db), job, [{ account: { PK: 'P', SK: 'S' }, outcome: { kind: 'failed', retryable: false, message: 'x'.repeat(600) } }]);
    const statement = calls[0]![0]!;
    expect(statement.Statement).not.toContain('externalAccountId');
    expect(statement.Parameters.slice(0, 2)).toEqual(['failed', 'x'.repeat(500)]);
  });
});
