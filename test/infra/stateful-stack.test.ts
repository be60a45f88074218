import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../functions/core/table-definition';
import { constructId } from '../../lib/construct-id';
import { queues } from '../../shared/routes';
import { buildTestApp, type SynthesizedApp } from './synth-app';

type Resources = Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;

let built: SynthesizedApp;
let stateful: Template;
let stateless: Template;

beforeAll(() => {
  built = buildTestApp({ skipBundling: true });
  built.app.synth();
  stateful = Template.fromStack(built.stateful);
  stateless = Template.fromStack(built.stateless);
});

describe('stateful stack', () => {
  it('is protected against termination', () => {
    expect(built.stateful.terminationProtection).toBe(true);
  });

  describe('table', () => {
    it('is one on-demand table with point-in-time recovery, SSE and TTL on expiresAt', () => {
      stateful.resourceCountIs('AWS::DynamoDB::Table', 1);
      stateful.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        Properties: Match.objectLike({
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [
            { AttributeName: 'PK', KeyType: 'HASH' },
            { AttributeName: 'SK', KeyType: 'RANGE' },
          ],
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
          TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
          DeletionProtectionEnabled: true,
        }),
      });
    });

    it('has the indexes of functions/core/table-definition.ts, each projecting only what its reader needs', () => {
      const table = Object.values(stateful.findResources('AWS::DynamoDB::Table') as Resources)[0]!;
      const indexes = table.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: unknown }[];
      expect(indexes.map((index) => index.IndexName)).toEqual(tableDefinition.globalSecondaryIndexes.map((index) => index.indexName));
      for (const definition of tableDefinition.globalSecondaryIndexes) {
        expect(indexes).toContainEqual({
          IndexName: definition.indexName,
          KeySchema: [
            { AttributeName: definition.partitionKey, KeyType: 'HASH' },
            { AttributeName: definition.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...definition.projection.nonKeyAttributes] },
        });
      }
      // The search indexes carry only the account's id and names; the expiry index what the sweep reads.
      expect(indexes.filter((index) => index.IndexName.startsWith('AccountsBy')).map((index) => index.Projection)).toEqual(Array(4).fill({ ProjectionType: 'INCLUDE', NonKeyAttributes: ['id', 'firstName', 'lastName'] }));
      expect(indexes.find((index) => index.IndexName === 'ProjectsByExpiry')?.KeySchema).toEqual([
        { AttributeName: 'ExpiryPK', KeyType: 'HASH' },
        { AttributeName: 'ExpirySK', KeyType: 'RANGE' },
      ]);
      expect(table.Properties.AttributeDefinitions).toEqual(
        expect.arrayContaining(['PK', 'SK', ...tableDefinition.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])].map((name) => ({ AttributeName: name, AttributeType: 'S' }))),
      );
    });
  });

  describe('buckets', () => {
    it('every bucket of both stacks blocks public access, is encrypted and accepts TLS only', () => {
      for (const template of [stateful, stateless]) {
        const buckets = template.findResources('AWS::S3::Bucket') as Resources;
        expect(Object.keys(buckets).length).toBeGreaterThan(0);
        for (const [logicalId, bucket] of Object.entries(buckets)) {
          expect(bucket.Properties.PublicAccessBlockConfiguration, logicalId).toEqual({
            BlockPublicAcls: true,
            BlockPublicPolicy: true,
            IgnorePublicAcls: true,
            RestrictPublicBuckets: true,
          });
          expect(bucket.Properties.BucketEncryption, logicalId).toBeDefined();
          template.hasResourceProperties('AWS::S3::BucketPolicy', {
            Bucket: { Ref: logicalId },
            PolicyDocument: {
              Statement: Match.arrayWith([
                Match.objectLike({
                  Effect: 'Deny',
                  Action: 's3:*',
                  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
                }),
              ]),
            },
          });
        }
      }
    });

    it('export bucket: SSE-S3, export files (exports/) expire after 7 days and profile photos do not, CSV uploads (uploads/) after 1 day, incomplete uploads aborted after 1, access logged, retained', () => {
      const exportBucket = stateful.findResources('AWS::S3::Bucket', {
        Properties: { LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Id: 'expire-exports' })]) } },
      }) as Resources;
      expect(Object.keys(exportBucket)).toHaveLength(1);
      const [bucket] = Object.values(exportBucket);
      expect(bucket!.DeletionPolicy).toBe('Retain');
      expect(bucket!.Properties).toMatchObject({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        LifecycleConfiguration: {
          Rules: [
            { Id: 'expire-exports', Status: 'Enabled', Prefix: 'exports/', ExpirationInDays: 7 },
            { Id: 'expire-pending-photos', Status: 'Enabled', Prefix: 'profile-photos/pending/', ExpirationInDays: 1 },
            { Id: 'expire-csv-uploads', Status: 'Enabled', Prefix: 'uploads/', ExpirationInDays: 1 },
            { Id: 'abort-incomplete-uploads', Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
          ],
        },
        LoggingConfiguration: { DestinationBucketName: { Ref: expect.stringMatching(/^AccessLogsBucket/) as unknown } },
      });
      // Only the bulk dialog's upload POST (XMLHttpRequest, for its progress) is let through CORS:
      // no GET, PUT or DELETE, so no page elsewhere can read or change an object.
      expect(bucket!.Properties.CorsConfiguration).toEqual({ CorsRules: [{ AllowedMethods: ['POST'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAge: 3600 }] });
    });
  });

  describe('user pool', () => {
    it('signs in with e-mail, lets users sign up and verifies their e-mail, and is retained', () => {
      stateful.hasResource('AWS::Cognito::UserPool', {
        DeletionPolicy: 'Retain',
        Properties: Match.objectLike({
          UsernameAttributes: ['email'],
          AutoVerifiedAttributes: ['email'],
          AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
          AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
          Policies: {
            PasswordPolicy: Match.objectLike({
              MinimumLength: 8,
              RequireUppercase: true,
              RequireLowercase: true,
              RequireNumbers: true,
              RequireSymbols: true,
            }),
          },
          Schema: Match.arrayWith([
            { Name: 'email', Required: true, Mutable: true },
            { Name: 'given_name', Required: true, Mutable: true },
            { Name: 'family_name', Required: true, Mutable: true },
          ]),
        }),
      });
    });

    it("sends its e-mails (codes, resets) through the app's SES identity and configuration set, after the identity exists", () => {
      const pools = stateful.findResources('AWS::Cognito::UserPool') as Record<string, { Properties: Record<string, unknown>; DependsOn?: string[] }>;
      const [pool] = Object.values(pools);
      expect(pool!.Properties.EmailConfiguration).toMatchObject({
        EmailSendingAccount: 'DEVELOPER',
        From: 'BulkOnboard <no-reply@bulkonboard.test>',
        SourceArn: 'arn:aws:ses:eu-west-1:123456789012:identity/no-reply@bulkonboard.test',
        ConfigurationSet: { Ref: expect.stringMatching(/^MailConfigurationSet/) as unknown },
      });
      expect(pool!.DependsOn?.some((id) => id.startsWith('MailIdentity'))).toBe(true);
    });

    it('with -c cognitoEmail=cognito (an account\'s first deploy, identity not verified yet): Cognito\'s own sender', () => {
      const { stateful: first } = buildTestApp({ skipBundling: true, context: { cognitoEmail: 'cognito' } });
      const pools = Template.fromStack(first).findResources('AWS::Cognito::UserPool') as Record<string, { Properties: Record<string, unknown> }>;
      expect(Object.values(pools)[0]!.Properties.EmailConfiguration).toEqual({ EmailSendingAccount: 'COGNITO_DEFAULT' });
    });

    it('web client: no secret, USER_PASSWORD_AUTH only (the API signs in, counting failed attempts; no SRP), no user existence errors, 1 h / 30 d tokens', () => {
      stateful.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
      stateful.hasResourceProperties('AWS::Cognito::UserPoolClient', {
        GenerateSecret: false,
        ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
        PreventUserExistenceErrors: 'ENABLED',
        AccessTokenValidity: 60,
        RefreshTokenValidity: 43200,
        TokenValidityUnits: Match.objectLike({ AccessToken: 'minutes', RefreshToken: 'minutes' }),
        AllowedOAuthFlows: Match.absent(),
      });
    });
  });

  describe('sign-in trigger', () => {
    it('the pool runs functions/security/sign-in-trigger.ts after authentication and after a password reset; the function does not name the pool (no circular dependency) and may touch only what cognitoTriggerAccess lists', () => {
      const functions = stateful.findResources('AWS::Lambda::Function') as Record<string, { Properties: { FunctionName?: string; Environment?: { Variables?: Record<string, unknown> } } }>;
      const [id, trigger] = Object.entries(functions).find(([, f]) => f.Properties.FunctionName === 'bulkonboard-cognito-trigger')!;
      expect(Object.keys(trigger.Properties.Environment?.Variables ?? {})).toEqual(expect.arrayContaining(['TABLE_NAME', 'MAIL_QUEUE_URL']));
      expect(trigger.Properties.Environment?.Variables).not.toHaveProperty('USER_POOL_ID');
      stateful.hasResourceProperties('AWS::Cognito::UserPool', {
        LambdaConfig: { PostAuthentication: { 'Fn::GetAtt': [id, 'Arn'] }, PostConfirmation: { 'Fn::GetAtt': [id, 'Arn'] } },
      });
    });
  });

  describe('queues', () => {
    const allQueues = (): Resources => stateful.findResources('AWS::SQS::Queue') as Resources;

    it.each(queues.map((queue) => [queue.name, queue] as const))(
      '%s: visibility timeout and dead-letter queue from shared/routes.ts',
      (_name, definition) => {
        const id = constructId(definition.name);
        const [queueId, queue] = Object.entries(allQueues()).find(([logicalId]) => logicalId.startsWith(`${id}Queue`))!;
        const [dlqId, dlq] = Object.entries(allQueues()).find(([logicalId]) => logicalId.startsWith(`${id}DeadLetterQueue`))!;
        expect(queueId).toBeDefined();
        expect(queue.Properties).toMatchObject({
          VisibilityTimeout: definition.visibilityTimeoutSeconds,
          SqsManagedSseEnabled: true,
          RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: definition.maxReceiveCount },
        });
        // The queue's visibility timeout on its dead-letter queue too: a dead-letter worker's timeout stays below it.
        expect(dlq.Properties).toMatchObject({
          MessageRetentionPeriod: 14 * 24 * 3600,
          VisibilityTimeout: definition.visibilityTimeoutSeconds,
          SqsManagedSseEnabled: true,
        });
        expect(dlq.Properties.RedrivePolicy).toBeUndefined();
      },
    );

    it('every queue (dead-letter queues too) denies requests without TLS', () => {
      const queueIds = Object.keys(allQueues());
      expect(queueIds).toHaveLength(queues.length * 2);
      for (const logicalId of queueIds) {
        stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: logicalId }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
    });
  });

  it('SES: the sender identity uses the configuration set', () => {
    stateful.resourceCountIs('AWS::SES::ConfigurationSet', 1);
    stateful.hasResourceProperties('AWS::SES::EmailIdentity', {
      EmailIdentity: 'no-reply@bulkonboard.test',
      ConfigurationSetAttributes: { ConfigurationSetName: { Ref: Match.stringLikeRegexp('^MailConfigurationSet') } },
    });
  });

  it('SES: sesIdentity=domain verifies the whole domain, signs with Easy DKIM (2048 bits) and outputs the three DKIM CNAME records', () => {
    const { stateful: stack } = buildTestApp({ skipBundling: true, context: { sesIdentity: 'domain' } });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::SES::EmailIdentity', {
      EmailIdentity: 'bulkonboard.test',
      DkimAttributes: { SigningEnabled: true },
      DkimSigningAttributes: { NextSigningKeyLength: 'RSA_2048_BIT' },
    });
    const outputs = Object.keys(template.findOutputs('*')).filter((name) => name.startsWith('DkimRecord'));
    expect(outputs.sort()).toEqual(['DkimRecord1', 'DkimRecord2', 'DkimRecord3']);
    // An address identity has no DKIM records of its own.
    expect(Object.keys(stateful.findOutputs('*')).filter((name) => name.startsWith('DkimRecord'))).toEqual([]);
  });

  it('data key: rotated, aliased, retained (the other key is the SES events topic\'s)', () => {
    stateful.resourceCountIs('AWS::KMS::Key', 2);
    const keys = Object.entries(stateful.findResources('AWS::KMS::Key') as Resources);
    expect(keys.map(([logicalId]) => logicalId.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(['DataKey', 'MailEventsKey']);
    for (const [, key] of keys) expect(key).toMatchObject({ DeletionPolicy: 'Retain', Properties: { EnableKeyRotation: true } });
    stateful.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/bulkonboard/app-data', TargetKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DataKey'), 'Arn'] } });
  });

  describe('SES event publishing (configuration set -> SNS -> the mail-events queue)', () => {
    const only = (type: string) => {
      const found = Object.entries(stateful.findResources(type) as Resources);
      expect(found, type).toHaveLength(1);
      return found[0]!;
    };

    it("the configuration set publishes Send, Delivery, Bounce and Complaint to the events topic", () => {
      const [topicId] = only('AWS::SNS::Topic');
      const [, destination] = only('AWS::SES::ConfigurationSetEventDestination');
      expect(destination.Properties).toMatchObject({
        ConfigurationSetName: { Ref: expect.stringMatching(/^MailConfigurationSet/) as unknown },
        EventDestination: { Enabled: true, SnsDestination: { TopicARN: { Ref: topicId } } },
      });
      expect([...(destination.Properties.EventDestination as { MatchingEventTypes: string[] }).MatchingEventTypes].sort()).toEqual(['bounce', 'complaint', 'delivery', 'send']);
      // Only SES of this account, for this configuration set, may publish (CDK's topic policy).
      stateful.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'sns:Publish', Principal: { Service: 'ses.amazonaws.com' }, Condition: { StringEquals: Match.objectLike({ 'AWS:SourceAccount': '123456789012' }) } })]) },
      });
    });

    it('the topic is encrypted with a key SES may use and refuses requests without TLS', () => {
      const [, topic] = only('AWS::SNS::Topic');
      expect(topic.Properties).toMatchObject({ TopicName: 'bulkonboard-mail-events', KmsMasterKeyId: { 'Fn::GetAtt': [expect.stringMatching(/^MailEventsKey/) as unknown, 'Arn'] } });
      stateful.hasResourceProperties('AWS::KMS::Key', {
        KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Action: ['kms:Decrypt', 'kms:GenerateDataKey*'], Principal: { Service: 'ses.amazonaws.com' } })]) },
      });
      stateful.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
      });
    });

    it('the mail-events queue is subscribed (SNS envelope, raw delivery off) and lets only that topic send to it', () => {
      const [topicId] = only('AWS::SNS::Topic');
      const [, subscription] = only('AWS::SNS::Subscription');
      expect(subscription.Properties).toMatchObject({ Protocol: 'sqs', TopicArn: { Ref: topicId }, Endpoint: { 'Fn::GetAtt': [expect.stringMatching(/^MailEventsQueue/) as unknown, 'Arn'] } });
      expect(subscription.Properties.RawMessageDelivery).toBeFalsy();
      stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: Match.stringLikeRegexp('^MailEventsQueue') }],
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'sqs:SendMessage', Principal: { Service: 'sns.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': { Ref: topicId } } } })]) },
      });
    });
  });

  const secretsStartingWith = (prefix: string) =>
    Object.entries(stateful.findResources('AWS::SecretsManager::Secret') as Resources).filter(([logicalId]) => logicalId.startsWith(prefix));

  it('has exactly two secrets: the password-encryption secret and the Stripe secret', () => {
    stateful.resourceCountIs('AWS::SecretsManager::Secret', 2);
    expect(secretsStartingWith('EncryptionKeySecret')).toHaveLength(1);
    expect(secretsStartingWith('StripeSecret')).toHaveLength(1);
  });

  describe('password-encryption secret', () => {
    const secrets = () => secretsStartingWith('EncryptionKeySecret');

    it('is one generated 64-character secret without punctuation, encrypted with the data key', () => {
      expect(secrets()).toHaveLength(1);
      const [, secret] = secrets()[0]!;
      const keyId = Object.keys(stateful.findResources('AWS::KMS::Key')).find((logicalId) => logicalId.startsWith('DataKey'))!;
      expect(secret.Properties).toMatchObject({
        GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
        KmsKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
      });
      expect(secret.Properties.SecretString).toBeUndefined();
    });

    it('is retained on deletion and replacement: losing it loses every stored password', () => {
      const [, secret] = secrets()[0]!;
      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.UpdateReplacePolicy).toBe('Retain');
    });

    it('is never rotated (stored ciphertexts would become unreadable)', () => {
      for (const template of [stateful, stateless]) template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 0);
    });

    it('has no resource policy: access is only what the function roles are granted', () => {
      stateful.resourceCountIs('AWS::SecretsManager::ResourcePolicy', 0);
    });

    it('its ARN is an output (for backups and operators)', () => {
      stateful.hasOutput('EncryptionKeySecretArn', { Value: { Ref: secrets()[0]![0] } });
    });
  });

  describe('Stripe secret', () => {
    const stripeSecret = () => {
      const found = secretsStartingWith('StripeSecret');
      expect(found).toHaveLength(1);
      return found[0]!;
    };

    it('is named <prefix>/stripe, encrypted with the data key, and created with empty placeholder keys only', () => {
      const [, secret] = stripeSecret();
      const keyId = Object.keys(stateful.findResources('AWS::KMS::Key')).find((logicalId) => logicalId.startsWith('DataKey'))!;
      expect(secret.Properties).toMatchObject({
        Name: 'bulkonboard/stripe',
        KmsKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
        GenerateSecretString: { SecretStringTemplate: JSON.stringify({ secretKey: '', webhookSecret: '' }) },
      });
      // The real values are put in by the operator (docs/deploy.md), never by the template.
      expect(secret.Properties.SecretString).toBeUndefined();
      const generateStringKey = (secret.Properties.GenerateSecretString as { GenerateStringKey: string }).GenerateStringKey;
      expect(['secretKey', 'webhookSecret']).not.toContain(generateStringKey);
    });

    it('no Stripe key or signing secret appears in either template', () => {
      for (const template of [stateful, stateless]) {
        expect(JSON.stringify(template.toJSON())).not.toMatch(/\b[sr]k_(live|test)_|whsec_[A-Za-z0-9]/);
      }
    });

    it('is retained on deletion and replacement', () => {
      const [, secret] = stripeSecret();
      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.UpdateReplacePolicy).toBe('Retain');
    });

    it('its ARN is an output (the operator writes the keys into it)', () => {
      stateful.hasOutput('StripeSecretArn', { Value: { Ref: stripeSecret()[0] } });
    });
  });

  it('outputs the user pool ids', () => {
    stateful.hasOutput('UserPoolId', {});
    stateful.hasOutput('UserPoolClientId', {});
  });
});
