/**
 * `npm run expire`: runs the expiry sweep now against the stack that `npm start` runs (same
 * LOCAL_PORT_OFFSET / port variables), as its hourly timer does: every project whose expiration
 * date has arrived in its owner's timezone gets its accounts deactivated by the stack's
 * provisioning workers. `npm run expire -- --at 2027-01-31T12:00:00Z` runs it as if it were that
 * moment (to try an expiry without waiting for the date).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { timeOrderedId } from '../functions/core/ids';
import { keys } from '../functions/core/keys';
import { sqsMailSender } from '../functions/mail/sqs-mail-queue';
import { sqsProvisioningQueue } from '../functions/provisioning/sqs-provisioning-queue';
import { sweepExpiredProjects } from '../functions/schedules/sweep-expired-projects';
import { endpoints, localCredentials, queueUrls } from './local/bootstrap';
import { REGION, portsFromEnv, resourceNames } from './local/settings';

const atFlag = process.argv.indexOf('--at');
const at = atFlag >= 0 ? new Date(process.argv[atFlag + 1] ?? '') : new Date();
if (Number.isNaN(at.getTime())) {
  console.error('--at needs a date and time, e.g. --at 2027-01-31T12:00:00Z');
  process.exit(2);
}
const ports = portsFromEnv(process.env);
const urls = endpoints(ports);
try {
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: REGION, endpoint: urls.dynamodb, credentials: localCredentials }), { marshallOptions: { removeUndefinedValues: true } });
  const sqsClient = new SQSClient({ region: REGION, endpoint: urls.sqs, credentials: localCredentials });
  const queues = await queueUrls(ports.sqs);
  const result = await sweepExpiredProjects({
    db,
    tableName: resourceNames.table,
    queue: sqsProvisioningQueue(sqsClient, queues.provisioning!),
    mail: sqsMailSender(sqsClient, queues.mail!),
    now: () => at,
    newId: timeOrderedId,
    integrationName: async (userId, id) => (await db.send(new GetCommand({ TableName: resourceNames.table, Key: keys.integration(userId, id) }))).Item?.name as string | undefined,
  })();
  console.log(`Expiry sweep at ${at.toISOString()} (dates up to ${result.upTo}): ${result.started.length} project(s) expired, ${result.notYetDue} not due yet in their timezone, ${result.busy} busy (tried again next run)${result.more ? '; more remain for the next run' : ''}.`);
  db.destroy();
  sqsClient.destroy();
} catch (error) {
  console.error(`The expiry sweep could not run (is npm start running, with the same LOCAL_PORT_OFFSET?): ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
