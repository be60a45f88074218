import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { CredentialsMessage } from '../mail/mail-message';
import type { ProvisioningMessage } from '../provisioning/provisioning-message';

/**
 * Wakes the jobs that wait for an import to end (a provisioning run and a credentials send started
 * with the creation: status 'waiting', functions/account-jobs/lifecycle.ts planJob): once the bulk
 * job has ended, their start messages go on their queues at once instead of waiting for their next
 * look (a fallback they still take, every minute). The jobs are the project's lock holders; a
 * start message a job already planned is a no-op, so waking twice (a redelivered last chunk) is
 * harmless. Never throws: the fallback covers a wake-up that could not be sent.
 */
export type WakeFollowOns = (userId: string, projectId: string) => Promise<void>;

export const sqsWakeFollowOns =
  (db: DynamoDBDocumentClient, tableName: string, sqs: SQSClient, queueUrls: { provisioning: string; mail: string }): WakeFollowOns =>
  async (userId, projectId) => {
    try {
      const { Item: project } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.project(userId, projectId), ProjectionExpression: 'activeProvisioningJob, activeMailSend', ConsistentRead: true }),
      );
      const sends: Promise<unknown>[] = [];
      if (typeof project?.activeProvisioningJob === 'string') {
        const start: ProvisioningMessage = { type: 'start', userId, jobId: project.activeProvisioningJob };
        sends.push(sqs.send(new SendMessageCommand({ QueueUrl: queueUrls.provisioning, MessageBody: JSON.stringify(start) })));
      }
      if (typeof project?.activeMailSend === 'string') {
        const start: CredentialsMessage = { type: 'credentials', userId, sendId: project.activeMailSend };
        sends.push(sqs.send(new SendMessageCommand({ QueueUrl: queueUrls.mail, MessageBody: JSON.stringify(start) })));
      }
      await Promise.all(sends);
    } catch (error) {
      logger.warn('Jobs waiting for the import not woken (they look again within a minute)', { projectId, error: error instanceof Error ? error.message : String(error) });
    }
  };
