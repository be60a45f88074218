import { CfnOutput, Duration, Size, Stack, type StackProps } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnSchedule } from 'aws-cdk-lib/aws-scheduler';
import {
  groupAccess,
  queues,
  routeGroups,
  routes,
  scheduleAccess,
  schedules,
  workerAccess,
  type QueueDefinition,
  type RouteGroup,
  type ScheduleName,
  type WorkerName,
} from '../shared/routes';
import type { AppResources } from './app-resources';
import { constructId } from './construct-id';
import { layerPackagesOf } from './package-layer';
import { AppFunction } from './constructs/app-function';
import { AppHttpApi } from './constructs/http-api';
import type { MonitoredFunction } from './constructs/monitoring';
import { WebApp } from './constructs/web-app';
import type { AppSettings } from './settings';

export interface StatelessStackProps extends StackProps {
  settings: AppSettings;
  resources: AppResources;
  accessLogsBucket: IBucket;
}

/**
 * Code and routing, all derived from shared/routes.ts: one function per route group, one per
 * queue worker and dead-letter worker, the HTTP API, and the web app on CloudFront. Holds no data.
 */
export class StatelessStack extends Stack {
  readonly functions: Record<RouteGroup, AppFunction>;
  readonly workers: Partial<Record<WorkerName, AppFunction>> = {};
  readonly scheduled: Partial<Record<ScheduleName, AppFunction>> = {};
  readonly api: AppHttpApi;
  readonly web: WebApp;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { settings, resources } = props;

    this.functions = this.createRouteGroupFunctions(settings, resources);
    for (const queue of queues) {
      if (queue.worker) {
        this.createWorker(queue.worker, queue, resources.queues[queue.name], `Worker of the ${queue.name} queue`, settings, resources);
      }
      if (queue.deadLetterWorker) {
        this.createWorker(
          queue.deadLetterWorker,
          queue,
          resources.deadLetterQueues[queue.name],
          `Worker of the ${queue.name} dead-letter queue`,
          settings,
          resources,
        );
      }
    }

    this.createScheduledFunctions(settings, resources);

    this.api = new AppHttpApi(this, 'Api', {
      prefix: settings.prefix,
      userPool: resources.userPool,
      webClient: resources.webClient,
      routes,
      handlers: mapRecord(this.functions, (fn): IFunction => fn.function),
    });

    this.web = new WebApp(this, 'Web', {
      assetsPath: settings.webAssetsPath,
      apiId: this.api.api.apiId,
      accessLogsBucket: props.accessLogsBucket,
      uploadOrigins: [`https://${resources.exportBucket.bucketRegionalDomainName}`],
      config: {
        region: this.region,
        userPoolId: resources.userPool.userPoolId,
        userPoolClientId: resources.webClient.userPoolClientId,
        // The browser signs in through the API, which uses USER_PASSWORD_AUTH (lib/stateful-stack.ts).
        authFlow: 'USER_PASSWORD_AUTH',
        stage: 'aws',
      },
    });

    const appUrl = `https://${this.web.distribution.distributionDomainName}`;
    // Links in e-mails point at the web app.
    for (const fn of [...Object.values<AppFunction>(this.functions), ...Object.values<AppFunction>(this.workers), ...Object.values<AppFunction>(this.scheduled)]) {
      fn.function.addEnvironment('APP_URL', appUrl);
    }

