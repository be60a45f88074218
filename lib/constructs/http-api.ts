import { Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { routeKey, type RouteDefinition, type RouteGroup } from '../../shared/routes';
import { constructId } from '../construct-id';

/**
 * Scope present in every Cognito access token and absent from ID tokens: requiring it makes the
 * authorizer accept access tokens only.
 */
export const accessTokenScope = 'aws.cognito.signin.user.admin';

export interface Throttle {
  /** Requests per second, steady. */
  rateLimit: number;
  /** Requests at once. */
  burstLimit: number;
}

/**
 * The stage's limit is one bucket for every user and route. Routes that are polled or heavy get
 * a bucket of their own below it, so running jobs' progress polls (one per second per open job)
 * or a burst of large creations cannot use up what sign-in, lists and search need.
 */
export const stageThrottle: Throttle = { rateLimit: 200, burstLimit: 400 };
export const routeThrottles: Readonly<Record<string, Throttle>> = {
  // Polled while a job runs (the web app slows down from 1 s to 5 s as a job goes on).
  'GET /api/bulk-jobs/{id}': { rateLimit: 50, burstLimit: 100 },
  // The bell polls every 30 s per open tab: 50/s is 1,500 open tabs; a throttled poll is missed, not retried.
  'GET /api/notifications': { rateLimit: 50, burstLimit: 100 },
  // Up to 1,000 accounts written per request, or a job queued.
  'POST /api/bulk-create': { rateLimit: 10, burstLimit: 20 },
  'POST /api/exports': { rateLimit: 10, burstLimit: 20 },
  // Calls someone else's server for up to 18 s.
  'POST /api/integrations/{id}/test': { rateLimit: 5, burstLimit: 10 },
  // Public (no token): a flood from anywhere on the internet takes only these buckets.
  // Sign-in calls Cognito's InitiateAuth / RespondToAuthChallenge, whose 'user authentication'
  // quota (120 a second by default, per account and region) also serves token refreshes: a flood
  // of sign-ins takes at most 30 + 10 of it and never the stage's 200 that signed-in users need.
  'POST /api/auth/sign-in': { rateLimit: 30, burstLimit: 60 },
  'POST /api/auth/sign-in/totp': { rateLimit: 10, burstLimit: 20 },
  'POST /api/credential-links/state': { rateLimit: 50, burstLimit: 100 },
  'POST /api/credential-links/reveal': { rateLimit: 20, burstLimit: 40 },
};

export interface AppHttpApiProps {
  prefix: string;
  userPool: IUserPool;
  webClient: IUserPoolClient;
  routes: readonly RouteDefinition[];
  /** The function of each route group. */
  handlers: Record<RouteGroup, IFunction>;
  /** @default stageThrottle */
  throttle?: Throttle;
}

/** The HTTP API: one route per entry of the route table, JWT-authorized where the table says 'jwt'. */
export class AppHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: AppHttpApiProps) {
    super(scope, id);

    // Same-origin through CloudFront: no CORS configuration.
    this.api = new HttpApi(this, 'HttpApi', { apiName: `${props.prefix}-api`, createDefaultStage: false });

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? stageThrottle,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: accessLogFormat() },
    });
    // HttpStage has no per-route settings; the CloudFormation stage does.
    const routeKeys = new Set(props.routes.map(routeKey));
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      Object.entries(routeThrottles)
        .filter(([key]) => routeKeys.has(key))
        .map(([key, throttle]) => [key, { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit }]),
    );

    const jwtAuthorizer = new HttpUserPoolAuthorizer('CognitoAuthorizer', props.userPool, {
      authorizerName: 'cognito',
      userPoolClients: [props.webClient],
      identitySource: ['$request.header.Authorization'],
    });
    const integrations = new Map<RouteGroup, HttpLambdaIntegration>();
    const integrationOf = (group: RouteGroup): HttpLambdaIntegration => {
      let integration = integrations.get(group);
      if (!integration) {
        // One invoke permission per function, scoped to this API, instead of one per route: a stack
        // holds at most 500 resources, and a permission per route (two resources a route with the
        // route itself) would spend them on every new route (docs/deploy.md, "Stack size").
        integration = new HttpLambdaIntegration(`${constructId(group)}Integration`, props.handlers[group], { scopePermissionToRoute: false });
        integrations.set(group, integration);
      }
      return integration;
    };

    for (const route of props.routes) {
      const httpRoute = this.addRoute(route, integrationOf(route.group), jwtAuthorizer);
      // The stage's route settings name the route: CloudFormation must create it first.
      if (routeThrottles[routeKey(route)]) this.stage.node.addDependency(httpRoute);
    }
  }

  private addRoute(route: RouteDefinition, integration: HttpLambdaIntegration, jwtAuthorizer: IHttpRouteAuthorizer): HttpRoute {
    if (!route.path.startsWith('/api/')) {
      // CloudFront forwards only /api/* to the API; anything else would be served the web app.
      throw new Error(`${routeKey(route)}: API paths must start with /api/`);
    }
    const isPublic = route.auth === 'none';
    // '/api/projects/{id}' -> 'ApiProjectsById', distinct from a literal '/api/projects/id'.
    const pathId = route.path.replace(/\{([^}]+)\}/g, 'by-$1');
    const httpRoute = new HttpRoute(this, `Route${constructId(route.method, pathId)}`, {
      httpApi: this.api,
      routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
      integration,
      authorizer: isPublic ? new HttpNoneAuthorizer() : jwtAuthorizer,
      authorizationScopes: isPublic ? undefined : [accessTokenScope],
    });
    if (isPublic) {
      Validations.of(httpRoute).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `${routeKey(route)} is public by design (auth 'none' in shared/routes.ts): it is reached before sign-in.`,
      });
    }
    return httpRoute;
  }
}

/** JSON access log line of an HTTP API request (no tokens, no bodies). */
function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      requestTime: '$context.requestTime',
      routeKey: '$context.routeKey',
      // No path: a one-time credential link's token is in its path (the route key names the route).
      status: '$context.status',
      responseLength: '$context.responseLength',
      latency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationError: '$context.integrationErrorMessage',
      authorizerError: '$context.authorizer.error',
      userSub: '$context.authorizer.claims.sub',
    }),
  );
}
