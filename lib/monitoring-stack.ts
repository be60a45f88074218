import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Monitoring, type MonitoringProps } from './constructs/monitoring';
import type { AppSettings } from './settings';

export interface MonitoringStackProps extends StackProps, Omit<MonitoringProps, 'prefix' | 'alarmEmail'> {
  settings: AppSettings;
}

/**
 * The alarms, their metric filters and their SNS topic, beside the stacks they watch: four
 * resources per function would otherwise fill the stateless stack's 500 (docs/deploy.md, "Stack
 * size"). It reads the other stacks' names and ARNs through weak references, like the stateless
 * stack reads the stateful one, and holds no data.
 */
export class MonitoringStack extends Stack {
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    const { settings, functions, deadLetterQueues, cognitoTrigger, api } = props;
    this.monitoring = new Monitoring(this, 'Monitoring', {
      prefix: settings.prefix,
      alarmEmail: settings.alarmEmail,
      functions,
      deadLetterQueues,
      cognitoTrigger,
      api,
    });
  }
}
