import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../functions/core/table-definition';
import { appConfigSchema } from '../../shared/app-config';
import {
  groupAccess,
  queues,
  queueUrlEnv,
  routeGroups,
  routeKey,
  routes,
  scheduleAccess,
  schedules,
  workerAccess,
  type FunctionAccess,
  type QueueDefinition,
  type WorkerName,
} from '../../shared/routes';
import { constructId } from '../../lib/construct-id';
import { accessTokenScope, routeThrottles, stageThrottle } from '../../lib/constructs/http-api';
import { deadLetterMaxConcurrency, workerEphemeralStorage, workerMemorySize, workerTimeout } from '../../lib/stateless-stack';
import { buildTestApp, testEnv, type SynthesizedApp } from './synth-app';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
type Resources = Record<string, Resource>;

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

interface LambdaProperties {
  FunctionName: string;
  Runtime: string;
  Architectures: string[];
  Handler: string;
  MemorySize: number;
  EphemeralStorage?: { Size: number };
  Timeout: number;
  TracingConfig: { Mode: string };
  LoggingConfig: { LogGroup: { Ref: string } };
  Role: { 'Fn::GetAtt': [string, string] };
  Code: { S3Key: string };
  Environment: { Variables: Record<string, unknown> };
}

interface Worker {
  worker: WorkerName;
  queue: QueueDefinition;
  /** What it consumes: the queue itself, or the queue's dead-letter queue. */
  source: 'Queue' | 'DeadLetterQueue';
  batchSize: number;
  maxConcurrency: number;
}

const workers: Worker[] = queues.flatMap((queue) => [
  ...(queue.worker
    ? [{ worker: queue.worker, queue, source: 'Queue' as const, batchSize: queue.batchSize, maxConcurrency: queue.maxConcurrency }]
    : []),
  // Dead-letter workers: one message at a time, the least concurrency Lambda allows (2).
  ...(queue.deadLetterWorker
    ? [{ worker: queue.deadLetterWorker, queue, source: 'DeadLetterQueue' as const, batchSize: 1, maxConcurrency: deadLetterMaxConcurrency }]
    : []),
]);

/** Every function the route table asks for: one per route group, one per queue and dead-letter worker. */
const expectedFunctions: { name: string; access: FunctionAccess }[] = [
  ...routeGroups.map((group) => ({ name: group, access: groupAccess[group] })),
  ...workers.map(({ worker }) => ({ name: worker, access: workerAccess[worker] })),
  ...schedules.map(({ name }) => ({ name, access: scheduleAccess[name] })),
];

/** The app's secrets and the FunctionAccess flag that lets a function read each. */
const secretAccess = [
  { secret: 'EncryptionKeySecret', access: 'encryptionKey' },
  { secret: 'StripeSecret', access: 'stripeSecret' },
] as const satisfies readonly { secret: string; access: keyof FunctionAccess }[];

let built: SynthesizedApp;
let assembly: CloudAssembly;
let template: Template;
let resources: Resources;
let statefulResources: Resources;

beforeAll(() => {
  // Real esbuild bundling of every handler (lib/lambda-bundles.ts): the same synth as `npm run synth`.
  built = buildTestApp();
  assembly = built.app.synth();
  template = Template.fromStack(built.stateless);
  resources = template.toJSON().Resources as Resources;
  statefulResources = Template.fromStack(built.stateful).toJSON().Resources as Resources;
});

/** Logical id of a stateful resource whose id starts with `prefix` (e.g. BulkDeadLetterQueue). */
function statefulId(type: string, prefix: string): string {
  const ids = Object.entries(statefulResources)
    .filter(([id, r]) => r.Type === type && new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id))
    .map(([id]) => id);
  expect(ids, `${type} ${prefix}`).toHaveLength(1);
  return ids[0]!;
}

/** A weak cross-stack reference (Fn::GetStackOutput) to an attribute of a stateful resource, as JSON. */
const refersTo = (value: unknown, logicalId: string): boolean =>
  new RegExp(`"OutputName":"PublishOutput(Ref|FnGetAtt)${logicalId}`).test(JSON.stringify(value));

const roleOf = (name: string): string => appFunction(name)[1].Role['Fn::GetAtt'][0];

/** Every statement of every IAM policy in the stateless stack, with the roles it is attached to. */
const allStatements = (): { roles: string[]; statement: Statement }[] =>
  ofType('AWS::IAM::Policy').flatMap(([, policy]) =>
    (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement.map((statement) => ({
      roles: (policy.Properties.Roles as { Ref: string }[]).map((ref) => ref.Ref),
      statement,
    })),
  );
const actionsOf = (statement: Statement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, r]) => r.Type === type);

function appFunction(name: string): [string, LambdaProperties] {
  const found = ofType('AWS::Lambda::Function').find(([, r]) => r.Properties.FunctionName === `bulkonboard-${name}`);
  if (!found) throw new Error(`no function bulkonboard-${name}`);
  return [found[0], found[1].Properties as unknown as LambdaProperties];
}

/** Actions allowed to a function's role, over all policies attached to it. */
function allowedActions(name: string): string[] {
  const [, fn] = appFunction(name);
  const roleId = fn.Role['Fn::GetAtt'][0];
  const role = resources[roleId]!.Properties;
  expect(role.ManagedPolicyArns, `${name} role has no managed policies`).toBeUndefined();
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties.Roles as { Ref: string }[]).some((ref) => ref.Ref === roleId))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement)
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]));
}

