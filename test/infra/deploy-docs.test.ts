import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../lib/settings';
import { workerTimeout } from '../../lib/stateless-stack';
import { queues, routes } from '../../shared/routes';
import { buildTestApp, type SynthesizedApp } from './synth-app';

type Resources = Record<string, { Properties: Record<string, unknown> }>;

/**
 * What docs/deploy.md and the cdk-nag acknowledgements tell an operator, checked against the
 * synthesized stacks (issue 26, item 11: three statements of the guide and one acknowledgement
 * had drifted from what the stacks do).
 */
let built: SynthesizedApp;
let stateful: Template;
let stateless: Template;
let guide: string;

beforeAll(() => {
  built = buildTestApp({ skipBundling: true });
  built.app.synth();
  stateful = Template.fromStack(built.stateful);
  stateless = Template.fromStack(built.stateless);
  guide = readFileSync(path.join(projectRoot, 'docs/deploy.md'), 'utf8');
});

/** The part of docs/deploy.md under a `## ` heading. */
const section = (heading: string): string => {
  const start = guide.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = guide.indexOf('\n## ', start + 1);
  return guide.slice(start, end === -1 ? undefined : end);
};

describe('docs/deploy.md and the acknowledgements say what the stacks do', () => {
  it("SES's account-level suppression list is off for the configuration set, and the guide says so", () => {
    const sets = Object.values(stateful.findResources('AWS::SES::ConfigurationSet') as Resources);
    expect(sets).toHaveLength(1);
    expect(sets[0]!.Properties.SuppressionOptions).toEqual({ SuppressedReasons: [] });
    expect(guide).not.toMatch(/BOUNCES_AND_COMPLAINTS|configuration set's own suppression/);
    expect(guide).toContain("turns SES's account-level suppression list **off**");
  });

  it("the Export Center's worker: the guide gives the timeout the template has", () => {
    const exportsQueue = queues.find((queue) => queue.name === 'exports')!;
    const seconds = workerTimeout(exportsQueue).toSeconds();
    stateless.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'bulkonboard-export-worker', Timeout: seconds });
    const text = section('Project CSV downloads and the Export Center');
    expect(text).toContain(`(${seconds} s, a sixth of the exports queue's ${exportsQueue.visibilityTimeoutSeconds} s visibility timeout`);
    expect(text).not.toMatch(/\(15 min/);
  });

  it("the Export Center's worker: the guide gives the /tmp the template has (its temporary file before the PUT)", () => {
    stateless.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'bulkonboard-export-worker', EphemeralStorage: { Size: 2048 } });
    expect(section('Project CSV downloads and the Export Center')).toContain('The export worker has 2 GiB of `/tmp`');
    expect(guide).not.toMatch(/s3:AbortMultipartUpload/);
  });

  it("Lambda concurrency: the guide does not count on 1,000, says new accounts often have 10, and what to request", () => {
    const text = section('API throttling');
    expect(text).not.toMatch(/of the account's 1,000/);
    expect(text).toContain('new accounts often start with 10');
    expect(text).toMatch(/request 1,000/);
  });

  it('COG2: MFA is optional with TOTP only, users enrol in the Security Center (its two-factor routes exist), and the acknowledgement and the guide say so', () => {
    stateful.hasResourceProperties('AWS::Cognito::UserPool', { MfaConfiguration: 'OPTIONAL', EnabledMfas: ['SOFTWARE_TOKEN_MFA'] });
    const paths = routes.map((route) => `${route.method} ${route.path}`);
    expect(paths).toEqual(expect.arrayContaining(['POST /api/security/two-factor/setup', 'POST /api/security/two-factor/enable']));

    const reasons = built.app.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === 'aws:cdk:acknowledged-rules')
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .filter(([id]) => id.endsWith('AwsSolutions-COG2'))
      .map(([, reason]) => reason);
    expect(reasons).toHaveLength(1);
    const row = guide.split('\n').find((line) => line.startsWith('| COG2 |'))!;
    for (const text of [reasons[0]!, row]) {
      expect(text).toMatch(/Security Center/);
      expect(text).toMatch(/TOTP/);
      expect(text).not.toMatch(/not built|nobody uses/i);
    }
  });
});

describe('docs/runbook.md: every alarm says what it means and what to do', () => {
  it('has a section for each kind of alarm the monitoring stack creates, and a row for each queue', () => {
    const runbook = readFileSync(path.join(projectRoot, 'docs/runbook.md'), 'utf8');
    const alarmIds = Object.keys(Template.fromStack(built.monitoring).findResources('AWS::CloudWatch::Alarm'));
    expect(alarmIds.length).toBeGreaterThan(0);
    const kinds = new Set(
      alarmIds.map((id) => {
        const name = id.replace(/^Monitoring/, '').replace(/Alarm[0-9A-F]{8}$/, '');
        if (name.endsWith('DeadLetterQueue')) return '<Queue>DeadLetterQueue';
        if (name.endsWith('Throttles')) return '<Function>Throttles';
        if (name.endsWith('NearTimeout')) return '<Function>NearTimeout';
        return name;
      }),
    );
    for (const kind of kinds) expect(runbook, kind).toContain(`\n## \`${kind}\`\n`);
    for (const queue of queues) expect(runbook, queue.name).toContain(`| \`${queue.name}\` |`);
  });
});
