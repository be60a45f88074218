import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarmAction,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { constructId } from '../construct-id';

export interface MonitoredFunction {
  /** Short name ('bulk', 'mail-worker'). */
  name: string;
  function: IFunction;
  logGroup: ILogGroup;
  timeout: Duration;
}

export interface MonitoringProps {
  prefix: string;
  /**
   * The user pool's trigger (it lives in the stateful stack with the pool): its failures fail
   * users' sign-ins and password resets, so it has the functions' alarms and one of its own.
   */
  cognitoTrigger?: MonitoredFunction;
  /** Receives every alarm by e-mail; none: the topic has no subscriber (synth warns). */
  alarmEmail: string | undefined;
  functions: readonly MonitoredFunction[];
  deadLetterQueues: Record<string, IQueue>;
  api: IHttpApi;
}

/** Log messages (functions/core) that mark a failure the code handled, so Lambda's Errors metric never counts it. */
export const failureLogMessages = {
  /** An API request answered 500 (functions/core/http.ts). */
  UnhandledErrors: 'Unhandled error',
  /** A queue record given back as a batch item failure (functions/core/queue-worker.ts). */
  FailedRecords: 'Record failed',
} as const;

/** What the Cognito trigger logs at ERROR when it fails other than by refusing a locked account (functions/security/sign-in-trigger.ts). */
export const triggerFailureMessage = 'Cognito trigger failed';

/** A function's maximum duration above this share of its timeout raises an alarm. */
export const durationAlarmShare = 0.8;
/** The API's 5xx answers above this percentage of its requests (over 5 minutes, at least 20 requests) raise an alarm. */
export const api5xxAlarmPercent = 5;

/**
 * Someone hears of failures: every handled failure is logged, counted by a metric filter, and
 * alarmed on, with the dead-letter queues, the API's 5xx rate and the functions' throttles and
 * near-timeouts, all to one SNS topic (e-mail subscription from the alarmEmail setting).
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly action: IAlarmAction;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);

    // SNS encrypts with a customer-managed key CloudWatch may use (the AWS-managed SNS key admits no other service).
    const key = new Key(this, 'TopicKey', {
      description: `${props.prefix}: encrypts the alarm topic`,
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'AlarmTopic', {
      topicName: `${props.prefix}-alarms`,
      displayName: `${props.prefix} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one, and enforceSSL's holds only its TLS Deny: without
    // this Allow CloudWatch cannot publish and every alarm reaches nobody. Only alarms of this
    // account and region (the confused-deputy conditions SNS documents for service principals).
    const stack = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        actions: ['sns:Publish'],
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.action = new SnsAction(this.topic);

    // A message moved to a dead-letter queue by SQS shows only in its visible count, and a queue
    // whose dead-letter worker drains it within the period shows it only as received; a message
    // the code sends there itself counts as sent. Any of the three raises the alarm.
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      const dlqPeriod = Duration.minutes(5);
      this.alarm(`${constructId(name)}DeadLetterQueue`, {
        description: `Messages of the ${name} queue could not be processed and were moved to its dead-letter queue (received there by its dead-letter worker, if it has one).`,
        metric: new MathExpression({
          expression: 'FILL(visible, 0) + FILL(received, 0) + FILL(sent, 0)',
          usingMetrics: {
            visible: queue.metricApproximateNumberOfMessagesVisible({ period: dlqPeriod, statistic: 'Maximum' }),
            received: queue.metricNumberOfMessagesReceived({ period: dlqPeriod, statistic: 'Sum' }),
            sent: queue.metricNumberOfMessagesSent({ period: dlqPeriod, statistic: 'Sum' }),
          },
          period: dlqPeriod,
          label: `${name} dead-letter messages`,
        }),
        threshold: 1,
      });
    }

    const period = Duration.minutes(5);
    const apiDimensions = { ApiId: props.api.apiId };
    const apiMetric = (metricName: string) =>
      new Metric({ namespace: 'AWS/ApiGateway', metricName, dimensionsMap: apiDimensions, statistic: 'Sum', period });
    this.alarm('Api5xxRate', {
      description: `More than ${api5xxAlarmPercent}% of API requests answered 5xx over 5 minutes.`,
      metric: new MathExpression({
        // Below 20 requests a single error is not a rate.
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: { errors: apiMetric('5xx'), requests: apiMetric('Count') },
        period,
        label: 'API 5xx (%)',
      }),
      threshold: api5xxAlarmPercent,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    for (const [metricName, message] of Object.entries(failureLogMessages)) {
      for (const fn of props.functions) {
        new MetricFilter(this, `${constructId(fn.name)}${metricName}Filter`, {
          logGroup: fn.logGroup,
          // Powertools writes one JSON object per line: level and message are fields.
          filterPattern: FilterPattern.all(FilterPattern.stringValue('$.level', '=', 'ERROR'), FilterPattern.stringValue('$.message', '=', message)),
          metricNamespace: props.prefix,
          metricName,
          metricValue: '1',
          defaultValue: 0,
        });
      }
      this.alarm(metricName, {
        description:
          metricName === 'UnhandledErrors'
            ? 'An API request failed with an unexpected error (answered 500); see the function logs.'
            : 'A queue record failed and was handed back for a retry; see the worker logs.',
        metric: new Metric({ namespace: props.prefix, metricName, statistic: 'Sum', period }),
        threshold: 1,
      });
    }

    if (props.cognitoTrigger) {
      const trigger = props.cognitoTrigger;
      new MetricFilter(this, `${constructId(trigger.name)}TriggerFailuresFilter`, {
        logGroup: trigger.logGroup,
        filterPattern: FilterPattern.all(FilterPattern.stringValue('$.level', '=', 'ERROR'), FilterPattern.stringValue('$.message', '=', triggerFailureMessage)),
        metricNamespace: props.prefix,
        metricName: 'CognitoTriggerFailures',
        metricValue: '1',
        defaultValue: 0,
      });
      this.alarm('CognitoTriggerFailures', {
        description: "The Cognito trigger failed (not a locked account's refusal): users' sign-ins or password resets failed with it; see the cognito-trigger logs.",
        metric: new Metric({ namespace: props.prefix, metricName: 'CognitoTriggerFailures', statistic: 'Sum', period }),
        threshold: 1,
      });
    }

    for (const fn of [...props.functions, ...(props.cognitoTrigger ? [props.cognitoTrigger] : [])]) {
      const id = constructId(fn.name);
      this.alarm(`${id}Throttles`, {
        description: `${fn.name}: Lambda throttled invocations (concurrency limit reached).`,
        metric: fn.function.metricThrottles({ period, statistic: 'Sum' }),
        threshold: 1,
      });
      this.alarm(`${id}NearTimeout`, {
        description: `${fn.name}: an invocation ran longer than ${durationAlarmShare * 100}% of its ${fn.timeout.toSeconds()} s timeout.`,
        metric: fn.function.metricDuration({ period, statistic: 'Maximum' }),
        threshold: Math.round(fn.timeout.toMilliseconds() * durationAlarmShare),
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
  }

  private alarm(
    id: string,
    options: { description: string; metric: Metric | MathExpression; threshold: number; comparison?: ComparisonOperator },
  ): void {
    const alarm = new Alarm(this, `${id}Alarm`, {
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: 1,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data means nothing happened (no messages, no requests, no errors logged).
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
  }
}