    new CfnOutput(this, 'AppUrl', { value: appUrl });
    new CfnOutput(this, 'ApiUrl', { value: this.api.api.apiEndpoint });
    new CfnOutput(this, 'DistributionId', { value: this.web.distribution.distributionId });
  }

  /** Every function of this stack, for the alarms of the monitoring stack (lib/monitoring-stack.ts). */
  monitoredFunctions(): MonitoredFunction[] {
    return [...Object.values<AppFunction>(this.functions), ...Object.values<AppFunction>(this.workers), ...Object.values<AppFunction>(this.scheduled)].map((fn) => ({
      name: fn.name,
      function: fn.function,
      logGroup: fn.logGroup,
      timeout: fn.timeout,
    }));
  }

  /**
   * functions/schedules/<name>.ts for every schedule of shared/routes.ts, started by an
   * EventBridge Scheduler schedule (UTC) with the access of scheduleAccess. A failed start is
   * retried twice by the scheduler; the run itself only queues messages, so it is quick.
   */
  private createScheduledFunctions(settings: AppSettings, resources: AppResources): void {
    for (const definition of schedules) {
      const fn = new AppFunction(this, `${constructId(definition.name)}Function`, {
        name: definition.name,
        entry: `functions/schedules/${definition.name}.ts`,
        description: definition.description,
        settings,
        resources,
        timeout: Duration.minutes(5),
      });
      fn.grantAccess(scheduleAccess[definition.name]);
      // Its own role, allowed to invoke this function and nothing else (the L2 target would also
      // grant every version of it, `<arn>:*`, which nothing here uses).
      const role = new Role(this, `${constructId(definition.name)}ScheduleRole`, { assumedBy: new ServicePrincipal('scheduler.amazonaws.com') });
      role.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.function.functionArn] }));
      new CfnSchedule(this, `${constructId(definition.name)}Schedule`, {
        name: `${settings.prefix}-${definition.name}`,
        description: definition.description,
        scheduleExpression: definition.expression,
        scheduleExpressionTimezone: 'UTC',
        state: 'ENABLED',
        flexibleTimeWindow: { mode: 'OFF' },
        target: { arn: fn.function.functionArn, roleArn: role.roleArn, retryPolicy: { maximumRetryAttempts: 2 } },
      });
      this.scheduled[definition.name] = fn;
    }
  }

  /** functions/<group>/handler.ts for every route group, with the access of groupAccess. */
  private createRouteGroupFunctions(settings: AppSettings, resources: AppResources): Record<RouteGroup, AppFunction> {
    const created = {} as Record<RouteGroup, AppFunction>;
    for (const group of routeGroups) {
      const fn = new AppFunction(this, `${constructId(group)}Function`, {
        name: group,
        entry: `functions/${group}/handler.ts`,
        description: `API routes of the ${group} group`,
        settings,
        resources,
        layerPackages: layerPackagesOf[group],
        timeout: groupTimeouts[group],
        memorySize: groupMemory[group],
      });
      fn.grantAccess(groupAccess[group]);
      created[group] = fn;
    }
    return created;
  }

  /**
   * functions/workers/<worker>.ts consuming `source` (the queue, or its dead-letter queue for a
   * deadLetterWorker), reporting partial batch failures, with the access of workerAccess.
   * A dead-letter worker takes one message at a time; a message it fails stays in the
   * dead-letter queue (retention 14 days) and comes back after the visibility timeout.
   */
  private createWorker(
    worker: WorkerName,
    queue: QueueDefinition,
    source: IQueue,
    description: string,
    settings: AppSettings,
    resources: AppResources,
  ): void {
    if (this.workers[worker]) throw new Error(`worker ${worker} consumes more than one queue`);
    const isDeadLetterWorker = worker === queue.deadLetterWorker;
    const batchSize = isDeadLetterWorker ? 1 : queue.batchSize;
    const maxConcurrency = isDeadLetterWorker ? deadLetterMaxConcurrency : workerConcurrency(queue, settings);
    const fn = new AppFunction(this, `${constructId(worker)}Function`, {
      name: worker,
      entry: `functions/workers/${worker}.ts`,
      description,
      settings,
      resources,
      // Dead-letter queues have their queue's visibility timeout (stateful stack), so the same bound holds.
      timeout: workerTimeout(queue),
      memorySize: workerMemorySize,
      ephemeralStorageSize: workerEphemeralStorage[worker],
      layerPackages: layerPackagesOf[worker],
    });
    fn.grantAccess(workerAccess[worker]);
    fn.function.addEventSource(
      new SqsEventSource(source, {
        batchSize,
        // Lambda requires a batching window above 10 messages per batch.
        maxBatchingWindow: batchSize > 10 ? Duration.seconds(1) : undefined,
        // Lambda's maximumConcurrency (2-1000): at most this many invocations poll the queue at once.
        maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    this.workers[worker] = fn;
  }
}

/**
 * A queue's workers at most: its definition's (shared/routes.ts), but the provisioning queue's is
 * the deploy setting provisioningWorkers when set (docs/capacity.md: one per customer whose
 * platform is called at once).
 */
export function workerConcurrency(queue: QueueDefinition, settings: Pick<AppSettings, 'provisioningWorkers'>): number {
  return queue.name === 'provisioning' && settings.provisioningWorkers !== undefined ? settings.provisioningWorkers : queue.maxConcurrency;
}

/** Dead-letter workers record rare leftovers: the least concurrency Lambda allows (2). */
export const deadLetterMaxConcurrency = 2;

/**
 * Workers get more memory than API functions (and with it proportionally more CPU): the bulk
 * worker generates and encrypts 500 passwords per message and writes them in batches.
 */
export const workerMemorySize = 1024;

/**
 * Workers given more /tmp than Lambda's default 512 MiB. The export worker writes each export to
 * a temporary file before its one PUT (functions/exports/export-upload.ts): a project's 250,000
 * rows are ~30-40 MB as CSV, about twice that as JSON, ~15 MB as xlsx; the zip of Export All Data
 * holds every project's accounts twice (CSV and JSON), compressed. What the worker can write in
 * its 150 s at all (`npm run bench -- exports`: 100,000 CSV rows, 12.7 MB, in ~8 s of its share of
 * a vCPU) stays within a few hundred MB; 2 GiB holds that, and a file an invocation cut off by its
 * timeout left behind (removed 15 minutes later). /tmp above 512 MiB is billed per GB-second, a
 * small fraction of the memory's price.
 */
export const workerEphemeralStorage: Partial<Record<WorkerName, Size>> = { 'export-worker': Size.gibibytes(2) };

/** Route groups given more than the default 512 MB (and with it proportionally more CPU). */
export const groupMemory: Partial<Record<RouteGroup, number>> = {};

/**
 * Route groups that wait on someone else's server get longer than the default 10 s: the
 * integration test may make two outbound calls (OAuth token, then the API) of up to 10 s each.
 * API Gateway's HTTP API gives up after 30 s, so nothing may take longer than 29.
 */
export const groupTimeouts: Partial<Record<RouteGroup, Duration>> = { integrations: Duration.seconds(25), provisioning: Duration.seconds(25) };

/**
 * A sixth of the queue's visibility timeout (AWS's advice, so throttled retries do not make a
 * message visible again while a batch is still running): at least 10 s, but never above the
 * visibility timeout (Lambda rejects that) nor 15 min.
 */
export function workerTimeout(queue: QueueDefinition): Duration {
  const visibility = queue.visibilityTimeoutSeconds;
  return Duration.seconds(Math.min(900, visibility, Math.max(10, Math.floor(visibility / 6))));
}

function mapRecord<K extends string, A, B>(record: Record<K, A>, map: (value: A) => B): Record<K, B> {
  return Object.fromEntries(Object.entries<A>(record).map(([key, value]) => [key, map(value)])) as Record<K, B>;
}
