import fs from 'node:fs';
import path from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type GlobalSecondaryIndexDescription,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { tableDefinition } from '../../functions/core/table-definition';
import { queues } from '../../shared/routes';
import { HOST, REGION, resourceNames, type LocalPorts } from './settings';

/** Credentials the emulators accept (s3rver insists on these exact ones). */
export const localCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const endpoint = (port: number) => `http://${HOST}:${port}`;

export async function ensureTable(port: number, tableName = resourceNames.table): Promise<void> {
  const client = new DynamoDBClient({ region: REGION, endpoint: endpoint(port), credentials: localCredentials });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // An index whose projection changed is rebuilt: dropped here, created again below.
    const current = (Table?.GlobalSecondaryIndexes ?? []).filter((index) => {
      const wanted = tableDefinition.globalSecondaryIndexes.find((w) => w.indexName === index.IndexName);
      return !wanted || sameProjection(index, wanted);
    });
    for (const stale of (Table?.GlobalSecondaryIndexes ?? []).filter((index) => !current.includes(index))) {
      await client.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: stale.IndexName! } }] }));
      await indexGone(client, tableName, stale.IndexName!);
    }
    await reconcileIndexes(client, tableName, current.map((index) => index.IndexName!));
    client.destroy();
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const attributes = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const gsi of tableDefinition.globalSecondaryIndexes) {
    attributes.add(gsi.partitionKey);
    attributes.add(gsi.sortKey);
  }
  const AttributeDefinitions: AttributeDefinition[] = [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' }));
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions,
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map(indexSpec),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
  client.destroy();
}

const indexSpec = (gsi: (typeof tableDefinition.globalSecondaryIndexes)[number]) => ({
  IndexName: gsi.indexName,
  KeySchema: [
    { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: gsi.projection.type, NonKeyAttributes: [...gsi.projection.nonKeyAttributes] },
});

/** An index built with another projection than the definition's (an older data folder). */
const sameProjection = (index: GlobalSecondaryIndexDescription, gsi: (typeof tableDefinition.globalSecondaryIndexes)[number]) =>
  index.Projection?.ProjectionType === gsi.projection.type &&
  [...(index.Projection?.NonKeyAttributes ?? [])].sort().join() === [...gsi.projection.nonKeyAttributes].sort().join();

/**
 * DynamoDB Local changes indexes in the background too: an index being deleted blocks creating one
 * of the same name, and the table refuses writes while an index is being created. Wait for each.
 */
async function waitForIndex(client: DynamoDBClient, tableName: string, indexName: string, state: 'gone' | 'ACTIVE') {
  for (let i = 0; i < 600; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const index = (Table?.GlobalSecondaryIndexes ?? []).find((candidate) => candidate.IndexName === indexName);
    if (state === 'gone' ? !index : index?.IndexStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Index ${indexName} of ${tableName} is not ${state} after 60 s`);
}
const indexGone = (client: DynamoDBClient, tableName: string, indexName: string) => waitForIndex(client, tableName, indexName, 'gone');

/** A data folder from an earlier version: add the indexes it lacks, drop the ones no longer defined. */
async function reconcileIndexes(client: DynamoDBClient, tableName: string, existing: string[]) {
  const wanted = tableDefinition.globalSecondaryIndexes;
  for (const name of existing.filter((n) => !wanted.some((w) => w.indexName === n))) {
    await client.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] }));
    await indexGone(client, tableName, name);
  }
  // DynamoDB creates one index per UpdateTable call.
  for (const gsi of wanted.filter((w) => !existing.includes(w.indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: gsi.partitionKey, AttributeType: 'S' },
          { AttributeName: gsi.sortKey, AttributeType: 'S' },
        ],
        GlobalSecondaryIndexUpdates: [{ Create: indexSpec(gsi) }],
      }),
    );
    await waitForIndex(client, tableName, gsi.indexName, 'ACTIVE');
  }
}

export async function ensureBucket(port: number, bucket = resourceNames.exportBucket): Promise<void> {
  const client = new S3Client({ region: REGION, endpoint: endpoint(port), forcePathStyle: true, credentials: localCredentials });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
  // As the CDK bucket's CORS rule: the bulk dialog's upload (XMLHttpRequest, for its progress) is preflighted.
  await client.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: [{ AllowedMethods: ['POST'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAgeSeconds: 3600 }] } }));
  client.destroy();
}

export async function queueUrls(port: number): Promise<Record<string, string>> {
  const client = new SQSClient({ region: REGION, endpoint: endpoint(port), credentials: localCredentials });
  const urls: Record<string, string> = {};
  for (const q of queues) {
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: resourceNames.queue(q.name) }));
    urls[q.name] = QueueUrl!;
    const dlq = await client.send(new GetQueueUrlCommand({ QueueName: resourceNames.deadLetterQueue(q.name) }));
    urls[`${q.name}-dlq`] = dlq.QueueUrl!;
  }
  client.destroy();
  return urls;
}

export interface UserPoolIds {
  userPoolId: string;
  userPoolClientId: string;
}

/**
 * The user pool and web client, created on first start and remembered in the data folder
 * (cognito-local keeps the pool itself under <dataDir>/.cognito). Configured like the CDK's:
 * e-mail as the sign-in name, e-mail verification, given and family name attributes.
 */
export async function ensureUserPool(port: number, dataDir: string): Promise<UserPoolIds> {
  const client = new CognitoIdentityProviderClient({ region: REGION, endpoint: endpoint(port), credentials: localCredentials });
  const idsFile = path.join(dataDir, 'user-pool.json');
  try {
    if (fs.existsSync(idsFile)) {
      const ids = JSON.parse(fs.readFileSync(idsFile, 'utf8')) as UserPoolIds;
      await client.send(new DescribeUserPoolClientCommand({ UserPoolId: ids.userPoolId, ClientId: ids.userPoolClientId }));
      return ids;
    }
  } catch {
    // The emulator's state was removed: create the pool again.
  }
  const { UserPool } = await client.send(
    new CreateUserPoolCommand({
      PoolName: resourceNames.userPool,
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      // TOTP allowed, never forced (the Security Center's two-factor setting), as the CDK app's pool.
      MfaConfiguration: 'OPTIONAL',
      Policies: {
        PasswordPolicy: { MinimumLength: 8, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true },
      },
      Schema: [
        { Name: 'email', AttributeDataType: 'String', Required: true, Mutable: true },
        { Name: 'given_name', AttributeDataType: 'String', Required: true, Mutable: true },
        { Name: 'family_name', AttributeDataType: 'String', Required: true, Mutable: true },
      ],
    }),
  );
  const { UserPoolClient } = await client.send(
    new CreateUserPoolClientCommand({
      UserPoolId: UserPool!.Id!,
      ClientName: resourceNames.userPoolClient,
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    }),
  );
  const ids = { userPoolId: UserPool!.Id!, userPoolClientId: UserPoolClient!.ClientId! };
  fs.writeFileSync(idsFile, JSON.stringify(ids, null, 2));
  client.destroy();
  return ids;
}

export const endpoints = (ports: LocalPorts) => ({
  dynamodb: endpoint(ports.dynamodb),
  s3: endpoint(ports.s3),
  sqs: endpoint(ports.sqs),
  ses: endpoint(ports.ses),
  cognito: endpoint(ports.cognito),
  app: endpoint(ports.app),
});
