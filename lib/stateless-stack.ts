import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { groupAccess, queues, routeGroups, routes, workerAccess, type QueueDefinition, type RouteGroup } from '../shared/routes';
import type { AppResources } from './app-resources';
import { constructId } from './construct-id';
import { AppFunction } from './constructs/app-function';
import { AppHttpApi } from './constructs/http-api';
import { WebApp } from './constructs/web-app';
import type { AppSettings } from './settings';

export interface StatelessStackProps extends StackProps {
  settings: AppSettings;
  resources: AppResources;
  accessLogsBucket: IBucket;
}

/**
 * Code and routing, all derived from shared/routes.ts: one function per route group, one per
 * queue worker, the HTTP API, and the web app on CloudFront. Holds no data.
 */
export class StatelessStack extends Stack {
  readonly functions: Record<RouteGroup, AppFunction>;
  readonly workers: AppFunction[] = [];
  readonly api: AppHttpApi;
  readonly web: WebApp;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { settings, resources } = props;

    this.functions = this.createRouteGroupFunctions(settings, resources);
    for (const queue of queues) this.createWorker(queue, settings, resources);

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
      config: {
        region: this.region,
        userPoolId: resources.userPool.userPoolId,
        userPoolClientId: resources.webClient.userPoolClientId,
        authFlow: 'USER_SRP_AUTH',
        stage: 'aws',
      },
    });

    const appUrl = `https://${this.web.distribution.distributionDomainName}`;
    // Links in e-mails point at the web app.
    for (const fn of [...Object.values<AppFunction>(this.functions), ...this.workers]) fn.function.addEnvironment('APP_URL', appUrl);

    new CfnOutput(this, 'AppUrl', { value: appUrl });
    new CfnOutput(this, 'ApiUrl', { value: this.api.api.apiEndpoint });
    new CfnOutput(this, 'DistributionId', { value: this.web.distribution.distributionId });
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
      });
      fn.grantAccess(groupAccess[group]);
      created[group] = fn;
    }
    return created;
  }

  /** functions/workers/<worker>.ts consuming its queue, reporting partial batch failures. */
  private createWorker(queue: QueueDefinition, settings: AppSettings, resources: AppResources): void {
    if (!queue.worker) return;
    const fn = new AppFunction(this, `${constructId(queue.worker)}Function`, {
      name: queue.worker,
      entry: `functions/workers/${queue.worker}.ts`,
      description: `Worker of the ${queue.name} queue`,
      settings,
      resources,
      timeout: workerTimeout(queue),
    });
    fn.grantAccess(workerAccess[queue.worker]);
    fn.function.addEventSource(
      new SqsEventSource(resources.queues[queue.name], {
        batchSize: queue.batchSize,
        // Lambda requires a batching window above 10 messages per batch.
        maxBatchingWindow: queue.batchSize > 10 ? Duration.seconds(1) : undefined,
        reportBatchItemFailures: true,
      }),
    );
    this.workers.push(fn);
  }
}

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
