import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { constructId } from '../../lib/construct-id';
import { api5xxAlarmPercent, durationAlarmShare, failureLogMessages, triggerFailureMessage } from '../../lib/constructs/monitoring';
import { TRIGGER_FAILED_MESSAGE } from '../../functions/security/sign-in-trigger';
import { projectRoot } from '../../lib/settings';
import { queues, routeGroups, schedules } from '../../shared/routes';
import { buildTestApp, testEnv, type SynthesizedApp } from './synth-app';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
type Resources = Record<string, Resource>;

let built: SynthesizedApp;
/** The monitoring stack's. */
let resources: Resources;
let statelessResources: Resources;
let statefulResources: Resources;

beforeAll(() => {
  built = buildTestApp({ skipBundling: true, env: { ...testEnv, ALARM_EMAIL: 'ops@bulkonboard.test' } });
  resources = Template.fromStack(built.monitoring).toJSON().Resources as Resources;
  statelessResources = Template.fromStack(built.stateless).toJSON().Resources as Resources;
  statefulResources = Template.fromStack(built.stateful).toJSON().Resources as Resources;
});

const ofType = (type: string, from: Resources = resources) => Object.entries(from).filter(([, r]) => r.Type === type);
const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([id, r]) => ({ id, ...r.Properties }) as Record<string, unknown> & { id: string });
const alarmNamed = (prefix: string) => {
  const found = alarms().filter((alarm) => alarm.id.startsWith(`Monitoring${prefix}Alarm`));
  expect(found, prefix).toHaveLength(1);
  return found[0]!;
};
const topicId = () => ofType('AWS::SNS::Topic')[0]![0];
const functionNames = [...routeGroups, ...queues.flatMap((q) => [q.worker, q.deadLetterWorker].filter((w) => w !== undefined)), ...schedules.map((s) => s.name)];
/** A value of the stateless stack read by the monitoring stack: a weak reference to the output the stateless stack publishes. */
const fromStateless = (logicalId: string) => ({
  'Fn::GetStackOutput': { StackName: 'bulkonboard-stateless', Region: testEnv.CDK_DEFAULT_REGION, OutputName: expect.stringMatching(new RegExp(`^PublishOutputRef${logicalId}[0-9A-F]{8}$`)) as unknown },
});
const functionId = (name: string) =>
  ofType('AWS::Lambda::Function', statelessResources).find(([, r]) => r.Properties.FunctionName === `bulkonboard-${name}`)![0];

