/**
 * A delivery that fails for now and is expected to pass on a later one: another worker still holds
 * what it needs, or an event came before the write it follows. The queue worker hands the record
 * back to SQS like any failure, but logs it at WARN: the FailedRecords alarm counts ERROR lines
 * only (lib/constructs/monitoring.ts). A record that never passes ends in the dead-letter queue,
 * whose own alarm fires.
 */
export class RetryLaterError extends Error {}
