/**
 * `npm run digest`: sends the weekly digest now, to the stack that `npm start` runs (same
 * LOCAL_PORT_OFFSET / port variables): every opted-in Pro user's digest is queued on its mail
 * queue, and its mail worker sends them to the mail viewer. The digest covers the seven days up
 * to the end of today (UTC); a user gets one digest per such period, however often this runs.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { sqsMailSender } from '../functions/mail/sqs-mail-queue';
import { dayOf, queueWeeklyDigest } from '../functions/schedules/queue-weekly-digest';
import { endpoints, localCredentials, queueUrls } from './local/bootstrap';
import { REGION, portsFromEnv, resourceNames } from './local/settings';

const ports = portsFromEnv(process.env);
const urls = endpoints(ports);
try {
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: REGION, endpoint: urls.dynamodb, credentials: localCredentials }), { marshallOptions: { removeUndefinedValues: true } });
  const sqsClient = new SQSClient({ region: REGION, endpoint: urls.sqs, credentials: localCredentials });
  const mailQueue = (await queueUrls(ports.sqs)).mail!;
  const tomorrow = new Date(Date.now() + 24 * 60 * 60 * 1000);
  const result = await queueWeeklyDigest({ db, tableName: resourceNames.table, mail: sqsMailSender(sqsClient, mailQueue), now: () => new Date() })({ week: dayOf(tomorrow) });
  console.log(`Weekly digest up to ${result.week}: queued for ${result.queued.length} user(s), ${result.skipped} skipped (not Pro). The mail viewer shows them: ${urls.ses}/`);
  db.destroy();
  sqsClient.destroy();
} catch (error) {
  console.error(`The digest could not be queued (is npm start running, with the same LOCAL_PORT_OFFSET?): ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