describe('alarms (issue 10: someone hears of failures)', () => {
  it('one encrypted, TLS-only SNS topic, with the alarmEmail setting subscribed', () => {
    const topics = ofType('AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    expect(topics[0]![1].Properties).toMatchObject({ TopicName: 'bulkonboard-alarms', KmsMasterKeyId: expect.anything() as unknown });
    const subscriptions = ofType('AWS::SNS::Subscription').map(([, r]) => r.Properties);
    expect(subscriptions).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@bulkonboard.test', TopicArn: { Ref: topicId() } })]);
    const policy = ofType('AWS::SNS::TopicPolicy')[0]![1].Properties;
    expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
    // CloudWatch may use the topic's key.
    const key = ofType('AWS::KMS::Key')[0]![1].Properties;
    expect(JSON.stringify(key.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
  });

  it("CloudWatch may publish to the topic, only for alarms of this account and region; nothing else is allowed and TLS stays required", () => {
    const policy = ofType('AWS::SNS::TopicPolicy')[0]![1].Properties as { Topics: unknown[]; PolicyDocument: { Statement: Record<string, unknown>[] } };
    expect(policy.Topics).toEqual([{ Ref: topicId() }]);
    const allows = policy.PolicyDocument.Statement.filter((statement) => statement.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Sid: 'CloudWatchAlarmsPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topicId() },
        Condition: {
          StringEquals: { 'aws:SourceAccount': testEnv.CDK_DEFAULT_ACCOUNT },
          ArnLike: { 'aws:SourceArn': `arn:aws:cloudwatch:${testEnv.CDK_DEFAULT_REGION}:${testEnv.CDK_DEFAULT_ACCOUNT}:alarm:*` },
        },
      },
    ]);
    const denies = policy.PolicyDocument.Statement.filter((statement) => statement.Effect === 'Deny');
    expect(denies).toHaveLength(1);
    expect(denies[0]).toMatchObject({ Principal: '*', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  });

  it('without alarmEmail: the topic and alarms exist, nobody is subscribed, and synth warns', () => {
    const { monitoring, warnings } = buildTestApp({ skipBundling: true });
    const template = Template.fromStack(monitoring);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    expect(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).length).toBe(alarms().length);
    expect(warnings.map((warning) => warning.id)).toContain('bulkonboard:alarmEmailMissing');
  });

  it('every alarm notifies the topic when it fires and when it clears, and treats missing data as fine', () => {
    // + the Cognito trigger's failures, throttles and near-timeout alarms.
    expect(alarms().length).toBe(queues.length + 1 + Object.keys(failureLogMessages).length + 2 * functionNames.length + 3);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions, alarm.id).toEqual([{ Ref: topicId() }]);
      expect(alarm.OKActions, alarm.id).toEqual([{ Ref: topicId() }]);
      expect(alarm.TreatMissingData, alarm.id).toBe('notBreaching');
      expect(alarm.EvaluationPeriods, alarm.id).toBe(1);
    }
  });

  it.each(queues.map((queue) => [queue.name]))('the %s dead-letter queue: any message moved there, received there (a drained queue) or sent there raises an alarm', (name) => {
    const alarm = alarmNamed(`${constructId(name)}DeadLetterQueue`);
    const deadLetterId = Object.keys(statefulResources).find((id) => new RegExp(`^${constructId(name)}DeadLetterQueue[0-9A-F]{8}$`).test(id))!;
    expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const metrics = alarm.Metrics as { Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: unknown }; Stat: string; Period: number } }[];
    expect(metrics.find((m) => m.Expression)!.Expression).toBe('FILL(visible, 0) + FILL(received, 0) + FILL(sent, 0)');
    const stats = Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat!]));
    expect(stats.visible).toMatchObject({ Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible' }, Stat: 'Maximum', Period: 300 });
    expect(stats.received).toMatchObject({ Metric: { Namespace: 'AWS/SQS', MetricName: 'NumberOfMessagesReceived' }, Stat: 'Sum', Period: 300 });
    expect(stats.sent).toMatchObject({ Metric: { Namespace: 'AWS/SQS', MetricName: 'NumberOfMessagesSent' }, Stat: 'Sum', Period: 300 });
    for (const stat of Object.values(stats)) expect(JSON.stringify(stat.Metric.Dimensions)).toContain(`PublishOutputFnGetAtt${deadLetterId}QueueName`);
  });

  it("the Cognito trigger (stateful stack): a metric filter on its log group counts its failures (not a locked account's refusal), one alarm fires on the first, and it has the throttle and near-timeout alarms", () => {
    const triggerId = ofType('AWS::Lambda::Function', statefulResources).find(([, r]) => r.Properties.FunctionName === 'bulkonboard-cognito-trigger')![0];
    const filters = ofType('AWS::Logs::MetricFilter')
      .map(([, r]) => r.Properties)
      .filter((filter) => JSON.stringify(filter.MetricTransformations).includes('"MetricName":"CognitoTriggerFailures"'));
    expect(filters).toHaveLength(1);
    expect(filters[0]!.FilterPattern).toBe(`{ ($.level = "ERROR") && ($.message = "${triggerFailureMessage}") }`);
    expect(JSON.stringify(filters[0]!.LogGroupName)).toContain('CognitoTriggerFunctionLogGroup');
    expect(alarmNamed('CognitoTriggerFailures')).toMatchObject({ Namespace: 'bulkonboard', MetricName: 'CognitoTriggerFailures', Statistic: 'Sum', Threshold: 1 });
    for (const kind of ['Throttles', 'NearTimeout']) {
      const alarm = alarmNamed(`${constructId('cognito-trigger')}${kind}`);
      expect(JSON.stringify(alarm.Dimensions), kind).toContain(triggerId);
    }
  });

  it(`the API: more than ${api5xxAlarmPercent}% 5xx over 5 minutes (from 20 requests)`, () => {
    const alarm = alarmNamed('Api5xxRate');
    expect(alarm).toMatchObject({ Threshold: api5xxAlarmPercent, ComparisonOperator: 'GreaterThanThreshold' });
    const metrics = alarm.Metrics as { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: unknown } } }[];
    expect(metrics.find((m) => m.Expression)!.Expression).toBe('IF(requests >= 20, 100 * errors / requests, 0)');
    const stats = Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat!.Metric]));
    expect(stats.errors).toMatchObject({ Namespace: 'AWS/ApiGateway', MetricName: '5xx' });
    expect(stats.requests).toMatchObject({ Namespace: 'AWS/ApiGateway', MetricName: 'Count' });
    const apiId = ofType('AWS::ApiGatewayV2::Api', statelessResources)[0]![0];
    for (const metric of [stats.errors!, stats.requests!]) expect(metric.Dimensions).toEqual([{ Name: 'ApiId', Value: fromStateless(apiId) }]);
  });

  it.each(Object.entries(failureLogMessages))('%s: a metric filter on every function log group counts "%s" error lines, and one alarm fires on the first', (metricName, message) => {
    const filters = ofType('AWS::Logs::MetricFilter')
      .map(([, r]) => r.Properties)
      .filter((filter) => JSON.stringify(filter.MetricTransformations).includes(`"MetricName":"${metricName}"`));
    expect(filters).toHaveLength(functionNames.length);
    const logGroupsOfFunctions = functionNames.map((name) => {
      const fn = statelessResources[functionId(name)]!.Properties as { LoggingConfig: { LogGroup: { Ref: string } } };
      return fn.LoggingConfig.LogGroup.Ref;
    });
    expect(filters.map((filter) => filter.LogGroupName)).toEqual(expect.arrayContaining(logGroupsOfFunctions.map(fromStateless)));
    for (const filter of filters) {
      expect(filter.FilterPattern).toBe(`{ ($.level = "ERROR") && ($.message = "${message}") }`);
      expect(filter.MetricTransformations).toEqual([{ MetricNamespace: 'bulkonboard', MetricName: metricName, MetricValue: '1', DefaultValue: 0 }]);
    }
    expect(alarmNamed(metricName)).toMatchObject({ Namespace: 'bulkonboard', MetricName: metricName, Statistic: 'Sum', Threshold: 1 });
  });

  it('the messages the filters count are the ones the code logs', () => {
    const source = (file: string) => readFileSync(path.join(projectRoot, file), 'utf8');
    expect(source('functions/core/http.ts')).toContain(`logger.error('${failureLogMessages.UnhandledErrors}'`);
    expect(source('functions/core/queue-worker.ts')).toContain(`logger.error('${failureLogMessages.FailedRecords}'`);
    expect(TRIGGER_FAILED_MESSAGE).toBe(triggerFailureMessage);
  });

  it.each(functionNames.map((name) => [name]))('%s: alarms on any throttle and on a duration near its timeout', (name) => {
    const fnId = functionId(name);
    const timeout = (statelessResources[fnId]!.Properties as { Timeout: number }).Timeout;
    const throttles = alarmNamed(`${constructId(name)}Throttles`);
    expect(throttles).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Statistic: 'Sum', Threshold: 1 });
    expect(throttles.Dimensions).toEqual([{ Name: 'FunctionName', Value: fromStateless(fnId) }]);
    const nearTimeout = alarmNamed(`${constructId(name)}NearTimeout`);
    expect(nearTimeout).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Duration',
      Statistic: 'Maximum',
      Threshold: Math.round(timeout * 1000 * durationAlarmShare),
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(nearTimeout.Dimensions).toEqual([{ Name: 'FunctionName', Value: fromStateless(fnId) }]);
  });
});
