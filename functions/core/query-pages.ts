import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { isThrottling, withRetry, type RetryPolicy } from './dynamo-retry';

/** A Query as its caller writes it, without the page's start: the reader follows the pages itself. */
export type QueryInput = Omit<QueryCommandInput, 'ExclusiveStartKey'>;

type Item = Record<string, unknown>;

/**
 * Every page of one Query, in order, following `LastEvaluatedKey` until the last: the one paging
 * loop of the table's readers (a caller that stops early, `break` in its `for await`, reads no
 * further page). `from` starts after a key a caller kept (a cursor). `maxItems` stops once that
 * many items came back, each page's `Limit` at most what is left (for a Query without a filter:
 * with one, DynamoDB's Limit counts the items it read, not the ones it answered). `retry`: a page
 * DynamoDB throttles is asked for again with full jitter within that budget (the pages before it
 * are kept).
 */
export async function* queryPages(
  db: DynamoDBDocumentClient,
  input: QueryInput,
  options: { from?: Item; maxItems?: number; retry?: RetryPolicy; what?: string } = {},
): AsyncGenerator<QueryCommandOutput> {
  let start = options.from;
  let read = 0;
  const max = options.maxItems ?? Number.POSITIVE_INFINITY;
  do {
    const left = max - read;
    const limit = Math.min(input.Limit ?? Number.POSITIVE_INFINITY, left);
    const ask = () => db.send(new QueryCommand({ ...input, ...(Number.isFinite(limit) ? { Limit: limit } : {}), ExclusiveStartKey: start }));
    const page = options.retry ? await withRetry(options.what ?? 'Reading a page', options.retry, isThrottling, ask) : await ask();
    read += page.Items?.length ?? 0;
    start = page.LastEvaluatedKey;
    yield page;
  } while (start && read < max);
}

/** Every item one Query answers, all pages. */
export async function queryItems(db: DynamoDBDocumentClient, input: QueryInput, options: { retry?: RetryPolicy; what?: string } = {}): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(db, input, options)) items.push(...(page.Items ?? []));
  return items;
}

/** How many items one Query matches (`Select: 'COUNT'`: counted by DynamoDB, no items sent back), all pages. */
export async function queryCount(db: DynamoDBDocumentClient, input: Omit<QueryInput, 'Select' | 'ProjectionExpression'>): Promise<number> {
  let count = 0;
  for await (const page of queryPages(db, { ...input, Select: 'COUNT' })) count += page.Count ?? 0;
  return count;
}
