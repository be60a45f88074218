import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { sqsMailSender } from '../mail/sqs-mail-queue';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { sweepExpiredProjects } from './sweep-expired-projects';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const run = sweepExpiredProjects({
  db,
  tableName,
  queue: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')),
  mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')),
  now: () => new Date(),
  newId: timeOrderedId,
  integrationName: async (userId, id) => (await db.send(new GetCommand({ TableName: tableName, Key: keys.integration(userId, id), ProjectionExpression: '#n', ExpressionAttributeNames: { '#n': 'name' } }))).Item?.name as string | undefined,
});

/** Started hourly by EventBridge Scheduler (the CDK app) or the local stack's timer: starts the expiry of the projects due now. */
export const handler = async (): Promise<{ upTo: string; started: number; notYetDue: number; busy: number; stale: number; more: boolean }> => {
  const result = await run();
  const summary = { upTo: result.upTo, started: result.started.length, notYetDue: result.notYetDue, busy: result.busy, stale: result.stale, more: result.more };
  logger.info('Project expiry sweep', summary);
  return summary;
};
