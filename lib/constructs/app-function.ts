import path from 'node:path';
import { AssetHashType, DockerImage, Duration, Stack, type Size } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { tableDefinition } from '../../functions/core/table-definition';
import { queueUrlEnv, type FunctionAccess } from '../../shared/routes';
import type { AppResources } from '../app-resources';
import { writeLambdaBundle } from '../lambda-bundles';
import { PackageLayer } from '../package-layer';
import { acknowledgeStarResourceFor, acknowledgeWildcards } from '../nag';
import { exportBucketName, projectRoot, type AppSettings } from '../settings';

/**
 * One part of an ARN in a cdk-nag finding: a literal (no colon), or in a stack without a fixed
 * account or region (an offline synth) the pseudo parameter cdk-nag renders as `<AWS::AccountId>`,
 * which has colons of its own.
 */
const arnPart = String.raw`(?:[^:<>]+|<AWS::[A-Za-z]+>)`;

export interface AppFunctionProps {
  /** Handler file relative to the project root, exporting `handler`. */
  entry: string;
  /** Short name, unique in the app: 'auth', 'mail-worker'. Becomes `<prefix>-<name>`. */
  name: string;
  description: string;
  settings: AppSettings;
  resources: AppResources;
  /** @default 10 seconds */
  timeout?: Duration;
  /** @default 512 MB */
  memorySize?: number;
  /** Lambda's /tmp. @default 512 MiB (Lambda's default, free) */
  ephemeralStorageSize?: Size;
  /** Packages loaded from a layer instead of the bundle (see lib/package-layer.ts). */
  layerPackages?: readonly string[];
  /**
   * false: no USER_POOL_ID / USER_POOL_CLIENT_ID. The user pool's own trigger must not name the
   * pool: the pool names the function, and CloudFormation refuses the circle.
   * @default true
   */
  userPoolEnvironment?: boolean;
}

/**
 * The one way to make a Lambda in this app: Node 24 on arm64, ESM bundle with source maps,
 * X-Ray tracing, its own log group kept for a month, and the user pool ids every function
 * needs. What else it may touch is granted by `grantAccess`, from shared/routes.ts.
 */
export class AppFunction extends Construct {
  readonly function: LambdaFunction;
  readonly logGroup: LogGroup;
  readonly name: string;
  readonly timeout: Duration;
  private readonly resources: AppResources;
  private readonly settings: AppSettings;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.resources = props.resources;
    this.settings = props.settings;
    this.name = props.name;
    this.timeout = props.timeout ?? Duration.seconds(10);

    this.logGroup = new LogGroup(this, 'LogGroup', { retention: RetentionDays.ONE_MONTH });
    // Its own role instead of AWSLambdaBasicExecutionRole: write to this log group, nothing else.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(role);

