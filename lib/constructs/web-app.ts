import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source, type ISource } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import type { AppConfig } from '../../shared/app-config';
import { acknowledgeWildcards } from '../nag';

export interface WebAppProps {
  /** Vite build output; undefined deploys a placeholder page (synth without a build). */
  assetsPath: string | undefined;
  /** Served as /config.json: how the browser finds the user pool. */
  config: AppConfig;
  /** The HTTP API id, served under /api/* on the same origin. */
  apiId: string;
  /** Bucket for CloudFront's access logs (needs ACLs enabled). */
  accessLogsBucket: IBucket;
}

/**
 * The React app on CloudFront: a private bucket read through origin access control, /api/*
 * forwarded to the HTTP API (same origin, no CORS), and /config.json written at deploy time.
 */
export class WebApp extends Construct {
  readonly distribution: Distribution;
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: WebAppProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // Only build output lives here; every deploy rewrites it, so it goes with the stack.
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Holds only the build output written by BucketDeployment and is read only by CloudFront through OAC; every viewer request is in the CloudFront access log.',
    });

    const apiOrigin = new HttpOrigin(`${props.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
    });
    const securityHeaders = this.securityHeaders(stack.region);

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${stack.stackName} web app`,
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: props.accessLogsBucket,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders,
        // SPA fallback for the web origin only (errorResponses would also rewrite API errors).
        functionAssociations: [{ function: this.spaRewrite(), eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          // All viewer headers (Authorization included) except Host, which API Gateway needs to be its own.
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: securityHeaders,
        },
      },
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'The product has no country restrictions; sign-up is open worldwide.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'No WAF web ACL (a fixed monthly cost per ACL): the API stage is throttled and every data route needs a Cognito access token (the one-time credential links, public by design, have throttles of their own). Add a web ACL when traffic warrants it.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'No custom domain yet, so the distribution uses the default *.cloudfront.net certificate, for which CloudFront fixes the security policy; a custom domain with an ACM certificate will set TLSv1.2_2021.',
      },
    );

    this.deployContent(props);
  }

  /** Hashed Vite assets are immutable; index.html and config.json must be revalidated on every load. */
  private deployContent(props: WebAppProps): void {
    const site: ISource = props.assetsPath
      ? Source.asset(props.assetsPath)
      : Source.data('index.html', placeholderPage);
    const config = Source.jsonData('config.json', props.config);

    const assets = new BucketDeployment(this, 'DeployAssets', {
      sources: [site],
      destinationBucket: this.bucket,
      exclude: ['*'],
      include: ['assets/*'],
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
      // Keep old hashed files: browsers still holding the previous index.html load them.
      prune: false,
    });
    const entry = new BucketDeployment(this, 'DeployEntry', {
      sources: [site, config],
      destinationBucket: this.bucket,
      exclude: ['assets/*'],
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/*'],
    });
    // index.html must never point at assets that are not uploaded yet.
    entry.node.addDependency(assets);
    acknowledgeDeploymentHandler(assets);
  }

  /** Rewrites extension-less paths (client-side routes such as /projects) to /index.html. */
  private spaRewrite(): CloudFrontFunction {
    return new CloudFrontFunction(this, 'SpaRewrite', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Serve index.html for client-side routes',
      code: FunctionCode.fromInline(`
function handler(event) {
  var request = event.request;
  var lastSegment = request.uri.substring(request.uri.lastIndexOf('/') + 1);
  if (lastSegment.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}`),
    });
  }

  private securityHeaders(region: string): ResponseHeadersPolicy {
    const contentSecurityPolicy = [
      "default-src 'self'",
      "script-src 'self'",
      // Chakra UI (Emotion) injects style elements at run time.
      "style-src 'self' 'unsafe-inline'",
      // Amplify Auth talks to Cognito directly from the browser.
      `connect-src 'self' https://cognito-idp.${region}.amazonaws.com`,
      // Brand logos in e-mail template previews are arbitrary https images.
      "img-src 'self' data: blob: https:",
      "font-src 'self' data:",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; ');
    return new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'HSTS, CSP, no framing, no sniffing',
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentSecurityPolicy: { contentSecurityPolicy, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        xssProtection: { protection: true, modeBlock: true, override: true },
      },
    });
  }
}

/** The copy function both deployments share is generated by aws-cdk-lib; its policy is not ours to narrow. */
function acknowledgeDeploymentHandler(deployment: BucketDeployment): void {
  const handler = deployment.handlerRole.node.scope!;
  Validations.of(handler).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "BucketDeployment's handler role (created by aws-cdk-lib) only gets CloudWatch Logs access from this managed policy.",
    },
    {
      id: 'AwsSolutions-L1',
      reason: "BucketDeployment's handler runtime is pinned by aws-cdk-lib and moves forward with aws-cdk-lib upgrades.",
    },
  );
  const copyReason =
    'BucketDeployment copies the build from the CDK asset bucket into the web bucket and prunes old files: aws-cdk-lib grants it object read/write/delete there.';
  acknowledgeWildcards(handler, [
    { finding: /^Action::s3:(GetBucket|GetObject|List|Abort|DeleteObject)\*$/, reason: copyReason },
    { finding: /^Resource::.*cdk-[a-z0-9]+-assets-.*\/\*$/, reason: copyReason },
    { finding: /^Resource::<WebBucket[A-Za-z0-9]+\.Arn>\/\*$/, reason: copyReason },
    {
      finding: /^Resource::\*$/,
      reason: 'cloudfront:CreateInvalidation/GetInvalidation after each deploy; aws-cdk-lib grants them on * (invalidations have no ARN).',
    },
  ]);
}

const placeholderPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not built</title></head>
<body><p>The web app was not built when this stack was synthesized. Run <code>npm run build</code>, then deploy again.</p></body></html>
`;
