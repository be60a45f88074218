import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { findRoute, isWellEncodedPath, routeKey, type RouteGroup } from '../../shared/routes';
import type { AppConfig } from '../../shared/app-config';
import { LAMBDA_INVOKE_PATH, serveLambdaInvoke } from './lambda-invoke';

type RouteHandler = (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Route group handlers, loaded on first use like a Lambda cold start. Same modules the CDK bundles. */
const handlerModules: Record<RouteGroup, () => Promise<{ handler: RouteHandler }>> = {
  auth: () => import('../../functions/auth/handler'),
  user: () => import('../../functions/user/handler'),
  bulk: () => import('../../functions/bulk/handler'),
  projects: () => import('../../functions/projects/handler'),
  accounts: () => import('../../functions/accounts/handler'),
  dashboard: () => import('../../functions/dashboard/handler'),
  subscription: () => import('../../functions/subscription/handler'),
  exports: () => import('../../functions/exports/handler'),
  'export-history': () => import('../../functions/export-history/handler'),
  billing: () => import('../../functions/billing/handler'),
  integrations: () => import('../../functions/integrations/handler'),
  'email-templates': () => import('../../functions/email-templates/handler'),
  provisioning: () => import('../../functions/provisioning/handler'),
  'credential-links': () => import('../../functions/credential-links/handler'),
  'email-suppressions': () => import('../../functions/email-suppressions/handler'),
  'mail-sends': () => import('../../functions/mail-sends/handler'),
  security: () => import('../../functions/security/handler'),
  analytics: () => import('../../functions/analytics/handler'),
};

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Lambda's limit on a synchronous invocation's payload, the event and the response alike. */
export const LAMBDA_EVENT_MAX_BYTES = 6 * 1024 * 1024;

export interface AccessTokenVerifier {
  (token: string, options?: { currentDate?: Date }): Promise<JWTPayload>;
}

/**
 * What API Gateway's JWT authorizer checks: signature against the pool's JWKS, issuer, expiry,
 * and that the token is an access token of the web client.
 */
export function cognitoAccessTokenVerifier(cognitoEndpoint: string, userPoolId: string, clientId: string): AccessTokenVerifier {
  const issuer = `${cognitoEndpoint}/${userPoolId}`;
  const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
  return async (token, options = {}) => {
    const { payload } = await jwtVerify(token, jwks, { issuer, currentDate: options.currentDate });
    if (payload.token_use !== 'access') throw new Error('not an access token');
    if (payload.client_id !== clientId) throw new Error('token of another client');
    return payload;
  };
}

export interface GatewayOptions {
  appConfig: AppConfig;
  verify: AccessTokenVerifier;
  /** Serves everything outside /api/* and /config.json (the web app). */
  web?: (req: IncomingMessage, res: ServerResponse) => void;
  log?: (message: string) => void;
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/**
 * A body over the limit is read to its end and thrown away (nothing is kept, whatever its size),
 * so the client, still sending, hears the 413 instead of a reset connection.
 */
const readBody = (req: IncomingMessage): Promise<Buffer | 'too-large'> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** The request's URL, or undefined for one that does not parse (Node 20 has no URL.parse). */
function parseUrl(target: string): URL | undefined {
  try {
    return new URL(target, 'http://localhost');
  } catch {
    return undefined;
  }
}

/** API Gateway's own wording for its refusals, as JSON {message} like every error of the API. */
export const MALFORMED_PATH_MESSAGE = 'Bad Request: the URL path is not valid percent-encoding';
export const BODY_TOO_LARGE_MESSAGE = 'Request Entity Too Large: the body is over 10 MB';

/**
 * The local API gateway: one origin that serves /config.json, /api/* from the shared route table
 * with the Lambda handlers (after verifying the JWT like API Gateway's authorizer), and the web app.
 */
export function createGateway(options: GatewayOptions): http.Server {
  const log = options.log ?? (() => undefined);
  return http.createServer((req, res) => {
    const url = parseUrl(req.url ?? '/');
    if (!url) return send(res, 400, { message: 'Bad Request' });
    if (url.pathname === '/config.json') {
      send(res, 200, options.appConfig, { 'cache-control': 'no-store' });
      return;
    }
    // The Cognito emulator invokes its trigger here, as Lambda's Invoke API (bin/local/lambda-invoke.ts).
    if (LAMBDA_INVOKE_PATH.test(url.pathname)) {
      serveLambdaInvoke(req, res, url.pathname, log).catch((error: unknown) => {
        log(`lambda invoke error: ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent) send(res, 500, { message: 'Internal Server Error' });
      });
      return;
    }
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      handleApi(req, res, url).catch((error: unknown) => {
        log(`gateway error: ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent) send(res, 500, { message: 'Internal Server Error' });
      });
      return;
    }
    if (options.web) options.web(req, res);
    else send(res, 404, { message: 'Not Found' });
  });

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL) {
    const method = req.method ?? 'GET';
    // API Gateway decodes path parameters itself and refuses a path it cannot decode; here too,
    // before routing or the token (the handler refuses ids that cannot exist in any case).
    if (!isWellEncodedPath(url.pathname)) return send(res, 400, { message: MALFORMED_PATH_MESSAGE });
    const match = findRoute(method, url.pathname);
    if (!match) return send(res, 404, { message: 'Not Found' });
    const { route, pathParameters } = match;

    let claims: JWTPayload | undefined;
    if (route.auth === 'jwt') {
      const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!token) return send(res, 401, { message: 'Unauthorized' });
      try {
        claims = await options.verify(token);
      } catch {
        return send(res, 401, { message: 'Unauthorized' });
      }
    }

    const raw = await readBody(req);
    if (raw === 'too-large') return send(res, 413, { message: BODY_TOO_LARGE_MESSAGE });

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const query: Record<string, string> = {};
    for (const [name, value] of url.searchParams) query[name] = query[name] ? `${query[name]},${value}` : value;
    const now = new Date();
    const key = routeKey(route);
    const event: APIGatewayProxyEventV2WithJWTAuthorizer = {
      version: '2.0',
      routeKey: key,
      rawPath: url.pathname,
      rawQueryString: url.search.replace(/^\?/, ''),
      cookies: req.headers.cookie?.split(/;\s*/),
      headers,
      queryStringParameters: Object.keys(query).length ? query : undefined,
      pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
      body: raw.length ? raw.toString('utf8') : undefined,
      isBase64Encoded: false,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: req.headers.host ?? 'localhost',
        domainPrefix: 'local',
        http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: req.headers['user-agent'] ?? '' },
        requestId: randomUUID(),
        routeKey: key,
        stage: '$default',
        time: now.toUTCString(),
        timeEpoch: now.getTime(),
        authorizer: {
          principalId: '',
          integrationLatency: 0,
          jwt: {
            claims: (claims ?? {}) as Record<string, string | number | boolean | string[]>,
            scopes: typeof claims?.scope === 'string' ? claims.scope.split(' ') : [],
          },
        },
      },
    };
    // An event Lambda would refuse never reaches the handler, as on AWS.
    if (Buffer.byteLength(JSON.stringify(event)) > LAMBDA_EVENT_MAX_BYTES) return send(res, 413, { message: 'Request Too Long' });
    const started = Date.now();
    const context = {
      awsRequestId: event.requestContext.requestId,
      functionName: `bulkonboard-${route.group}`,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:bulkonboard-${route.group}`,
      memoryLimitInMB: '512',
      logGroupName: `/aws/lambda/bulkonboard-${route.group}`,
      logStreamName: 'local',
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, 29_000 - (Date.now() - started)),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    } satisfies Context;
    const { handler } = await handlerModules[route.group]();
    const result = await handler(event, context);
    // Lambda cannot return more than 6 MB; API Gateway then answers 502 (as here).
    if (Buffer.byteLength(JSON.stringify(result)) > LAMBDA_EVENT_MAX_BYTES) {
      log(`${method} ${route.auth === 'none' ? route.path : url.pathname}: the response exceeds Lambda's 6 MB limit`);
      return send(res, 502, { message: 'Internal Server Error' });
    }
    const responseHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders[name] = String(value);
    if (result.cookies?.length) responseHeaders['set-cookie'] = result.cookies;
    res.writeHead(result.statusCode ?? 200, responseHeaders);
    res.end(result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'));
    // A public route's path parameter is a secret (a one-time link's token): logged by its pattern.
    log(`${method} ${route.auth === 'none' ? route.path : url.pathname} -> ${result.statusCode} (${Date.now() - started} ms)`);
  }
}
