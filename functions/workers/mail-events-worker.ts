import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { logger } from '../core/logger';
import { queueWorker } from '../core/queue-worker';
import { applyMailEvent } from '../mail-events/apply-mail-event';
import { dynamoMailEventStore } from '../mail-events/mail-event-store';
import { mailEventMessageSchema, sesEventOf } from '../mail-events/ses-event';

const apply = applyMailEvent({
  store: dynamoMailEventStore(dynamo(), requireEnv('TABLE_NAME')),
  log: { info: (message, details) => logger.info(message, details), warn: (message, details) => logger.warn(message, details) },
  now: () => new Date(),
});

/** SES's events (configuration set -> SNS -> the mail-events queue), one account's e-mail status each. */
export const handler = queueWorker(mailEventMessageSchema, async (message) => {
  await apply(sesEventOf(message));
});
