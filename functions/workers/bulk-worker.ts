import { randomBytes } from 'node:crypto';
import { dynamo, sqs } from '../core/clients';
import { workerRetry } from '../core/dynamo-retry';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { timeOrderedId } from '../core/ids';
import { queueWorker } from '../core/queue-worker';
import { appAddFollowUps } from '../bulk/app-creation';
import { bulkChunkMessageSchema } from '../bulk/bulk-chunk';
import { sqsBulkQueue } from '../bulk/bulk-jobs';
import { sqsWakeFollowOns } from '../bulk/wake-follow-ons';
import { dynamoBulkStore } from '../bulk/bulk-store';
import { processChunk } from '../bulk/process-chunk';
import { sqsMailSender } from '../mail/sqs-mail-queue';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const processMessage = processChunk({ db, tableName, store: dynamoBulkStore(db, tableName, workerRetry), cipher: appCipher, randomBytes, now: () => new Date(), newId: timeOrderedId, mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')), bulkQueue: sqsBulkQueue(sqs(), requireEnv('BULK_QUEUE_URL')), followUps: appAddFollowUps(db, tableName), wake: sqsWakeFollowOns(db, tableName, sqs(), { provisioning: requireEnv('PROVISIONING_QUEUE_URL'), mail: requireEnv('MAIL_QUEUE_URL') }) });

export const handler = queueWorker(bulkChunkMessageSchema, (message) => processMessage(message));
