import { Token } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { buildTestApp, testEnv } from './synth-app';

describe('cdk-nag AwsSolutions', () => {
  it('synthesizes with no unacknowledged error or warning', () => {
    // Prepare
    const { app } = buildTestApp({ skipBundling: true });

    // Act: synthesis runs the AwsSolutions plugin that buildApp registered and throws on findings.
    app.synth();
    const report = new AwsSolutionsChecks().validateScope(app);

    // Assess: list what is left, so a failure names the rule and the construct.
    const findings = report.violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} (${violation.severity}) at ${resource.constructPath}`),
    );
    expect(findings).toEqual([]);
  });

  it.each([
    ['no account or region', {}],
    // What `cdk synth` without credentials gets: the CLI still knows a region (profile, or us-east-1).
    ['a region but no account', { CDK_DEFAULT_REGION: testEnv.CDK_DEFAULT_REGION }],
  ])('synthesizes with %s, as an offline `cdk synth` does (tokens such as ${AWS::AccountId} in the ARNs)', (_case, env: Record<string, string>) => {
    // Prepare: only what an operator without credentials has; the account stays a token.
    const { app, settings, stateless } = buildTestApp({ skipBundling: true, env: { SES_FROM_ADDRESS: testEnv.SES_FROM_ADDRESS, ...env } });
    expect([settings.account, settings.region]).toEqual([undefined, env.CDK_DEFAULT_REGION]);
    expect(Token.isUnresolved(stateless.account)).toBe(true);

    // Act: synthesis throws on any finding the acknowledgements miss.
    app.synth();
    const report = new AwsSolutionsChecks().validateScope(app);

    // Assess
    const findings = report.violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} (${violation.severity}) at ${resource.constructPath}`),
    );
    expect(findings).toEqual([]);
  });

  it('is wired into the app: a non-compliant bucket fails synthesis', () => {
    // Prepare
    const { app, stateless } = buildTestApp({ skipBundling: true });
    new Bucket(stateless, 'NonCompliantBucket');

    // Act + Assess
    expect(() => app.synth()).toThrow(/AwsSolutions-S1|AwsSolutions-S10/);
  });

  it("the X-Ray acknowledgement covers only X-Ray: another action on '*' in a function's policy fails synthesis", () => {
    // Prepare
    const { app, stateless } = buildTestApp({ skipBundling: true });
    stateless.functions.user.function.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Scan'], resources: ['*'] }));

    // Act + Assess
    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5/);
  });

  it('every acknowledgement carries a reason', () => {
    // Prepare
    const { app } = buildTestApp({ skipBundling: true });
    app.synth();

    // Act
    const acknowledgements = app.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === 'aws:cdk:acknowledged-rules')
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>));

    // Assess
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledgements) {
      expect(reason.length, id).toBeGreaterThan(40);
    }
  });
});
