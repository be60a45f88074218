import { BatchExecuteStatementCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isThrottling, withRetry, workerRetry, type RetryPolicy } from './dynamo-retry';
import { mapBounded } from '../provisioning/pacing';

/** One conditional PartiQL write (UPDATE ... WHERE <key and condition>), its values as parameters. */
export interface Statement {
  Statement: string;
  Parameters: unknown[];
}

/** Statements per BatchExecuteStatement call (DynamoDB's limit). */
export const STATEMENTS_PER_BATCH = 25;
/** Per-statement answers worth sending again (the others are final). */
const RETRYABLE_STATEMENT_ERRORS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded', 'TransactionConflict', 'InternalServerError']);

class StatementsRefused extends Error {
  constructor(readonly codes: string[]) {
    super(`DynamoDB refused ${codes.length} writes for now (${[...new Set(codes)].join(', ')})`);
    this.name = 'ThrottlingException';
  }
}

/** A table name quoted for PartiQL. */
export const partiqlTable = (tableName: string): string => `"${tableName.replaceAll('"', '""')}"`;

/**
 * Conditional writes, 25 to a BatchExecuteStatement call: each statement keeps its own condition
 * and answer, like an UpdateItem, at a fraction of the requests (on DynamoDB Local, 10,000 take
 * about a third of the time of single UpdateItems). A statement throttled inside a batch is sent
 * again alone; a failed condition is final (false in the answer); any other refusal throws, never
 * a silent loss. Answers, in order: whether each statement was applied.
 */
export async function executeConditionalStatements(
  deps: { db: DynamoDBDocumentClient; retry?: RetryPolicy },
  what: string,
  statements: readonly Statement[],
  parallel = 8,
): Promise<boolean[]> {
  const applied = new Array<boolean>(statements.length).fill(false);
  const batches: number[][] = [];
  for (let i = 0; i < statements.length; i += STATEMENTS_PER_BATCH) batches.push(Array.from({ length: Math.min(STATEMENTS_PER_BATCH, statements.length - i) }, (_, j) => i + j));
  await mapBounded(batches, parallel, async (batch) => {
    let left = batch;
    await withRetry(what, deps.retry ?? workerRetry, isThrottling, async () => {
      const { Responses = [] } = await deps.db.send(new BatchExecuteStatementCommand({ Statements: left.map((i) => statements[i]!) }));
      const codes = left.map((_, i): string | undefined => Responses[i]?.Error?.Code);
      const broken = codes.findIndex((code) => code !== undefined && code !== 'ConditionalCheckFailed' && !RETRYABLE_STATEMENT_ERRORS.has(code));
      if (broken >= 0) throw new Error(`${what}: ${codes[broken]}: ${Responses[broken]?.Error?.Message ?? ''}`);
      left.forEach((index, i) => {
        if (codes[i] === undefined) applied[index] = true;
      });
      const again = left.filter((_, i) => RETRYABLE_STATEMENT_ERRORS.has(codes[i] ?? ''));
      if (again.length) {
        left = again;
        throw new StatementsRefused(codes.filter((code): code is string => RETRYABLE_STATEMENT_ERRORS.has(code ?? '')));
      }
    });
  });
  return applied;
}
