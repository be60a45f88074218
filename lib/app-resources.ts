import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IConfigurationSet, IEmailIdentity } from 'aws-cdk-lib/aws-ses';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { MonitoredFunction } from './constructs/monitoring';
import type { QueueDefinition } from '../shared/routes';

export type QueueName = QueueDefinition['name'];

/** The stateful resources functions may be granted (see FunctionAccess in shared/routes.ts). */
export interface AppResources {
  table: ITable;
  exportBucket: IBucket;
  queues: Record<QueueName, IQueue>;
  /** The dead-letter queue of each queue (consumed by its `deadLetterWorker`, if any). */
  deadLetterQueues: Record<QueueName, IQueue>;
  mail: {
    /** The verified sender address or its domain. */
    identity: IEmailIdentity;
    configurationSet: IConfigurationSet;
    fromAddress: string;
  };
  /**
   * The string the AES-256-GCM key for stored passwords is derived from (SHA-256 of it, see
   * functions/core/encryption.ts). Encrypted with the customer-managed data key. Never rotated.
   */
  encryptionKeySecret: ISecret;
  /**
   * Stripe's API secret key and webhook signing secret, JSON `{"secretKey","webhookSecret"}`,
   * put in by the operator (docs/deploy.md). Encrypted with the customer-managed data key.
   */
  stripeSecret: ISecret;
  userPool: IUserPool;
  webClient: IUserPoolClient;
  /** The user pool's trigger (functions/security/sign-in-trigger.ts), for the alarms of the stateless stack; not grantable. */
  cognitoTrigger?: MonitoredFunction;
}
