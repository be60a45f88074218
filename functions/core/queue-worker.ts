import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { safeParse, type $ZodType, type output } from 'zod/v4/core';
import { withinInvocation } from './dynamo-retry';
import { logger } from './logger';
import { RetryLaterError } from './retry-later';

/**
 * Logs a record handed back to SQS. A failure is an ERROR 'Record failed', which the FailedRecords
 * alarm counts (lib/constructs/monitoring.ts); a retry that was expected (RetryLaterError: another
 * worker holds what it needs, an event came early) is a WARN 'Record retried later', not counted.
 */
function logHandedBack(record: SQSRecord, error: unknown): void {
  const details = {
    messageId: record.messageId,
    receiveCount: record.attributes?.ApproximateReceiveCount,
    error: error instanceof Error ? error.message : String(error),
  };
  if (error instanceof RetryLaterError) logger.warn('Record retried later', { ...details, reason: error.name });
  else logger.error('Record failed', details);
}

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
  const handle = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => withinInvocation(context, () => handleBatch(event));
  const handleBatch = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const parsed = safeParse(schema, JSON.parse(record.body));
        if (!parsed.success) throw new Error(`Message does not match schema: ${parsed.error.issues[0]?.message ?? ''}`);
        await processRecord(parsed.data, record);
      } catch (error) {
        logHandedBack(record, error);
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
  return middy<SQSEvent, SQSBatchResponse>().use(injectLambdaContext(logger, { resetKeys: true })).handler(handle);
}

/**
 * queueWorker for a handler that takes the whole batch at once (the records that parse, in
 * order): it answers an error, or nothing, for each of them. The failed records, and those that
 * never parse, are reported as partial batch failures, exactly as queueWorker does.
 */
export function queueBatchWorker<Schema extends $ZodType>(
  schema: Schema,
  processBatch: (messages: readonly output<Schema>[], records: readonly SQSRecord[]) => Promise<readonly (Error | undefined)[]>,
) {
  const handle = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => withinInvocation(context, () => handleBatch(event));
  const handleBatch = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    const fail = (record: SQSRecord, error: unknown) => {
      logHandedBack(record, error);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    };
    const messages: output<Schema>[] = [];
    const records: SQSRecord[] = [];
    for (const record of event.Records) {
      try {
        const parsed = safeParse(schema, JSON.parse(record.body));
        if (!parsed.success) throw new Error(`Message does not match schema: ${parsed.error.issues[0]?.message ?? ''}`);
        messages.push(parsed.data);
        records.push(record);
      } catch (error) {
        fail(record, error);
      }
    }
    if (records.length) {
      let errors: readonly (Error | undefined)[];
      try {
        errors = await processBatch(messages, records);
      } catch (error) {
        errors = records.map(() => (error instanceof Error ? error : new Error(String(error))));
      }
      records.forEach((record, i) => {
        if (errors[i]) fail(record, errors[i]);
      });
    }
    return { batchItemFailures };
  };
  return middy<SQSEvent, SQSBatchResponse>().use(injectLambdaContext(logger, { resetKeys: true })).handler(handle);
}
