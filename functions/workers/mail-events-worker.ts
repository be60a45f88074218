import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { logger } from '../core/logger';
import { queueBatchWorker } from '../core/queue-worker';
import { applyMailEvents } from '../mail-events/apply-mail-event';
import { bouncesByCustomer, countBounces } from '../mail-events/count-bounces';
import { dynamoMailEventStore } from '../mail-events/mail-event-store';
import { mailEventMessageSchema, sesEventOf, type SesEvent } from '../mail-events/ses-event';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const apply = applyMailEvents({
  store: dynamoMailEventStore(db, tableName),
  log: { info: (message, details) => logger.info(message, details), warn: (message, details) => logger.warn(message, details) },
  now: () => new Date(),
});

/**
 * SES's events (configuration set -> SNS -> the mail-events queue), one account's e-mail status
 * each; a batch's plain events are applied together (applyMailEvents).
 */
export const handler = queueBatchWorker(mailEventMessageSchema, async (messages) => {
  // A message that holds no SES event fails alone (it ends in the dead-letter queue).
  const events = messages.map((message) => {
    try {
      return sesEventOf(message);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  });
  const valid = events.filter((event): event is SesEvent => !(event instanceof Error));
  const results = await apply(valid);
  // The bounces each customer's e-mails got, for its bounce rate (the cut-off: functions/mail/bounce-rate.ts).
  await countBounces({ db, tableName }, bouncesByCustomer(valid, results), Date.now());
  let next = 0;
  return events.map((event) => {
    if (event instanceof Error) return event;
    const result = results[next++];
    return result instanceof Error ? result : undefined;
  });
});
