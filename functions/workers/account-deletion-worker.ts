import { deleteAccount } from '../account-deletion/delete-account';
import { deletionMessageSchema } from '../account-deletion/deletion-message';
import { dynamoErasureStore } from '../account-deletion/erasure-store';
import { cognitoIdentityAdmin } from '../account-deletion/identity-admin';
import { s3UserFiles } from '../account-deletion/user-files';
import { billingProvider } from '../billing/billing-config';
import { cognito, dynamo, s3 } from '../core/clients';
import { requireEnv } from '../core/env';
import { logger } from '../core/logger';
import { queueWorker } from '../core/queue-worker';

const run = deleteAccount({
  store: dynamoErasureStore(dynamo(), requireEnv('TABLE_NAME')),
  files: s3UserFiles(s3(), requireEnv('EXPORT_BUCKET')),
  identity: cognitoIdentityAdmin(cognito(), requireEnv('USER_POOL_ID')),
  billing: billingProvider,
  now: () => new Date(),
});

/** A failed step throws: SQS delivers the message again and the job resumes (after maxReceiveCount, the DLQ). */
export const handler = queueWorker(deletionMessageSchema, async (message) => {
  const outcome = await run(message);
  logger.info('Account deletion', { userId: message.userId, outcome });
});
