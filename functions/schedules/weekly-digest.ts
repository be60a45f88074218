import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { logger } from '../core/logger';
import { sqsMailSender } from '../mail/sqs-mail-queue';
import { queueWeeklyDigest } from './queue-weekly-digest';

const run = queueWeeklyDigest({ db: dynamo(), tableName: requireEnv('TABLE_NAME'), mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')), now: () => new Date() });

/** Started by EventBridge Scheduler (the CDK app) or the local stack's timer. */
export const handler = async (): Promise<{ week: string; queued: number; skipped: number }> => {
  const result = await run();
  logger.info('Weekly digest queued', { week: result.week, queued: result.queued.length, skipped: result.skipped });
  return { week: result.week, queued: result.queued.length, skipped: result.skipped };
};
