import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { safeParse, type $ZodType, type output } from 'zod/v4/core';
import { logger } from './logger';

/**
 * The one middleware stack of queue workers. Each record is parsed with the queue's zod schema
 * and processed on its own; failures are reported as partial batch failures so only they are
 * retried (and, after maxReceiveCount, land in the dead-letter queue). A record that can never
 * parse is reported as failed too: it ends in the DLQ instead of being dropped silently.
 */
export function queueWorker<Schema extends $ZodType>(
  schema: Schema,
  processRecord: (message: output<Schema>, record: SQSRecord) => Promise<void>,
) {
  const handle = async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const parsed = safeParse(schema, JSON.parse(record.body));
        if (!parsed.success) throw new Error(`Message does not match schema: ${parsed.error.issues[0]?.message ?? ''}`);
        await processRecord(parsed.data, record);
      } catch (error) {
        logger.error('Record failed', {
          messageId: record.messageId,
          receiveCount: record.attributes?.ApproximateReceiveCount,
          error: error instanceof Error ? error.message : String(error),
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
  return middy<SQSEvent, SQSBatchResponse>().use(injectLambdaContext(logger, { resetKeys: true })).handler(handle);
}
