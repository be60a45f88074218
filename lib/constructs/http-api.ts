import { Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
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

export interface AppHttpApiProps {
  prefix: string;
  userPool: IUserPool;
  webClient: IUserPoolClient;
  routes: readonly RouteDefinition[];
  /** The function of each route group. */
  handlers: Record<RouteGroup, IFunction>;
  /** @default { rateLimit: 100, burstLimit: 200 } */
  throttle?: { rateLimit: number; burstLimit: number };
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
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: accessLogFormat() },
    });

    const jwtAuthorizer = new HttpUserPoolAuthorizer('CognitoAuthorizer', props.userPool, {
      authorizerName: 'cognito',
      userPoolClients: [props.webClient],
      identitySource: ['$request.header.Authorization'],
    });
    const integrations = new Map<RouteGroup, HttpLambdaIntegration>();
    const integrationOf = (group: RouteGroup): HttpLambdaIntegration => {
      let integration = integrations.get(group);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${constructId(group)}Integration`, props.handlers[group]);
        integrations.set(group, integration);
      }
      return integration;
    };

    for (const route of props.routes) this.addRoute(route, integrationOf(route.group), jwtAuthorizer);
  }

  private addRoute(route: RouteDefinition, integration: HttpLambdaIntegration, jwtAuthorizer: IHttpRouteAuthorizer): void {
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
      path: '$context.path',
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
