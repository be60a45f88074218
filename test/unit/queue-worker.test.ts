import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { queueBatchWorker, queueWorker } from '../../functions/core/queue-worker';
import { logger } from '../../functions/core/logger';
import { AccountBusyError } from '../../functions/account-deletion/delete-account';
import { LockHeldError } from '../../functions/bulk/bulk-store';
import { MessageNotRecordedYetError } from '../../functions/mail-events/apply-mail-event';
import { failureLogMessages } from '../../lib/constructs/monitoring';

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

/** What the function writes to its log, as the metric filters read it: one JSON object per line. */
function captureLogLines(): { lines: () => Record<string, unknown>[]; restore: () => void } {
  const written: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }),
  );
  return {
    lines: () =>
      written
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}

/** What the FailedRecords alarm counts (lib/constructs/monitoring.ts: level ERROR and its message). */
const countedAsFailed = (line: Record<string, unknown>) => line.level === 'ERROR' && line.message === failureLogMessages.FailedRecords;

describe('expected retries are not failures (issue 26, item 11)', () => {
  // The real logger, writing what CloudWatch Logs would receive (another test silences logger.error).
  beforeEach(() => vi.restoreAllMocks());
  /** Runs the handler over messages m0..m<count - 1> ({ n }), with the log lines it wrote. */
  async function runLogged(handler: (event: SQSEvent, ctx: Context) => Promise<SQSBatchResponse>, count: number) {
    const log = captureLogLines();
    try {
      const result = await handler({ Records: Array.from({ length: count }, (_, n) => record(`m${n}`, JSON.stringify({ n }))) }, context);
      return { result, lines: log.lines() };
    } finally {
      log.restore();
    }
  }
  const expectedRetries = () => [new MessageNotRecordedYetError('ses-message-1'), new AccountBusyError(Date.now() + 60_000, 'delivery'), new LockHeldError()];

  it('queueWorker: a record handed back for a retry that was expected is logged at WARN, which the FailedRecords alarm does not count; any other error still is', async () => {
    const errors = [...expectedRetries(), new Error('boom')];
    const handler = queueWorker(z.object({ n: z.number() }), async ({ n }) => {
      throw errors[n]!;
    });
    const { result, lines } = await runLogged(handler, errors.length);

    // Every record still comes back (SQS delivers it again).
    expect(result.batchItemFailures).toEqual(errors.map((_, n) => ({ itemIdentifier: `m${n}` })));
    expect(lines.filter(countedAsFailed).map((line) => line.messageId)).toEqual(['m3']);
    const retries = lines.filter((line) => line.message === 'Record retried later');
    expect(retries.map((line) => [line.level, line.messageId, line.reason])).toEqual([
      ['WARN', 'm0', 'MessageNotRecordedYetError'],
      ['WARN', 'm1', 'AccountBusyError'],
      ['WARN', 'm2', 'LockHeldError'],
    ]);
  });

  it('queueBatchWorker: the same for the errors a batch handler answers', async () => {
    const errors = [...expectedRetries(), new Error('boom'), undefined];
    const handler = queueBatchWorker(z.object({ n: z.number() }), async (messages) => messages.map(({ n }) => errors[n]));
    const { result, lines } = await runLogged(handler, errors.length);

    expect(result.batchItemFailures).toEqual([0, 1, 2, 3].map((n) => ({ itemIdentifier: `m${n}` })));
    expect(lines.filter(countedAsFailed).map((line) => line.messageId)).toEqual(['m3']);
    expect(lines.filter((line) => line.level === 'WARN').map((line) => line.messageId)).toEqual(['m0', 'm1', 'm2']);
  });
});
