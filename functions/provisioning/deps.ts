import { dynamo, sqs } from '../core/clients';
import { env, requireEnv } from '../core/env';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { recordOf, type IntegrationRecord } from '../integrations/integration-record';
import { sqsProvisioningQueue } from './sqs-provisioning-queue';
import type { ProvisioningQueue } from './provisioning-message';

function lazyQueue(make: () => ProvisioningQueue): ProvisioningQueue {
  let queue: ProvisioningQueue | undefined;
  return { send: (messages, delaySeconds) => (queue ??= make()).send(messages, delaySeconds) };
}

/** What every provisioning entry point (route group, workers, bulk) is built from in Lambda. */
export function provisioningRuntime() {
  const db = dynamo();
  const tableName = requireEnv('TABLE_NAME');
  // Read only (the store's other writes stay out of these bundles and their grants).
  const integrations = {
    async get(userId: string, id: string): Promise<IntegrationRecord | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.integration(userId, id), ConsistentRead: true }));
      return Item ? recordOf(Item) : undefined;
    },
  };
  return {
    db,
    tableName,
    integrations,
    // Made on first send: a function that never sends needs no queue URL.
    queue: lazyQueue(() => sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL'))),
    now: () => new Date(),
    outbound: { allowedOrigins: (env().OUTBOUND_ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean) },
  };
}
