import { describe, expect, it, vi } from 'vitest';
import type { Context, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { queueWorker } from '../../functions/core/queue-worker';
import { logger } from '../../functions/core/logger';

const context = { awsRequestId: 'r', functionName: 'w', getRemainingTimeInMillis: () => 1000 } as unknown as Context;
const record = (messageId: string, body: string) => ({ messageId, body, receiptHandle: messageId, attributes: {} }) as SQSEvent['Records'][number];

describe('queueWorker', () => {
  it('reports only the failed and unparseable records as batch item failures', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const seen: number[] = [];
    const handler = queueWorker(z.object({ n: z.number() }), async ({ n }) => {
      if (n === 2) throw new Error('boom');
      seen.push(n);
    });
    const result = await handler(
      { Records: [record('a', '{"n":1}'), record('b', '{"n":2}'), record('c', 'not json'), record('d', '{"n":"x"}'), record('e', '{"n":5}')] },
      context,
    );
    expect(seen).toEqual([1, 5]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'b' }, { itemIdentifier: 'c' }, { itemIdentifier: 'd' }]);
  });
});
