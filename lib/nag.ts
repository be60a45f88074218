import { Aspects, CfnResource, Stack, Validations, type IAspect } from 'aws-cdk-lib';
import { rules } from 'cdk-nag';
import type { IConstruct } from 'constructs';

export interface WildcardAcknowledgement {
  /** Matches the finding inside AwsSolutions-IAM5[...], e.g. /^Action::s3:List\*$/. */
  finding: RegExp;
  reason: string;
}

/**
 * Acknowledges AwsSolutions-IAM5 (wildcard permission) findings under `scope` that match one of
 * the expected patterns, each with its own reason; any other wildcard stays a finding.
 *
 * For policies generated inside aws-cdk-lib (e.g. BucketDeployment's handler), whose finding ids
 * embed logical ids and asset bucket names: the ids are computed by cdk-nag's own rule instead
 * of being copied into the code.
 */
export function acknowledgeWildcards(scope: IConstruct, acknowledgements: readonly WildcardAcknowledgement[]): void {
  Aspects.of(scope).add(new AcknowledgeWildcards(acknowledgements));
}

class AcknowledgeWildcards implements IAspect {
  constructor(private readonly acknowledgements: readonly WildcardAcknowledgement[]) {}

  visit(node: IConstruct): void {
    if (!CfnResource.isCfnResource(node)) return;
    const result = rules.iam.IAMNoWildcardPermissions(node);
    if (!Array.isArray(result)) return;
    for (const finding of result) {
      const acknowledgement = this.acknowledgements.find(({ finding: pattern }) => pattern.test(finding));
      if (acknowledgement) {
        Validations.of(node).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason: acknowledgement.reason });
      }
    }
  }
}

/**
 * Acknowledges AwsSolutions-IAM5[Resource::*] on an IAM policy under `scope` only while every
 * statement of that policy on resource '*' allows nothing but actions matching `actions`; a
 * later statement that puts any other action on '*' stays a finding.
 */
export function acknowledgeStarResourceFor(scope: IConstruct, actions: RegExp, reason: string): void {
  Aspects.of(scope).add(new AcknowledgeStarResource(actions, reason));
}

interface PolicyStatementJson {
  Action?: string | string[];
  Resource?: unknown;
}

class AcknowledgeStarResource implements IAspect {
  constructor(
    private readonly actions: RegExp,
    private readonly reason: string,
  ) {}

  visit(node: IConstruct): void {
    if (!CfnResource.isCfnResource(node) || node.cfnResourceType !== 'AWS::IAM::Policy') return;
    const document = Stack.of(node).resolve((node as CfnResource & { policyDocument?: unknown }).policyDocument) as
      | { Statement?: PolicyStatementJson[] }
      | undefined;
    const onStar = (document?.Statement ?? []).filter((statement) => ([] as unknown[]).concat(statement.Resource).includes('*'));
    if (onStar.length === 0) return;
    const allowed = onStar.every((statement) => ([] as string[]).concat(statement.Action ?? []).every((action) => this.actions.test(action)));
    if (allowed) Validations.of(node).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: this.reason });
  }
}
