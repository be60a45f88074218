import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  UserPool,
  UserPoolClientIdentityProvider,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { ConfigurationSet, EmailIdentity, Identity, SuppressionReasons } from 'aws-cdk-lib/aws-ses';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '../functions/core/table-definition';
import { queues, type QueueDefinition } from '../shared/routes';
import { constructId } from './construct-id';
import type { AppResources, QueueName } from './app-resources';
import type { AppSettings } from './settings';

export interface StatefulStackProps extends StackProps {
  settings: AppSettings;
}

/**
 * Everything that holds data: the table, the buckets, the user pool, the queues, the sender
 * identity and the data key. Retained on deletion and protected against termination, so the
 * stateless stack can be destroyed and redeployed freely.
 */
export class StatefulStack extends Stack {
  readonly resources: AppResources;
  /** Access logs of the export bucket and of CloudFront. */
  readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, { terminationProtection: props.settings.terminationProtection, ...props });
    const { settings } = props;

    this.accessLogsBucket = this.createAccessLogsBucket();
    const table = this.createTable();
    const exportBucket = this.createExportBucket(this.accessLogsBucket);
    const { userPool, webClient } = this.createUserPool(settings);
    const queueMap = this.createQueues();
    const mail = this.createMailSender(settings);
    const dataKey = this.createDataKey(settings);

    this.resources = { table, exportBucket, userPool, webClient, queues: queueMap, mail, dataKey };

    new CfnOutput(this, 'UserPoolId', { value: userPool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: webClient.userPoolClientId });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'ExportBucketName', { value: exportBucket.bucketName });
  }

  /** The one table, shaped by functions/core/table-definition.ts like the local stack's (docs/data-model.md). */
  private createTable(): Table {
    const table = new Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }

  private createAccessLogsBucket(): Bucket {
    const bucket = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // S3 server access logging only delivers to SSE-S3 buckets.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      // CloudFront standard logging writes through ACLs.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ id: 'expire-logs', expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log target bucket itself; logging its own access would log the log deliveries.',
    });
    return bucket;
  }

  /** Export files, handed out only through short-lived presigned URLs. */
  private createExportBucket(accessLogs: Bucket): Bucket {
    return new Bucket(this, 'ExportBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: false,
      lifecycleRules: [
        { id: 'expire-exports', expiration: Duration.days(7), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'export-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private createUserPool(settings: AppSettings): { userPool: UserPool; webClient: UserPoolClient } {
    const userPool = new UserPool(this, 'UserPool', {
      userPoolName: `${settings.prefix}-users`,
      signInAliases: { email: true },
      selfSignUpEnabled: true,
      autoVerify: { email: true },
      standardAttributes: {
        email: { required: true, mutable: true },
        givenName: { required: true, mutable: true },
        familyName: { required: true, mutable: true },
      },
      passwordPolicy: {
        minLength: 8,
        requireUppercase: true,
        requireLowercase: true,
        requireDigits: true,
        requireSymbols: true,
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      // Users opt in to TOTP (the Security Center's two-factor setting); nobody is forced.
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is optional (TOTP) by product design: users sign up themselves and turn two-factor on in the Security Center.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'The Essentials feature plan covers the product (SRP sign-in, optional TOTP); the Plus plan (threat protection) is a per-user cost decision left to the operator.',
      },
    );

    // SRP against AWS; USER_PASSWORD_AUTH stays off here (only the local emulator needs it, see shared/app-config.ts).
    const webClient = userPool.addClient('WebClient', {
      userPoolClientName: `${settings.prefix}-web`,
      generateSecret: false,
      authFlows: { userSrp: true, userPassword: false },
      preventUserExistenceErrors: true,
      // Amplify signs in directly (no hosted UI), so no OAuth flows and no callback URLs.
      disableOAuth: true,
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      enableTokenRevocation: true,
    });
    return { userPool, webClient };
  }

  /** One queue per entry of shared/routes.ts `queues`, each with its dead-letter queue. */
  private createQueues(): Record<QueueName, Queue> {
    const created = {} as Record<QueueName, Queue>;
    for (const definition of queues) created[definition.name] = this.createQueue(definition);
    return created;
  }

  private createQueue(definition: QueueDefinition): Queue {
    const id = constructId(definition.name);
    const deadLetterQueue = new Queue(this, `${id}DeadLetterQueue`, {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    return new Queue(this, `${id}Queue`, {
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
  }

  /** The SES identity the sender address is verified through, and the configuration set every send uses. */
  private createMailSender(settings: AppSettings): AppResources['mail'] {
    const configurationSet = new ConfigurationSet(this, 'MailConfigurationSet', {
      reputationMetrics: true,
      suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
    });
    const domain = settings.sesFromAddress.split('@')[1]!;
    const identity = new EmailIdentity(this, 'MailIdentity', {
      identity: settings.sesIdentity === 'domain' ? Identity.domain(domain) : Identity.email(settings.sesFromAddress),
      configurationSet,
    });
    return { identity, configurationSet, fromAddress: settings.sesFromAddress };
  }

  /** Key for application-level encryption of generated passwords and integration credentials (envelope encryption). */
  private createDataKey(settings: AppSettings): Key {
    return new Key(this, 'DataKey', {
      alias: `alias/${settings.prefix}/app-data`,
      description: `${settings.prefix}: data keys for generated passwords and integration credentials`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
