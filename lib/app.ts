import { Annotations, Tags, Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { AppSettings, SettingsWarning } from './settings';
import { MonitoringStack } from './monitoring-stack';
import { StatefulStack } from './stateful-stack';
import { StatelessStack } from './stateless-stack';

export interface BuiltApp {
  stateful: StatefulStack;
  stateless: StatelessStack;
  monitoring: MonitoringStack;
}

/**
 * Adds the three stacks to `app` and puts every resource under cdk-nag's AWS Solutions checks
 * (an unacknowledged finding fails synthesis). bin/app.ts and the infra tests both build the
 * app through here.
 */
export function buildApp(app: App, settings: AppSettings, warnings: readonly SettingsWarning[] = []): BuiltApp {
  const env = { account: settings.account, region: settings.region };

  const stateful = new StatefulStack(app, `${settings.prefix}-stateful`, {
    env,
    settings,
    description: `${settings.prefix}: data (table, buckets, user pool, queues, mail identity); retained on deletion`,
  });
  const stateless = new StatelessStack(app, `${settings.prefix}-stateless`, {
    env,
    settings,
    resources: stateful.resources,
    accessLogsBucket: stateful.accessLogsBucket,
    description: `${settings.prefix}: functions, HTTP API and web app`,
  });
  const monitoring = new MonitoringStack(app, `${settings.prefix}-monitoring`, {
    env,
    settings,
    functions: stateless.monitoredFunctions(),
    deadLetterQueues: stateful.resources.deadLetterQueues,
    cognitoTrigger: stateful.resources.cognitoTrigger,
    api: stateless.api.api,
    description: `${settings.prefix}: alarms on the functions, queues and API, and their SNS topic`,
  });

  Tags.of(app).add('app', settings.prefix);
  for (const { id, message } of warnings) Annotations.of(app).addWarningV2(id, message);

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { stateful, stateless, monitoring };
}