describe('functions', () => {
  it('every schedule of shared/routes.ts starts its function through EventBridge Scheduler (the weekly digest: Mondays 08:00 UTC; the expiry sweep: hourly), with a role that may invoke only that function', () => {
    expect(schedules.find((s) => s.name === 'weekly-digest')?.expression).toBe('cron(0 8 ? * MON *)');
    expect(schedules.find((s) => s.name === 'project-expiry')?.expression).toBe('cron(0 * * * ? *)');
    const found = ofType('AWS::Scheduler::Schedule');
    expect(found).toHaveLength(schedules.length);
    for (const definition of schedules) {
      const [fnId] = appFunction(definition.name);
      const [, schedule] = found.find(([, r]) => JSON.stringify((r.Properties.Target as { Arn: unknown }).Arn).includes(fnId))!;
      expect(schedule.Properties).toMatchObject({ ScheduleExpression: definition.expression, State: 'ENABLED', FlexibleTimeWindow: { Mode: 'OFF' } });
      const roleId = ((schedule.Properties.Target as { RoleArn: { 'Fn::GetAtt': [string, string] } }).RoleArn)['Fn::GetAtt'][0];
      const invokes = allStatements().filter(({ roles }) => roles.includes(roleId)).map(({ statement }) => statement);
      expect(invokes.flatMap(actionsOf)).toEqual(['lambda:InvokeFunction']);
      for (const statement of invokes) expect(JSON.stringify(statement.Resource)).toContain(fnId);
    }
  });

  it('one function per route group and per queue or dead-letter worker, plus only the CDK deployment handler', () => {
    const names = ofType('AWS::Lambda::Function')
      .map(([, r]) => r.Properties.FunctionName)
      .filter((name) => name !== undefined);
    expect(names.sort()).toEqual(expectedFunctions.map(({ name }) => `bulkonboard-${name}`).sort());
    expect(ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Runtime !== 'nodejs24.x')).toHaveLength(1);
  });

  it.each(expectedFunctions.map(({ name }) => [name]))('%s: Node 24 on arm64, traced, ESM bundle, own log group kept a month', (name) => {
    const [, fn] = appFunction(name);
    expect(fn).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      TracingConfig: { Mode: 'Active' },
    });
    const logGroup = resources[fn.LoggingConfig.LogGroup.Ref]!;
    expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
    expect(logGroup.Properties.RetentionInDays).toBe(30);
    expect(fn.Environment.Variables).toMatchObject({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'bulkonboard',
      LOG_LEVEL: 'INFO',
    });
    expect(fn.Environment.Variables.AWS_REGION).toBeUndefined();
  });

  it('every worker of workerAccess has a function consuming exactly one queue', () => {
    expect(workers.map(({ worker }) => worker).sort()).toEqual(Object.keys(workerAccess).sort());
    expect(new Set(workers.map(({ worker }) => worker)).size).toBe(workers.length);
    for (const { worker } of workers) expect(() => appFunction(worker)).not.toThrow();
  });

  it('route group functions have 512 MB, workers 1024 MB', () => {
    expect(workerMemorySize).toBe(1024);
    for (const group of routeGroups) expect(appFunction(group)[1].MemorySize, group).toBe(512);
    for (const { worker } of workers) expect(appFunction(worker)[1].MemorySize, worker).toBe(1024);
  });

  it("the export worker has 2 GiB of /tmp (its temporary export file before the PUT); every other function Lambda's default 512 MiB", () => {
    expect(Object.keys(workerEphemeralStorage)).toEqual(['export-worker']);
    expect(appFunction('export-worker')[1].EphemeralStorage).toEqual({ Size: 2048 });
    for (const name of [...routeGroups, ...workers.map(({ worker }) => worker).filter((worker) => worker !== 'export-worker')]) expect(appFunction(name)[1].EphemeralStorage, name).toBeUndefined();
  });

  it('route group functions time out after 10 s (integrations and provisioning, which wait on outside servers, 25 s, under the HTTP API limit of 30 s); workers (dead-letter workers too) after a sixth of their visibility timeout', () => {
    for (const group of routeGroups) expect(appFunction(group)[1].Timeout, group).toBe(group === 'integrations' || group === 'provisioning' ? 25 : 10);
    for (const { queue, worker } of workers) {
      const timeout = appFunction(worker)[1].Timeout;
      expect(timeout).toBe(workerTimeout(queue).toSeconds());
      expect(timeout).toBeLessThanOrEqual(queue.visibilityTimeoutSeconds);
    }
  });

  it.each(expectedFunctions.map(({ name, access }) => [name, access] as const))(
    '%s: environment names exactly the resources its FunctionAccess lists',
    (name, access) => {
      const variables = appFunction(name)[1].Environment.Variables;
      const present = (key: string) => key in variables;
      expect(present('USER_POOL_ID') && present('USER_POOL_CLIENT_ID') && present('APP_URL')).toBe(true);
      expect(present('TABLE_NAME')).toBe(access.table !== undefined);
      expect(present('ENCRYPTION_KEY_ID'), 'the KMS key is no longer handed out').toBe(false);
      expect(present('ENCRYPTION_KEY_SECRET_ARN')).toBe(access.encryptionKey === true);
      if (access.encryptionKey) {
        expect(refersTo(variables.ENCRYPTION_KEY_SECRET_ARN, statefulId('AWS::SecretsManager::Secret', 'EncryptionKeySecret'))).toBe(true);
      }
      expect(present('STRIPE_SECRET_ARN')).toBe(access.stripeSecret === true);
      if (access.stripeSecret) {
        expect(refersTo(variables.STRIPE_SECRET_ARN, statefulId('AWS::SecretsManager::Secret', 'StripeSecret'))).toBe(true);
      }
      // Only with -c stripePriceId (see 'STRIPE_PRICE_ID' below); cdk.json may set it for a real deploy.
      expect(present('STRIPE_PRICE_ID')).toBe(access.stripeSecret === true && built.settings.stripePriceId !== undefined);
      for (const queue of queues) expect(present(queueUrlEnv(queue.name)), queue.name).toBe(access.sendTo?.includes(queue.name) ?? false);
      expect(present('EXPORT_BUCKET')).toBe(access.exportBucket !== undefined || access.profilePhotos !== undefined || access.exportBucketDelete === true || access.csvUploads !== undefined);
      expect(present('SES_FROM_ADDRESS')).toBe(access.sendEmail === true);
      expect(present('SES_CONFIGURATION_SET')).toBe(access.sendEmail === true);
      if (access.sendEmail) expect(variables.SES_FROM_ADDRESS).toBe('no-reply@bulkonboard.test');
      // Only with -c mailSendRate (see 'MAIL_SEND_RATE' below); without it the sender's default (14).
      expect(present('MAIL_SEND_RATE')).toBe(access.sendEmail === true && built.settings.mailSendRate !== undefined);
    },
  );

  it.each(expectedFunctions.map(({ name, access }) => [name, access] as const))(
    '%s: IAM grants exactly what its FunctionAccess lists, each on its own resources (least privilege)',
    (name, access) => {
      const isWorker = workers.some(({ worker }) => worker === name);
      const readsSecret = access.encryptionKey === true || access.stripeSecret === true;
      const expected = [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        ...(access.table ?? []).map((action) => `dynamodb:${action}`),
        ...(readsSecret ? ['secretsmanager:GetSecretValue', 'kms:Decrypt'] : []),
        ...((access.sendTo ?? []).length ? ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'] : []),
        ...(isWorker ? ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'] : []),
        ...(access.exportBucket === 'read' ? ['s3:GetObject'] : []),
        ...(access.exportBucket === 'readWrite' ? ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] : []),
        ...(access.profilePhotos === 'read' ? ['s3:GetObject'] : []),
        ...(access.profilePhotos === 'readWrite' ? ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] : []),
        ...(access.exportBucketDelete ? ['s3:ListBucket', 's3:DeleteObject'] : []),
        ...(access.csvUploads === 'sign' ? ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'] : []),
        ...(access.csvUploads === 'read' ? ['s3:GetObject', 's3:DeleteObject'] : []),
        ...(access.deleteUsers ? ['cognito-idp:AdminDeleteUser'] : []),
        ...(access.sendEmail ? ['ses:SendEmail', 'ses:SendRawEmail'] : []),
      ];
      expect([...new Set(allowedActions(name))].sort()).toEqual([...new Set(expected)].sort());

      for (const { statement } of allStatements().filter(({ roles }) => roles.includes(roleOf(name)))) {
        const resources = ([] as unknown[]).concat(statement.Resource);
        const actions = actionsOf(statement);
        // '*' only where the service has no resource-level permissions (X-Ray).
        if (resources.includes('*')) expect(actions.every((action) => action.startsWith('xray:')), `${name}: ${actions.join(', ')} on *`).toBe(true);
        if (actions.some((action) => action.startsWith('dynamodb:'))) {
          expect(actions.every((action) => action.startsWith('dynamodb:'))).toBe(true);
          const tableId = statefulId('AWS::DynamoDB::Table', 'Table');
          const indexes = access.table?.includes('Query') ? tableDefinition.globalSecondaryIndexes.map((index) => index.indexName) : [];
          expect(resources, `${name}: the table${indexes.length ? ' and each index' : ''}, nothing else`).toHaveLength(1 + indexes.length);
          for (const resource of resources) expect(refersTo(resource, tableId)).toBe(true);
          const named = resources.map((resource) => /\/index\/([A-Za-z0-9_.-]+)"/.exec(JSON.stringify(resource))?.[1] ?? 'table');
          expect(named.sort()).toEqual(['table', ...indexes].sort());
        }
      }
    },
  );

  it.each(secretAccess)('only functions with $access may read $secret, and the data key only through Secrets Manager for it', ({ secret, access: flag }) => {
    const secretId = statefulId('AWS::SecretsManager::Secret', secret);
    const keyId = statefulId('AWS::KMS::Key', 'DataKey');
    const readers = expectedFunctions.filter(({ access }) => access[flag] === true).map(({ name }) => roleOf(name));
    expect(readers.length).toBeGreaterThan(0);

    // Over every policy of the stack (the CDK deployment handler's too), not only the app functions'.
    const secretStatements = allStatements().filter(
      ({ statement }) => actionsOf(statement).some((a) => a.startsWith('secretsmanager:')) && refersTo(statement.Resource, secretId),
    );
    expect(secretStatements.flatMap(({ roles }) => roles).sort()).toEqual([...readers].sort());
    for (const { statement } of secretStatements) {
      expect(statement).toMatchObject({ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue' });
    }

    const kmsStatements = allStatements().filter(
      ({ statement }) =>
        actionsOf(statement).some((a) => a.startsWith('kms:')) &&
        refersTo(statement.Condition?.StringEquals?.['kms:EncryptionContext:SecretARN'], secretId),
    );
    expect(kmsStatements.flatMap(({ roles }) => roles).sort()).toEqual([...readers].sort());
    for (const { statement } of kmsStatements) {
      expect(statement).toMatchObject({ Effect: 'Allow', Action: 'kms:Decrypt' });
      expect(refersTo(statement.Resource, keyId)).toBe(true);
      expect(statement.Condition?.StringEquals?.['kms:ViaService']).toBe('secretsmanager.eu-west-1.amazonaws.com');
    }
  });

  it('the stack has no other Secrets Manager or KMS permission than reading those secrets', () => {
    const secretIds = secretAccess.map(({ secret }) => statefulId('AWS::SecretsManager::Secret', secret));
    const namesAnAppSecret = (value: unknown) => secretIds.some((id) => refersTo(value, id));
    const statements = allStatements().map(({ statement }) => statement);

    const secretStatements = statements.filter((statement) => actionsOf(statement).some((a) => a.startsWith('secretsmanager:')));
    expect(secretStatements.length).toBeGreaterThan(0);
    for (const statement of secretStatements) {
      expect(statement).toMatchObject({ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue' });
      expect(namesAnAppSecret(statement.Resource)).toBe(true);
    }

    const kmsStatements = statements.filter((statement) => actionsOf(statement).some((a) => a.startsWith('kms:')));
    expect(kmsStatements.length).toBeGreaterThan(0);
    for (const statement of kmsStatements) {
      expect(statement).toMatchObject({ Effect: 'Allow', Action: 'kms:Decrypt' });
      expect(namesAnAppSecret(statement.Condition?.StringEquals?.['kms:EncryptionContext:SecretARN'])).toBe(true);
    }
  });

  describe('MAIL_SEND_RATE', () => {
    const sendRatesOf = (options: { context?: Record<string, unknown>; env?: Record<string, string> }): Record<string, unknown> => {
      const { stateless } = buildTestApp({ skipBundling: true, context: options.context, env: { ...testEnv, ...options.env } });
      const functions = Template.fromStack(stateless).findResources('AWS::Lambda::Function') as Resources;
      return Object.fromEntries(
        Object.values(functions)
          .filter((fn) => typeof fn.Properties.FunctionName === 'string')
          .map((fn) => [fn.Properties.FunctionName as string, (fn.Properties as unknown as LambdaProperties).Environment.Variables.MAIL_SEND_RATE]),
      );
    };
    const senders = expectedFunctions.filter(({ access }) => access.sendEmail).map(({ name }) => `bulkonboard-${name}`);

    it('-c mailSendRate=1 (the SES sandbox) reaches the functions that send e-mail (the mail worker), no other', () => {
      expect(senders).toEqual(['bulkonboard-mail-worker']);
      for (const [name, rate] of Object.entries(sendRatesOf({ context: { mailSendRate: '1' } }))) {
        expect(rate, name).toBe(senders.includes(name) ? '1' : undefined);
      }
    });

    it('DEPLOY_MAIL_SEND_RATE (what the deploy workflow sets) does the same; context wins', () => {
      expect(sendRatesOf({ env: { DEPLOY_MAIL_SEND_RATE: '50' } })['bulkonboard-mail-worker']).toBe('50');
      expect(sendRatesOf({ context: { mailSendRate: 2 }, env: { DEPLOY_MAIL_SEND_RATE: '50' } })['bulkonboard-mail-worker']).toBe('2');
    });

    it('-c mailDailyCap, -c mailReservedShare and -c mailBounceCutoff reach the functions that send e-mail as MAIL_DAILY_CAP, MAIL_RESERVED_SHARE and MAIL_BOUNCE_CUTOFF, no other; unset: on none', () => {
      const variablesOf = (context: Record<string, unknown>) => {
        const { stateless } = buildTestApp({ skipBundling: true, context, env: testEnv });
        const functions = Template.fromStack(stateless).findResources('AWS::Lambda::Function') as Resources;
        return Object.values(functions)
          .filter((fn) => typeof fn.Properties.FunctionName === 'string')
          .map((fn) => [fn.Properties.FunctionName as string, (fn.Properties as unknown as LambdaProperties).Environment.Variables] as const);
      };
      for (const [name, variables] of variablesOf({ mailDailyCap: '200', mailReservedShare: '0.2', mailBounceCutoff: '0.05' })) {
        expect([variables.MAIL_DAILY_CAP, variables.MAIL_RESERVED_SHARE, variables.MAIL_BOUNCE_CUTOFF], name).toEqual(senders.includes(name) ? ['200', '0.2', '0.05'] : [undefined, undefined, undefined]);
      }
      for (const [name, variables] of variablesOf({})) expect([variables.MAIL_DAILY_CAP, variables.MAIL_RESERVED_SHARE, variables.MAIL_BOUNCE_CUTOFF], name).toEqual([undefined, undefined, undefined]);
    });

    it('without it: set on no function (the sender paces to its default, 14 a second)', () => {
      const rates = sendRatesOf({ context: { mailSendRate: '' } });
      expect(Object.keys(rates)).toHaveLength(expectedFunctions.length);
      expect(Object.values(rates).filter((rate) => rate !== undefined)).toEqual([]);
    });
  });

  describe('provisioningWorkers', () => {
    /** Each worker's event source's MaximumConcurrency, by worker name. */
    const concurrencyOf = (options: { context?: Record<string, unknown>; env?: Record<string, string> }): Record<string, unknown> => {
      const { stateless } = buildTestApp({ skipBundling: true, context: options.context, env: { ...testEnv, ...options.env } });
      const template = Template.fromStack(stateless);
      const functions = template.findResources('AWS::Lambda::Function') as Resources;
      const mappings = template.findResources('AWS::Lambda::EventSourceMapping') as Resources;
      return Object.fromEntries(
        Object.values(mappings).map((mapping) => {
          const id = (mapping.Properties.FunctionName as { Ref: string }).Ref;
          return [String(functions[id]!.Properties.FunctionName), (mapping.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency];
        }),
      );
    };

    it('-c provisioningWorkers=100 (production, docs/capacity.md) sets the provisioning worker\'s maximum concurrency, and no other worker\'s', () => {
      const scaled = concurrencyOf({ context: { provisioningWorkers: '100' } });
      const unset = concurrencyOf({ context: { provisioningWorkers: '' } });
      expect(scaled['bulkonboard-provisioning-worker']).toBe(100);
      expect(unset['bulkonboard-provisioning-worker']).toBe(queues.find((q) => q.name === 'provisioning')!.maxConcurrency);
      for (const [name, concurrency] of Object.entries(unset)) if (name !== 'bulkonboard-provisioning-worker') expect(scaled[name], name).toBe(concurrency);
      // Its dead-letter worker records rare leftovers: unchanged.
      expect(scaled['bulkonboard-provisioning-dead-letter-worker']).toBe(deadLetterMaxConcurrency);
    });

    it('DEPLOY_PROVISIONING_WORKERS (what the deploy workflow sets) does the same; context wins', () => {
      expect(concurrencyOf({ env: { DEPLOY_PROVISIONING_WORKERS: '8' } })['bulkonboard-provisioning-worker']).toBe(8);
      expect(concurrencyOf({ context: { provisioningWorkers: 3 }, env: { DEPLOY_PROVISIONING_WORKERS: '8' } })['bulkonboard-provisioning-worker']).toBe(3);
    });
  });

  describe('STRIPE_PRICE_ID', () => {
    const priceIdOf = (context: Record<string, unknown>): Record<string, unknown> => {
      const { stateless } = buildTestApp({ skipBundling: true, context });
      const functions = Template.fromStack(stateless).findResources('AWS::Lambda::Function') as Resources;
      return Object.fromEntries(
        Object.values(functions)
          .filter((fn) => typeof fn.Properties.FunctionName === 'string')
          .map((fn) => [
            fn.Properties.FunctionName as string,
            (fn.Properties as unknown as LambdaProperties).Environment.Variables.STRIPE_PRICE_ID,
          ]),
      );
    };
    const withStripeSecret = expectedFunctions.filter(({ access }) => access.stripeSecret).map(({ name }) => `bulkonboard-${name}`);

    it('with -c stripePriceId: set on the functions with stripeSecret (billing), on no other', () => {
      // The deletion worker ends the deleted user's subscription (the billing provider needs the price id to exist).
      expect(withStripeSecret.sort()).toEqual(['bulkonboard-account-deletion-worker', 'bulkonboard-billing']);
      const priceIds = priceIdOf({ stripePriceId: 'price_1ProMonthly' });
      for (const [name, priceId] of Object.entries(priceIds)) {
        expect(priceId, name).toBe(withStripeSecret.includes(name) ? 'price_1ProMonthly' : undefined);
      }
    });

    it('without it: set on no function (checkout answers 503)', () => {
      // An empty value counts as unset, so this holds even if cdk.json gets a stripePriceId.
      const priceIds = priceIdOf({ stripePriceId: '' });
      expect(Object.keys(priceIds)).toHaveLength(expectedFunctions.length);
      expect(Object.values(priceIds).filter((priceId) => priceId !== undefined)).toEqual([]);
    });
  });

  it("e-mail senders may send only from the app's address: on the account's identities (SES sandbox checks recipients too) and the configuration set", () => {
    const senders = expectedFunctions.filter(({ access }) => access.sendEmail).map(({ name }) => name);
    expect(senders).toEqual(['mail-worker']);
    for (const name of senders) {
      const statements = allStatements()
        .filter(({ roles, statement }) => roles.includes(roleOf(name)) && actionsOf(statement).some((action) => action.startsWith('ses:')))
        .map(({ statement }) => statement);
      expect(statements).toHaveLength(2);
      const onIdentities = statements.find((statement) => JSON.stringify(statement.Resource).includes(':identity/*'))!;
      expect(onIdentities.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@bulkonboard.test' } });
      const onConfigurationSet = statements.find((statement) => statement !== onIdentities)!;
      expect(JSON.stringify(onConfigurationSet.Resource)).toMatch(/:configuration-set\/"/);
      expect(JSON.stringify(onConfigurationSet.Resource)).not.toContain('*');
    }
  });

  it("the 'user' group sends to the account-deletion queue only, and no e-mail", () => {
    const sends = allStatements().filter(({ roles, statement }) => roles.includes(roleOf('user')) && actionsOf(statement).includes('sqs:SendMessage'));
    expect(sends).toHaveLength(1);
    expect(refersTo(sends[0]!.statement.Resource, statefulId('AWS::SQS::Queue', 'AccountDeletionQueue'))).toBe(true);
    expect(allowedActions('user')).not.toContain('ses:SendEmail');
  });

  it('the account-deletion worker lists and deletes only under exports/, profile-photos/ and uploads/, deletes only users of the pool', () => {
    const statements = allStatements()
      .filter(({ roles }) => roles.includes(roleOf('account-deletion-worker')))
      .map(({ statement }) => statement);
    const list = statements.find((statement) => actionsOf(statement).includes('s3:ListBucket'))!;
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['exports/*', 'profile-photos/*', 'uploads/*'] } });
    const remove = statements.find((statement) => actionsOf(statement).includes('s3:DeleteObject'))!;
    expect(JSON.stringify(remove.Resource)).toContain('/exports/*');
    expect(JSON.stringify(remove.Resource)).toContain('/profile-photos/*');
    expect(JSON.stringify(remove.Resource)).toContain('/uploads/*');
    const users = statements.find((statement) => actionsOf(statement).includes('cognito-idp:AdminDeleteUser'))!;
    expect(actionsOf(users)).toEqual(['cognito-idp:AdminDeleteUser']);
    expect(refersTo(users.Resource, statefulId('AWS::Cognito::UserPool', 'UserPool'))).toBe(true);
  });

  it('table access names the table and, for Query, its indexes, never index/*; only the expiry schedule gets Scan (its one-time backfill), and BatchGetItem only the accounts search, the provisioning routes (an action over the Account Database resolves its selection through the directory pages), the export worker (the accounts a directory export lists), the SES events worker (the blocks and accounts of a batch in one read), the bulk-upload worker (a sync apply reads the changed accounts by key), the bulk worker (the marker and job of a chunk in one first read) and the code that holds the chunks of jobs (the state blocks of a chunk read by key: the mail and provisioning workers, their dead-letter workers, the mail-sends routes)', () => {
    const dynamoStatements = allStatements()
      .map(({ statement }) => statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
    expect(dynamoStatements.length).toBe(expectedFunctions.filter(({ access }) => access.table).length);
    for (const statement of dynamoStatements) {
      const resource = JSON.stringify(statement.Resource);
      if (actionsOf(statement).includes('dynamodb:Query')) {
        for (const index of tableDefinition.globalSecondaryIndexes) expect(resource).toContain(`/index/${index.indexName}`);
      } else {
        expect(resource).not.toContain('/index/');
      }
      expect(resource).not.toContain('*');
    }
    const scanners = dynamoStatements.filter((statement) => actionsOf(statement).includes('dynamodb:Scan'));
    expect(scanners).toHaveLength(1);
    expect(expectedFunctions.filter(({ access }) => access.table?.includes('Scan')).map(({ name }) => name)).toEqual(['project-expiry']);
    const batchGetters = expectedFunctions.filter(({ access }) => access.table?.includes('BatchGetItem')).map(({ name }) => name);
    expect(batchGetters).toEqual(['accounts', 'provisioning', 'mail-sends', 'mail-worker', 'mail-dead-letter-worker', 'bulk-worker', 'export-worker', 'provisioning-worker', 'provisioning-dead-letter-worker', 'mail-events-worker', 'bulk-upload-worker']);
    expect(dynamoStatements.filter((statement) => actionsOf(statement).includes('dynamodb:BatchGetItem'))).toHaveLength(batchGetters.length);
  });

  it.each(workers.map((w) => [w.worker, w] as const))(
    '%s consumes its queue (or dead-letter queue) with batch size and concurrency from shared/routes.ts, reporting partial failures',
    (worker, { queue, source, batchSize, maxConcurrency }) => {
      const [functionId] = appFunction(worker);
      const sourceId = statefulId('AWS::SQS::Queue', `${constructId(queue.name)}${source}`);
      const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
        ([, r]) => (r.Properties.FunctionName as { Ref: string }).Ref === functionId,
      );
      expect(mappings).toHaveLength(1);
      const [, mapping] = mappings[0]!;
      expect(mapping.Properties).toMatchObject({
        BatchSize: batchSize,
        ScalingConfig: { MaximumConcurrency: maxConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(refersTo(mapping.Properties.EventSourceArn, sourceId), `${worker} reads ${sourceId}`).toBe(true);

      // It may receive from that queue and no other.
      const receive = allStatements().filter(
        ({ roles, statement }) => roles.includes(roleOf(worker)) && actionsOf(statement).includes('sqs:ReceiveMessage'),
      );
      expect(receive).toHaveLength(1);
      expect(refersTo(receive[0]!.statement.Resource, sourceId)).toBe(true);
    },
  );

  it('workers hold at most thirty-two concurrent invocations in all without provisioningWorkers, the figure docs/deploy.md (API throttling) gives: the rest of the account is the API\'s', () => {
    const caps = ofType('AWS::Lambda::EventSourceMapping').map(([, r]) => (r.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency);
    expect(caps).toHaveLength(workers.length);
    // Every event source is capped: one without a cap could scale to the account's limit.
    expect(caps.every((cap) => typeof cap === 'number')).toBe(true);
    expect(caps.reduce((sum: number, cap) => sum + cap!, 0)).toBe(32);
  });

  it('event source mappings exist only for queues with a worker and dead-letter queues with a dead-letter worker', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', workers.length);
  });

  it.each(expectedFunctions.map(({ name }) => [name]))('%s: bundled by esbuild into an ESM file with source map', (name) => {
    const [, fn] = appFunction(name);
    const assetDir = path.join(assembly.directory, `asset.${fn.Code.S3Key.replace(/\.zip$/, '')}`);
    expect(existsSync(path.join(assetDir, 'index.mjs')), assetDir).toBe(true);
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const bundle = readFileSync(path.join(assetDir, 'index.mjs'), 'utf8');
    expect(bundle.startsWith("import { createRequire } from 'node:module';")).toBe(true);
    // Budget guard: an accidental import of a whole SDK or a browser library shows up here.
    expect(statSync(path.join(assetDir, 'index.mjs')).size).toBeLessThan(3 * 1024 * 1024);
  });
});

describe('stack size', () => {
  // CloudFormation refuses a stack of more than 500 resources: each stack keeps room for growth.
  it.each([
    ['stateless', () => resources],
    ['stateful', () => statefulResources],
    ['monitoring', () => Template.fromStack(built.monitoring).toJSON().Resources as Resources],
  ] as const)('the %s stack keeps under 450 of the 500 resources a stack may hold', (_name, of) => {
    expect(Object.keys(of()).length).toBeLessThan(450);
  });

  it('API Gateway may invoke each route group function through one permission scoped to this API, not one per route', () => {
    const permissions = ofType('AWS::Lambda::Permission')
      .map(([, r]) => r.Properties)
      .filter((p) => p.Principal === 'apigateway.amazonaws.com');
    expect(permissions).toHaveLength(routeGroups.length);
    const apiId = ofType('AWS::ApiGatewayV2::Api')[0]![0];
    for (const permission of permissions) {
      const arn = JSON.stringify(permission.SourceArn);
      expect(arn).toContain(apiId);
      expect(arn).toContain('/*/*/*');
    }
  });
});

describe('HTTP API', () => {
  it('has exactly the routes of shared/routes.ts', () => {
    const routeKeys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(routeKeys.sort()).toEqual(routes.map(routeKey).sort());
  });

  it.each(routes.map((route) => [routeKey(route), route] as const))('%s: authorization and target from the route table', (key, route) => {
    const [, apiRoute] = ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === key)!;
    if (route.auth === 'jwt') {
      expect(apiRoute.Properties).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: expect.stringMatching(/CognitoAuthorizer/) as unknown },
        AuthorizationScopes: [accessTokenScope],
      });
    } else {
      expect(apiRoute.Properties.AuthorizationType).toBe('NONE');
      expect(apiRoute.Properties.AuthorizerId).toBeUndefined();
    }
    // Target -> integration -> the function of the route's group.
    const target = JSON.stringify(apiRoute.Properties.Target);
    const integrationId = /"Ref":"([A-Za-z0-9]+)"/.exec(target)![1]!;
    const integration = resources[integrationId]!;
    expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
    const [functionId] = appFunction(route.group);
    expect(JSON.stringify(integration.Properties.IntegrationUri)).toContain(`"${functionId}"`);
  });

  it('billing: checkout and portal sessions need a user token; the webhook has none (its Stripe signature authenticates it)', () => {
    const expected: Record<string, string> = {
      'POST /api/subscription/create-checkout': 'JWT',
      'POST /api/subscription/create-portal': 'JWT',
      'POST /api/stripe/webhook': 'NONE',
    };
    const [billingFunctionId] = appFunction('billing');
    for (const [key, authorizationType] of Object.entries(expected)) {
      const found = ofType('AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties.RouteKey === key);
      expect(found, key).toHaveLength(1);
      const [, apiRoute] = found[0]!;
      expect(apiRoute.Properties.AuthorizationType, key).toBe(authorizationType);
      expect(apiRoute.Properties.AuthorizerId === undefined, key).toBe(authorizationType === 'NONE');
      const integrationId = /"Ref":"([A-Za-z0-9]+)"/.exec(JSON.stringify(apiRoute.Properties.Target))![1]!;
      expect(JSON.stringify(resources[integrationId]!.Properties.IntegrationUri), key).toContain(`"${billingFunctionId}"`);
    }
  });

  it('JWT authorizer: the user pool, the web client as audience, the Authorization header', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
    });
    const [, authorizer] = ofType('AWS::ApiGatewayV2::Authorizer')[0]!;
    const jwt = authorizer.Properties.JwtConfiguration as { Audience: unknown[]; Issuer: { 'Fn::Join': [string, unknown[]] } };
    // Audience: the web client of this app's pool, and nothing else.
    expect(jwt.Audience).toHaveLength(1);
    expect(refersTo(jwt.Audience[0], statefulId('AWS::Cognito::UserPoolClient', 'UserPoolWebClient'))).toBe(true);
    // Issuer: this region's Cognito endpoint followed by this app's pool id.
    const [separator, parts] = jwt.Issuer['Fn::Join'];
    expect(separator).toBe('');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe('https://cognito-idp.eu-west-1.amazonaws.com/');
    expect(refersTo(parts[1], statefulId('AWS::Cognito::UserPool', 'UserPool'))).toBe(true);
  });

  it('default stage: throttled (burst 400, rate 200) and access-logged', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: stageThrottle.burstLimit, ThrottlingRateLimit: stageThrottle.rateLimit },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
    expect(stageThrottle).toEqual({ rateLimit: 200, burstLimit: 400 });
  });

  it('polled and heavy routes have their own, lower limits, each naming a route of shared/routes.ts', () => {
    const [, stage] = ofType('AWS::ApiGatewayV2::Stage')[0]!;
    const keys = new Set(routes.map(routeKey));
    expect(Object.keys(routeThrottles).filter((key) => !keys.has(key))).toEqual([]);
    expect(Object.keys(routeThrottles)).toEqual(expect.arrayContaining(['GET /api/bulk-jobs/{id}', 'GET /api/notifications']));
    expect(stage.Properties.RouteSettings).toEqual(
      Object.fromEntries(
        Object.entries(routeThrottles).map(([key, throttle]) => [key, { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit }]),
      ),
    );
    for (const throttle of Object.values(routeThrottles)) expect(throttle.rateLimit).toBeLessThan(stageThrottle.rateLimit);
    // CloudFormation creates those routes before the stage that names them.
    const stageEntry = Object.entries(template.toJSON().Resources as Record<string, { Type: string; DependsOn?: string[] }>).find(([, r]) => r.Type === 'AWS::ApiGatewayV2::Stage')!;
    const routeIds = Object.keys(routeThrottles).map((key) => ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === key)![0]);
    for (const id of routeIds) expect(stageEntry[1].DependsOn, id).toContain(id);
  });
});

