import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sqs } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { timeOrderedId } from '../core/ids';
import { dynamoIntegrationStore } from '../integrations/integration-store';
import { startProvisioning } from '../provisioning/provisioning-jobs';
import { startSend } from '../mail/credential-sends';
import { sqsCredentialsQueue } from '../mail/sqs-credentials-queue';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { dynamoPlanReader } from '../usage/plan-store';
import { userTimeZone } from '../analytics/counters';
import { sqsBulkJobStarter, sqsBulkQueue } from './bulk-jobs';
import { waitingChunksWriter, type BulkStore } from './bulk-store';
import { recordUnqueuedChunk } from './process-chunk';
import { createBulkAccounts, type CreateBulkAccountsDeps } from './create-bulk-accounts';
import { startFollowUps } from './add-people';
import type { AddFollowUps } from './bulk-jobs';

/**
 * The bulk creation as the app runs it, wired to its services: POST /api/bulk-create and the
 * bulk-upload worker (an uploaded file's rows) create through this one use case.
 */
export function appCreateBulkAccounts(db: DynamoDBDocumentClient, tableName: string, store: BulkStore) {
  const { provision, sendCredentials } = appFollowUpStarters(db, tableName);
  const integrations = dynamoIntegrationStore(db, tableName);
  return createBulkAccounts({
    store,
    timeZone: (userId) => userTimeZone(db, tableName, userId),
    cipher: appCipher,
    randomBytes,
    now: () => new Date(),
    newId: timeOrderedId,
    jobs: sqsBulkJobStarter(db, tableName, sqs(), requireEnv('BULK_QUEUE_URL'), waitingChunksWriter(store), recordUnqueuedChunk({ db, tableName, store, now: () => new Date(), newId: timeOrderedId, bulkQueue: sqsBulkQueue(sqs(), requireEnv('BULK_QUEUE_URL')) })),
    integration: (userId, id) => integrations.get(userId, id),
    provision,
    sendCredentials,
  });
}

/**
 * What a creation starts once its accounts exist: the provisioning run and the credential send.
 * The bulk workers start them too, when a job adding people to a project ends (process-chunk.ts).
 */
export function appFollowUpStarters(db: DynamoDBDocumentClient, tableName: string): Pick<CreateBulkAccountsDeps, 'provision' | 'sendCredentials'> {
  const integrations = dynamoIntegrationStore(db, tableName);
  const provision = startProvisioning({
    db,
    tableName,
    queue: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')),
    now: () => new Date(),
    newId: timeOrderedId,
    plan: dynamoPlanReader(db, tableName),
    integration: (userId, id) => integrations.get(userId, id),
  });
  const send = startSend({
    db,
    tableName,
    queue: sqsCredentialsQueue(sqs(), requireEnv('MAIL_QUEUE_URL')),
    now: () => new Date(),
    newId: timeOrderedId,
    plan: dynamoPlanReader(db, tableName),
    // The mail worker issues one-time links (functions/credential-links).
    linksAvailable: true,
  });
  return {
    provision: (userId, projectId, integrationId, waitForAccounts) => provision(userId, projectId, { integrationId, mode: 'provision' }, { waitForAccounts }),
    sendCredentials: (userId, projectId, options, waitForAccounts, scope = 'all', rows) => send(userId, projectId, { ...options, scope, overrideSuppression: false }, { waitForAccounts, ...(rows ? { rows } : {}) }),
  };
}

/** The bulk workers' follow-ups of a job adding people (ChunkDeps.followUps). */
export function appAddFollowUps(db: DynamoDBDocumentClient, tableName: string) {
  const starters = appFollowUpStarters(db, tableName);
  return async (userId: string, projectId: string, followUps: AddFollowUps): Promise<Record<string, string>> => {
    const started = await startFollowUps(starters, userId, projectId, followUps);
    return Object.fromEntries(Object.entries(started).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  };
}