    const external = props.layerPackages ?? [];
    this.function = new LambdaFunction(this, 'Function', {
      functionName: `${props.settings.prefix}-${props.name}`,
      description: props.description,
      // index.mjs and its source map, from the app's shared esbuild builds (lib/lambda-bundles.ts).
      // The hash is the output's, as NodejsFunction's; skipped bundling ('aws:cdk:bundling-stacks')
      // builds nothing. `command` only tells the functions' bundling options apart (the CDK caches
      // staged assets by source path and options); no container ever runs.
      code: Code.fromAsset(path.join(projectRoot, 'functions'), {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          image: DockerImage.fromRegistry('esbuild-in-process'),
          command: ['esbuild', props.entry, ...external.map((name) => `--external:${name}`)],
          local: {
            tryBundle(outputDir) {
              writeLambdaBundle(props.entry, external, outputDir);
              return true;
            },
          },
        },
      }),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      ephemeralStorageSize: props.ephemeralStorageSize,
      timeout: this.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role,
      layers: props.layerPackages?.length
        ? [new PackageLayer(this, 'Packages', { packages: props.layerPackages, description: `${props.layerPackages.join(', ')} for ${props.name}` }).layer]
        : undefined,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: props.settings.prefix,
        LOG_LEVEL: props.settings.logLevel,
        ...(props.userPoolEnvironment === false
          ? {}
          : { USER_POOL_ID: props.resources.userPool.userPoolId, USER_POOL_CLIENT_ID: props.resources.webClient.userPoolClientId }),
      },
    });

    acknowledgeStarResourceFor(
      this,
      /^xray:(PutTraceSegments|PutTelemetryRecords)$/,
      'Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.',
    );
  }

  /** Grants exactly what `access` lists and sets the environment variables the handler reads. */
  grantAccess(access: FunctionAccess): void {
    const fn = this.function;
    const { table, encryptionKeySecret, stripeSecret, queues, exportBucket, mail, userPool } = this.resources;

    if (access.table) {
      // Exactly the listed actions, on the table; Query also on each index, named (never index/*).
      const actions = access.table.map((action) => `dynamodb:${action}`);
      const indexArns = access.table.includes('Query')
        ? tableDefinition.globalSecondaryIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`)
        : [];
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [table.tableArn, ...indexArns] }));
      fn.addEnvironment('TABLE_NAME', table.tableName);
    }

    if (access.encryptionKey) this.grantSecretRead(encryptionKeySecret, 'ENCRYPTION_KEY_SECRET_ARN');

    if (access.stripeSecret) {
      this.grantSecretRead(stripeSecret, 'STRIPE_SECRET_ARN');
      // Not secret; without it the function answers checkout requests with 503.
      if (this.settings.stripePriceId) fn.addEnvironment('STRIPE_PRICE_ID', this.settings.stripePriceId);
    }

    for (const name of access.sendTo ?? []) {
      queues[name].grantSendMessages(fn);
      fn.addEnvironment(queueUrlEnv(name), queues[name].queueUrl);
    }

    if (access.exportBucket) {
      // Explicit object actions instead of grantRead/grantReadWrite (which add s3:List*, s3:DeleteObject*, ...).
      const actions =
        access.exportBucket === 'readWrite'
          ? // DeleteObject: the file of an export stopped or erased while it was written (run-export.ts).
            // One PUT per file (functions/exports/export-upload.ts): no multipart upload to abort.
            ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']
          : ['s3:GetObject'];
      // Only the export files (exports/<user>/<export id>.<ext>), whose names are made per export.
      const stack = Stack.of(this);
      const bucketArn = `arn:${stack.partition}:s3:::${exportBucketName(this.settings.prefix, stack.account, stack.region)}`;
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [`${bucketArn}/exports/*`] }));
      fn.addEnvironment('EXPORT_BUCKET', exportBucket.bucketName);
      acknowledgeWildcards(this, [
        {
          finding: /^Resource::.*\/exports\/\*$/,
          reason: 'Export files get a new key per export (exports/<user>/<export id>.<ext>); the grant covers that prefix of the export bucket and only object actions.',
        },
      ]);
    }

    if (access.profilePhotos) {
      // Profile photos sit in the export bucket under their own prefix (no expiry rule there).
      const actions = access.profilePhotos === 'readWrite' ? ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] : ['s3:GetObject'];
      const stack = Stack.of(this);
      const bucketArn = `arn:${stack.partition}:s3:::${exportBucketName(this.settings.prefix, stack.account, stack.region)}`;
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [`${bucketArn}/profile-photos/*`] }));
      fn.addEnvironment('EXPORT_BUCKET', exportBucket.bucketName);
      acknowledgeWildcards(this, [
        {
          finding: /^Resource::.*\/profile-photos\/\*$/,
          reason: 'Each photo gets a new key (profile-photos/<user>/<uuid>.jpg); the grant covers that prefix of the bucket and only object actions.',
        },
      ]);
    }

    if (access.csvUploads) {
      // Uploaded CSV files (uploads/<user>/<upload id>.csv): signing the upload form needs
      // PutObject (the POST is made with the signer's rights); the size is a HeadObject (GetObject).
      const actions = access.csvUploads === 'sign' ? ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'] : ['s3:GetObject', 's3:DeleteObject'];
      const stack = Stack.of(this);
      const bucketArn = `arn:${stack.partition}:s3:::${exportBucketName(this.settings.prefix, stack.account, stack.region)}`;
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [`${bucketArn}/uploads/*`] }));
      fn.addEnvironment('EXPORT_BUCKET', exportBucket.bucketName);
      acknowledgeWildcards(this, [
        {
          finding: /^Resource::.*\/uploads\/\*$/,
          reason: 'Each uploaded CSV gets a new key (uploads/<user>/<upload id>.csv); the grant covers that prefix of the bucket and only object actions.',
        },
      ]);
    }

    if (access.exportBucketDelete) {
      // Only the per-user prefixes (functions/account-deletion/user-objects.ts): list them, delete their objects.
      const stack = Stack.of(this);
      const bucketArn = `arn:${stack.partition}:s3:::${exportBucketName(this.settings.prefix, stack.account, stack.region)}`;
      fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucketArn], conditions: { StringLike: { 's3:prefix': ['exports/*', 'profile-photos/*', 'uploads/*'] } } }));
      fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [`${bucketArn}/exports/*`, `${bucketArn}/profile-photos/*`, `${bucketArn}/uploads/*`] }));
      fn.addEnvironment('EXPORT_BUCKET', exportBucket.bucketName);
      acknowledgeWildcards(this, [
        {
          finding: /^Resource::.*\/exports\/\*$/,
          reason: "Account deletion deletes a user's export files, whose keys are made per export under exports/<user>/; only DeleteObject on that prefix.",
        },
        {
          finding: /^Resource::.*\/profile-photos\/\*$/,
          reason: "Account deletion deletes a user's photos (profile-photos/<user>/ and profile-photos/pending/<user>/); only DeleteObject on that prefix.",
        },
        {
          finding: /^Resource::.*\/uploads\/\*$/,
          reason: "Account deletion deletes a user's uploaded CSV files (uploads/<user>/); only DeleteObject on that prefix.",
        },
      ]);
    }

    if (access.deleteUsers) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['cognito-idp:AdminDeleteUser'], resources: [userPool.userPoolArn] }));
      fn.addEnvironment('USER_POOL_ID', userPool.userPoolId);
    }

    if (access.sendEmail) {
      const stack = Stack.of(this);
      const configurationSetArn = stack.formatArn({
        service: 'ses',
        resource: 'configuration-set',
        resourceName: mail.configurationSet.configurationSetName,
      });
      // In the SES sandbox, SES authorizes the send on every recipient's verified identity as well
      // as the sender's: the grant covers the account's identities, but only for mail from the
      // app's own sender address.
      const identitiesArn = stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [identitiesArn],
          conditions: { StringEquals: { 'ses:FromAddress': mail.fromAddress } },
        }),
      );
      fn.addToRolePolicy(new PolicyStatement({ actions: ['ses:SendEmail', 'ses:SendRawEmail'], resources: [configurationSetArn] }));
      acknowledgeWildcards(this, [
        {
          finding: new RegExp(`^Resource::arn:${arnPart}:ses:${arnPart}:${arnPart}:identity/\\*$`),
          reason:
            "SES checks recipient identities too while the account is in the sandbox; the grant is limited by a ses:FromAddress condition to mail from the app's sender address.",
        },
      ]);
      fn.addEnvironment('SES_FROM_ADDRESS', mail.fromAddress);
      fn.addEnvironment('SES_CONFIGURATION_SET', mail.configurationSet.configurationSetName);
      // The pace of credential e-mails (functions/mail/credentials-runtime.ts); unset: its default.
      if (this.settings.mailSendRate !== undefined) fn.addEnvironment('MAIL_SEND_RATE', String(this.settings.mailSendRate));
      // A customer's daily cap, the rate's share kept for Cognito's codes (functions/mail/send-share.ts) and the bounce-rate cut-off (bounce-rate.ts); unset: their defaults.
      if (this.settings.mailDailyCap !== undefined) fn.addEnvironment('MAIL_DAILY_CAP', String(this.settings.mailDailyCap));
      if (this.settings.mailReservedShare !== undefined) fn.addEnvironment('MAIL_RESERVED_SHARE', String(this.settings.mailReservedShare));
      if (this.settings.mailBounceCutoff !== undefined) fn.addEnvironment('MAIL_BOUNCE_CUTOFF', String(this.settings.mailBounceCutoff));
    }
  }

  /**
   * Lets the function read `secret` and names it in `envName`. What secret.grantRead(fn) would
   * grant, minus DescribeSecret, written out because grantRead's kms:Decrypt grant also lands in
   * the key policy (stateful stack) naming this role (stateless stack): a cycle between the
   * stacks. Decrypt is allowed only through Secrets Manager and only for this secret, so the role
   * cannot use the key directly.
   */
  private grantSecretRead(secret: ISecret, envName: string): void {
    const fn = this.function;
    const secretArn = secret.secretArn;
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }));
    const key = secret.encryptionKey;
    if (key) {
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [key.keyArn],
          conditions: {
            StringEquals: {
              // The same value aws-cdk-lib's Secret puts into the key policy.
              'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com`,
              'kms:EncryptionContext:SecretARN': secretArn,
            },
          },
        }),
      );
    }
    fn.addEnvironment(envName, secretArn);
  }
}
