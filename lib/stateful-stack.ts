import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  UserPool,
  UserPoolClientIdentityProvider,
  UserPoolEmail,
  UserPoolOperation,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ConfigurationSet, ConfigurationSetEventDestination, DkimIdentity, EasyDkimSigningKeyLength, EmailIdentity, EmailSendingEvent, EventDestination, Identity, type CfnConfigurationSet } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '../functions/core/table-definition';
import { cognitoTriggerAccess, queues, type QueueDefinition } from '../shared/routes';
import { AppFunction } from './constructs/app-function';
import { constructId } from './construct-id';
import type { AppResources, QueueName } from './app-resources';
import { exportBucketName, type AppSettings } from './settings';

export interface StatefulStackProps extends StackProps {
  settings: AppSettings;
}

/**
 * Everything that holds data: the table, the buckets, the user pool, the queues, the sender
 * identity, the data key, the password-encryption secret and the Stripe secret. Retained on
 * deletion and protected against termination, so the stateless stack can be destroyed and
 * redeployed freely.
 */
export class StatefulStack extends Stack {
  readonly resources: AppResources;
  /** Access logs of the export bucket and of CloudFront. */
  readonly accessLogsBucket: Bucket;
  /** Customer-managed KMS key; encrypts the password-encryption secret and the Stripe secret. */
  readonly dataKey: Key;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, { terminationProtection: props.settings.terminationProtection, ...props });
    const { settings } = props;

    this.accessLogsBucket = this.createAccessLogsBucket();
    const table = this.createTable();
    const exportBucket = this.createExportBucket(this.accessLogsBucket, props.settings.prefix);
    const mail = this.createMailSender(settings);
    const { userPool, webClient } = this.createUserPool(settings, mail);
    const { queues: queueMap, deadLetterQueues } = this.createQueues();
    this.publishMailEvents(settings, mail, queueMap['mail-events']);
    this.dataKey = this.createDataKey(settings);
    const encryptionKeySecret = this.createEncryptionKeySecret(settings, this.dataKey);
    const stripeSecret = this.createStripeSecret(settings, this.dataKey);

    this.resources = {
      table,
      exportBucket,
      userPool,
      webClient,
      queues: queueMap,
      deadLetterQueues,
      mail,
      encryptionKeySecret,
      stripeSecret,
    };

    const trigger = this.createSignInTrigger(settings, userPool);
    this.resources.cognitoTrigger = { name: trigger.name, function: trigger.function, logGroup: trigger.logGroup, timeout: trigger.timeout };

    new CfnOutput(this, 'UserPoolId', { value: userPool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: webClient.userPoolClientId });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'ExportBucketName', { value: exportBucket.bucketName });
    new CfnOutput(this, 'EncryptionKeySecretArn', { value: encryptionKeySecret.secretArn });
    new CfnOutput(this, 'StripeSecretArn', { value: stripeSecret.secretArn });
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
        // Only what the index's reader needs (functions/core/table-definition.ts).
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: [...index.projection.nonKeyAttributes],
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
  private createExportBucket(accessLogs: Bucket, prefix: string): Bucket {
    return new Bucket(this, 'ExportBucket', {
      bucketName: exportBucketName(prefix, this.account, this.region),
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: false,
      lifecycleRules: [
        // Export files expire; profile photos (profile-photos/) stay while their user does.
        { id: 'expire-exports', prefix: 'exports/', expiration: Duration.days(7) },
        // Photo uploads nobody confirmed (PUT /api/user/photo copies the checked ones out).
        { id: 'expire-pending-photos', prefix: 'profile-photos/pending/', expiration: Duration.days(1) },
        // Uploaded CSV files are deleted when their reading ends; this removes any left behind
        // (an upload never started, a checked file never created, a worker that died).
        { id: 'expire-csv-uploads', prefix: 'uploads/', expiration: Duration.days(1) },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // The bulk dialog uploads large CSV files with XMLHttpRequest to show the upload's progress,
      // which a cross-origin POST may only do after a CORS preflight. POST only: what may be
      // written is decided by the presigned policy (one key, at most 50 MB), not by the origin.
      cors: [{ allowedMethods: [HttpMethods.POST], allowedOrigins: ['*'], allowedHeaders: ['*'], maxAge: 3600 }],
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'export-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private createUserPool(settings: AppSettings, mail: AppResources['mail']): { userPool: UserPool; webClient: UserPoolClient } {
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
      // Sign-up codes and password resets through the app's SES identity: Cognito's own sender
      // stops at about 50 a day. 'cognito' only for an account's first deploy (settings.ts).
      email:
        settings.cognitoEmail === 'ses'
          ? UserPoolEmail.withSES({
              fromEmail: settings.sesFromAddress,
              fromName: 'BulkOnboard',
              configurationSetName: mail.configurationSet.configurationSetName,
              // The identity is this stack's own. Named, so that a stack without a region (an
              // offline synth) still synthesizes: the region stays a token (AWS::Region).
              sesRegion: this.region,
              ...(settings.sesIdentity === 'domain' ? { sesVerifiedDomain: settings.sesFromAddress.split('@')[1]! } : {}),
            })
          : UserPoolEmail.withCognito(),
      featurePlan: FeaturePlan.ESSENTIALS,
      // TOTP is allowed, never forced: a user turns it on in the Security Center (docs/security.md).
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Cognito checks the sender identity when the pool is created or updated.
    if (settings.cognitoEmail === 'ses') userPool.node.addDependency(mail.identity);
    Validations.of(userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is optional by product design (self sign-up, no one is forced): each user chooses two-factor sign-in with an authenticator app (TOTP) in the Security Center, and Cognito then asks for a code at every sign-in. SMS is not offered.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'The Essentials feature plan covers the product (SRP sign-in, optional TOTP); the Plus plan (threat protection) is a per-user cost decision left to the operator.',
      },
    );

    // USER_PASSWORD_AUTH only: the app signs in through its own API (POST /api/auth/sign-in,
    // docs/security.md), which counts failed attempts and locks an address before Cognito is asked;
    // the API needs the password to do that, so SRP (which never shows it to the server) is off.
    // Anyone calling Cognito directly with this public client still meets Cognito's own lockout and
    // the post-authentication trigger, which refuses a locked account.
    const webClient = userPool.addClient('WebClient', {
      userPoolClientName: `${settings.prefix}-web`,
      generateSecret: false,
      authFlows: { userPassword: true },
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

  /**
   * The pool's post-authentication and post-confirmation trigger (functions/security/sign-in-trigger.ts):
   * records each sign-in and password reset, and refuses a sign-in while the account is locked.
   * It lives here with the pool (a function of the stateless stack would make the stacks depend
   * on each other), without the pool's ids in its environment (the pool names it).
   */
  private createSignInTrigger(settings: AppSettings, userPool: UserPool): AppFunction {
    const trigger = new AppFunction(this, 'CognitoTriggerFunction', {
      entry: 'functions/security/sign-in-trigger.ts',
      name: 'cognito-trigger',
      description: 'Cognito post-authentication and post-confirmation trigger: sign-in and password-reset security events, refuses locked accounts',
      settings,
      resources: this.resources,
      userPoolEnvironment: false,
    });
    trigger.grantAccess(cognitoTriggerAccess);
    userPool.addTrigger(UserPoolOperation.POST_AUTHENTICATION, trigger.function);
    userPool.addTrigger(UserPoolOperation.POST_CONFIRMATION, trigger.function);
    return trigger;
  }

  /** One queue per entry of shared/routes.ts `queues`, each with its dead-letter queue. */
  private createQueues(): { queues: Record<QueueName, Queue>; deadLetterQueues: Record<QueueName, Queue> } {
    const created = { queues: {} as Record<QueueName, Queue>, deadLetterQueues: {} as Record<QueueName, Queue> };
    for (const definition of queues) {
      const { queue, deadLetterQueue } = this.createQueue(definition);
      created.queues[definition.name] = queue;
      created.deadLetterQueues[definition.name] = deadLetterQueue;
    }
    return created;
  }

  private createQueue(definition: QueueDefinition): { queue: Queue; deadLetterQueue: Queue } {
    const id = constructId(definition.name);
    const visibilityTimeout = Duration.seconds(definition.visibilityTimeoutSeconds);
    const deadLetterQueue = new Queue(this, `${id}DeadLetterQueue`, {
      retentionPeriod: Duration.days(14),
      // The queue's own visibility timeout: a dead-letter worker gets the same time as the worker.
      visibilityTimeout,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new Queue(this, `${id}Queue`, {
      visibilityTimeout,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    return { queue, deadLetterQueue };
  }

  /** The SES identity the sender address is verified through, and the configuration set every send uses. */
  private createMailSender(settings: AppSettings): AppResources['mail'] {
    const configurationSet = new ConfigurationSet(this, 'MailConfigurationSet', { reputationMetrics: true });
    // SES's own suppression list is one per AWS account, shared by every tenant: one user's bounced
    // address would silently drop every other user's mail to it, and 'Remove' could not undo it.
    // Each user's list (docs/email-events.md) takes its place, so the account-level one is off here.
    (configurationSet.node.defaultChild as CfnConfigurationSet).addPropertyOverride('SuppressionOptions.SuppressedReasons', []);
    const domain = settings.sesFromAddress.split('@')[1]!;
    const isDomain = settings.sesIdentity === 'domain';
    const identity = new EmailIdentity(this, 'MailIdentity', {
      identity: isDomain ? Identity.domain(domain) : Identity.email(settings.sesFromAddress),
      configurationSet,
      // A domain signs every mail with Easy DKIM (2048-bit keys SES rotates); an address cannot.
      ...(isDomain ? { dkimSigning: true, dkimIdentity: DkimIdentity.easyDkim(EasyDkimSigningKeyLength.RSA_2048_BIT) } : {}),
    });
    if (isDomain) {
      // The three CNAME records to publish in the domain's DNS (docs/deploy.md, Domain identity and DKIM).
      identity.dkimRecords.forEach((record, i) => new CfnOutput(this, `DkimRecord${i + 1}`, { value: `${record.name} CNAME ${record.value}`, description: `DKIM record ${i + 1} of ${domain}` }));
    }
    return { identity, configurationSet, fromAddress: settings.sesFromAddress };
  }

  /**
   * SES event publishing: the configuration set every send names publishes each message's Send,
   * Delivery, Bounce and Complaint events to an SNS topic, which delivers them (in its envelope,
   * raw message delivery off) to the mail-events queue; its worker updates the accounts'
   * e-mail statuses and the suppression list (functions/mail-events, docs/email-events.md).
   * The topic is encrypted with a key of its own that SES may use (the AWS-managed SNS key
   * admits no other service) and refuses requests without TLS.
   */
  private publishMailEvents(settings: AppSettings, mail: AppResources['mail'], queue: IQueue): Topic {
    const key = new Key(this, 'MailEventsKey', {
      description: `${settings.prefix}: encrypts the SES events topic`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        principals: [new ServicePrincipal('ses.amazonaws.com')],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    const topic = new Topic(this, 'MailEventsTopic', {
      topicName: `${settings.prefix}-mail-events`,
      displayName: `${settings.prefix} SES events`,
      masterKey: key,
      enforceSSL: true,
    });
    new ConfigurationSetEventDestination(this, 'MailEventsDestination', {
      configurationSet: mail.configurationSet,
      destination: EventDestination.snsTopic(topic),
      events: [EmailSendingEvent.SEND, EmailSendingEvent.DELIVERY, EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
    });
    topic.addSubscription(new SqsSubscription(queue, { rawMessageDelivery: false }));
    return topic;
  }

  /**
   * Customer-managed key that encrypts the app's secrets at rest. KMS rotation keeps the old key
   * material, so secret versions encrypted before a rotation stay readable.
   */
  private createDataKey(settings: AppSettings): Key {
    return new Key(this, 'DataKey', {
      alias: `alias/${settings.prefix}/app-data`,
      description: `${settings.prefix}: encrypts the password-encryption and Stripe secrets (Secrets Manager)`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * The key ring the functions derive the AES-256-GCM keys for stored secrets from
   * (functions/core/encryption.ts: SHA-256 of each string). Generated once by Secrets Manager as a
   * plain string (key k1); rotated by hand into a JSON ring that keeps every old key
   * (docs/deploy.md), never by Secrets Manager, and retained.
   */
  private createEncryptionKeySecret(settings: AppSettings, dataKey: Key): Secret {
    const secret = new Secret(this, 'EncryptionKeySecret', {
      description: `${settings.prefix}: key material for stored passwords (AES-256-GCM key = SHA-256 of this value). Rotate only by adding a key to the ring (docs/deploy.md); replacing it makes every stored password unreadable.`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      encryptionKey: dataKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'No automatic rotation on purpose: Secrets Manager would replace the value, while stored ciphertexts need every old key kept. Rotation is by hand, adding a new current key to the ring (tokens name their key id; docs/deploy.md). It is readable only by the functions whose FunctionAccess has encryptionKey.',
    });
    return secret;
  }

  /**
   * Stripe's API secret key and webhook signing secret for the functions with `stripeSecret`
   * access. Only a placeholder is created here (empty keys, so billing answers "not configured");
   * the operator puts the real values in with put-secret-value (docs/deploy.md), so they are never
   * in the repository or the template. Retained, like every secret.
   */
  private createStripeSecret(settings: AppSettings, dataKey: Key): Secret {
    const secret = new Secret(this, 'StripeSecret', {
      secretName: `${settings.prefix}/stripe`,
      description: `${settings.prefix}: Stripe API secret key and webhook signing secret, JSON {"secretKey":"sk_...","webhookSecret":"whsec_..."}. Set by the operator (docs/deploy.md); empty until then.`,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ secretKey: '', webhookSecret: '' }),
        // CloudFormation generates a value only together with a key to put it under: a throwaway
        // one, dropped when the operator writes the real JSON.
        generateStringKey: 'placeholder',
        passwordLength: 16,
        excludePunctuation: true,
      },
      encryptionKey: dataKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "Not rotated by Secrets Manager: Stripe's keys and webhook signing secrets are rolled in Stripe's dashboard, after which the operator writes the new values into this secret (docs/deploy.md). It is readable only by the functions whose FunctionAccess has stripeSecret.",
    });
    return secret;
  }
}