describe('web app', () => {
  const distributionConfig = (): Record<string, unknown> =>
    ofType('AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig as Record<string, unknown>;

  it('CloudFront serves index.html, logs access, and sends /api/* uncached to the HTTP API', () => {
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    expect(distributionConfig()).toMatchObject({
      DefaultRootObject: 'index.html',
      Logging: { Bucket: expect.anything() as unknown, Prefix: 'cloudfront/' },
      CacheBehaviors: [
        {
          PathPattern: '/api/*',
          CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
          OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
          AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
          ViewerProtocolPolicy: 'https-only',
        },
      ],
    });
    const apiOrigin = JSON.stringify((distributionConfig().Origins as unknown[])[1]);
    expect(apiOrigin).toMatch(/\{"Ref":"ApiHttpApi[A-Z0-9]+"\},"\.execute-api\.eu-west-1\.",\{"Ref":"AWS::URLSuffix"\}/);
    expect(apiOrigin).toContain('"TLSv1.2"');
  });

  it('SPA fallback is a viewer-request function on the web origin only, not error responses', () => {
    const config = distributionConfig();
    expect(config.CustomErrorResponses).toBeUndefined();
    expect(config.DefaultCacheBehavior).toMatchObject({
      FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: expect.anything() as unknown }],
      ViewerProtocolPolicy: 'redirect-to-https',
    });
    expect((config.CacheBehaviors as Record<string, unknown>[])[0]!.FunctionAssociations).toBeUndefined();
  });

  it('the SPA function rewrites client-side routes to /index.html and leaves files alone', () => {
    const [, fn] = ofType('AWS::CloudFront::Function')[0]!;
    // The CloudFront Functions code is plain JS; evaluate it in-process.
    const handler = new Function(`${fn.Properties.FunctionCode as string}; return handler;`)() as (event: {
      request: { uri: string };
    }) => { uri: string };
    const rewrite = (uri: string) => handler({ request: { uri } }).uri;
    expect(rewrite('/')).toBe('/index.html');
    expect(rewrite('/projects')).toBe('/index.html');
    expect(rewrite('/projects/123/accounts')).toBe('/index.html');
    expect(rewrite('/assets/index-abc123.js')).toBe('/assets/index-abc123.js');
    expect(rewrite('/config.json')).toBe('/config.json');
  });

  it('the web bucket is private and read through origin access control', () => {
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    const origins = distributionConfig().Origins as Record<string, unknown>[];
    expect(origins[0]).toMatchObject({ OriginAccessControlId: expect.anything() as unknown, S3OriginConfig: { OriginAccessIdentity: '' } });
  });

  it('security headers on every behaviour', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: Match.objectLike({
          StrictTransportSecurity: Match.objectLike({ AccessControlMaxAgeSec: 31536000 }),
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ContentSecurityPolicy: Match.objectLike({ Override: true }),
        }),
      },
    });
    const config = distributionConfig();
    const policyIds = [config.DefaultCacheBehavior, ...(config.CacheBehaviors as unknown[])].map((behavior) =>
      JSON.stringify((behavior as Record<string, unknown>).ResponseHeadersPolicyId),
    );
    expect(new Set(policyIds).size).toBe(1);
    expect(policyIds[0]).toContain('SecurityHeaders');
  });

  it('deploys /config.json matching shared/app-config.ts (SRP against AWS)', () => {
    const configAsset = readdirSync(assembly.directory)
      .map((entry) => path.join(assembly.directory, entry, 'config.json'))
      .find((file) => existsSync(file));
    expect(configAsset).toBeDefined();
    // Deploy-time values are markers in the asset, filled in by the deployment handler.
    const config = appConfigSchema.parse(JSON.parse(readFileSync(configAsset!, 'utf8')));
    expect(config).toMatchObject({ region: 'eu-west-1', authFlow: 'USER_PASSWORD_AUTH', stage: 'aws' });
    expect(config.userPoolEndpoint).toBeUndefined();
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DistributionPaths: ['/*'],
      Exclude: ['assets/*'],
      SourceMarkers: Match.arrayWith([Match.objectLike({})]),
    });
  });

  it('hashed assets are cached for a year, index.html and config.json revalidated', () => {
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      Include: ['assets/*'],
      Prune: false,
      SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
    });
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      Exclude: ['assets/*'],
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
  });

  it('outputs the app URL and the API URL', () => {
    template.hasOutput('AppUrl', {});
    template.hasOutput('ApiUrl', {});
  });
});
