import { logger } from '../core/logger';
import { queueWorker } from '../core/queue-worker';
import { credentialRecordDeps } from '../mail/credential-send-deps';
import { mailMessageSchema } from '../mail/mail-message';
import { recordDeadCredentials } from '../mail/send-credentials';

const deadCredentials = recordDeadCredentials(credentialRecordDeps());

/**
 * The mail queue's dead letters: a credentials chunk or start is recorded (its accounts fail with
 * the reason, the send ends and adds up); a notification e-mail that failed every delivery is
 * logged as an error (nothing waits on it).
 */
export const handler = queueWorker(mailMessageSchema, async (message) => {
  if (message.type === 'credentials') return deadCredentials(message);
  logger.error('A notification e-mail failed every delivery', { type: message.type, userId: message.userId });
});
