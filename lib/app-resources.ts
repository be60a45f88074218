import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IConfigurationSet, IEmailIdentity } from 'aws-cdk-lib/aws-ses';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { QueueDefinition } from '../shared/routes';

export type QueueName = QueueDefinition['name'];

/** The stateful resources functions may be granted (see FunctionAccess in shared/routes.ts). */
export interface AppResources {
  table: ITable;
  exportBucket: IBucket;
  queues: Record<QueueName, IQueue>;
  mail: {
    /** The verified sender address or its domain. */
    identity: IEmailIdentity;
    configurationSet: IConfigurationSet;
    fromAddress: string;
  };
  /** Envelope-encryption key for generated passwords and integration credentials. */
  dataKey: IKey;
  userPool: IUserPool;
  webClient: IUserPoolClient;
}
