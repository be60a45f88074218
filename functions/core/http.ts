import { withinInvocation } from './dynamo-retry';
import { gzipSync } from 'node:zlib';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type * as z from 'zod';
import { decodeSegment, publicRouteKeys } from '../../shared/routes';
import { INVALID_LINK_MESSAGE } from '../../shared/schemas/credential-links';
import { isEmailPathShaped } from '../../shared/schemas/email-suppressions';
import { isIdShaped, UNKNOWN_ID_PARAM } from '../../shared/schemas/ids';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { dynamoAccountGate, type AccountGate, type AccountGateOptions } from './account-gate';
import { dynamo } from './clients';
import { HttpError, NotFoundError, UnauthorizedError, ValidationError } from './errors';
import { logger } from './logger';

/** What API Gateway hands a route handler; the JWT authorizer fills requestContext.authorizer. */
export type HttpEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export interface RouteRequest<Body> {
  /** Cognito subject of the verified JWT. The only source of the caller's identity. */
  userId: string;
  /** The bearer access token, for calls that act as the user (Cognito GetUser). */
  accessToken: string;
  body: Body;
  /** The body exactly as it arrived, before JSON parsing (webhook signatures are computed on it). */
  rawBody: string | undefined;
  pathParameters: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  event: HttpEvent;
}

/**
 * A route's body schema, in zod's classic API or zod/mini's (a schema a Lambda shares with the web
 * app may be written in mini, which keeps zod's classic API out of the functions that reach only
 * it): both have `safeParse`.
 */
export interface BodySchema extends z.core.$ZodType {
  safeParse(data: unknown): { success: true; data: unknown } | { success: false; error: { issues: z.core.$ZodIssue[] } };
}

export interface Route<Schema extends BodySchema | undefined> {
  /**
   * Runs before the body is validated: a caller who may not use the route at all (a free plan on
   * a Pro feature) is refused as such, whatever the body holds.
   */
  authorize?: (request: { userId: string }) => Promise<void>;
  /**
   * 'allow': the route runs for a user whose account is being deleted (DELETE /api/user/account
   * itself, so a retry re-queues the job). Every other route answers 410 to that user.
   */
  whileDeleting?: 'allow';
  /**
   * 'optional': the route runs for a caller without a user item (GET /api/auth/user creates it).
   * Every other route answers 401 to one: a deleted user's token must not write anything again.
   */
  userItem?: 'optional';
  /**
   * 'allow': the route runs for a user whose password has expired (the Security Center's password
   * expiry): changing the password, reading who one is. Every other route answers 403 with code
   * PASSWORD_EXPIRED to that user (the account gate).
   */
  passwordExpired?: 'allow';
  body?: Schema;
  run(request: RouteRequest<Schema extends BodySchema ? z.output<Schema> : undefined>): Promise<unknown>;
}

/** Declares one route's body schema and use-case call with types flowing from the schema. */
export const route = <Schema extends BodySchema | undefined = undefined>(r: Route<Schema>): Route<Schema> => r;

/** A response that is not JSON 200 (redirects, 201, 202 ...). */
export class Response {
  constructor(
    readonly statusCode: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}
export const redirect = (location: string): Response => new Response(302, undefined, { location });

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  body: body === undefined ? '' : JSON.stringify(body),
});

/** Text bodies above this are gzipped for clients that accept it. */
export const GZIP_RESPONSE_FROM_BYTES = 256 * 1024;
/** Lambda returns at most 6 MB in all (API Gateway answers 502 above it): a body gets this much of it. */
export const RESPONSE_BODY_MAX_BYTES = 5.8 * 1024 * 1024;
export const DOWNLOAD_NEEDS_GZIP_MESSAGE = 'This download is larger than 6 MB: ask for it compressed (Accept-Encoding: gzip), as browsers do.';
export const DOWNLOAD_TOO_LARGE_MESSAGE = 'This download is too large to send in one answer, even compressed. Use the Export Center for large files.';

/**
 * Lambda returns at most 6 MB: a large download (a project's CSV of 50,000 accounts) goes out
 * gzipped, base64 in the payload and decoded by API Gateway, unpacked by the browser. One that
 * cannot fit is refused with a clear message (406 for a client that takes no gzip, 413 when even
 * gzip cannot make it fit) instead of becoming API Gateway's bare 502.
 */
function textResult(statusCode: number, body: string, headers: Record<string, string>, acceptEncoding: string | undefined): HttpResult {
  const size = Buffer.byteLength(body);
  if (size < GZIP_RESPONSE_FROM_BYTES) return { statusCode, headers, body };
  if (!/\bgzip\b/i.test(acceptEncoding ?? '')) {
    if (size > RESPONSE_BODY_MAX_BYTES) throw new HttpError(406, DOWNLOAD_NEEDS_GZIP_MESSAGE);
    return { statusCode, headers, body };
  }
  const gzipped = gzipSync(body).toString('base64');
  if (gzipped.length > RESPONSE_BODY_MAX_BYTES) throw new HttpError(413, DOWNLOAD_TOO_LARGE_MESSAGE);
  return { statusCode, headers: { ...headers, 'content-encoding': 'gzip', vary: 'accept-encoding' }, body: gzipped, isBase64Encoded: true };
}

/**
 * At most this many entries of an error's details are sent (50,000 bad rows make 150,000 issues,
 * 14 MB of JSON: over Lambda's 6 MB, a 502); `detailsCount` then says how many there were.
 */
export const ERROR_DETAILS_MAX = 200;

/** Maps any error to `{ message, details?, detailsCount? }`: typed errors keep their status, the rest is a bare 500. */
export function errorResponse(error: unknown): HttpResult {
  if (error instanceof HttpError) {
    const body: { message: string; code?: string; details?: unknown; detailsCount?: number } = { message: error.message };
    if (error.code) body.code = error.code;
    if (Array.isArray(error.details) && error.details.length > ERROR_DETAILS_MAX) {
      body.details = error.details.slice(0, ERROR_DETAILS_MAX);
      body.detailsCount = error.details.length;
    } else if (error.details !== undefined) {
      body.details = error.details;
    }
    return json(error.statusCode, body);
  }
  // Errors raised by middy middlewares (createError) carry statusCode and expose.
  const candidate = error as { statusCode?: unknown; expose?: unknown; message?: unknown; cause?: { package?: string } };
  if (typeof candidate?.statusCode === 'number' && candidate.statusCode < 500 && candidate.expose !== false) {
    if (candidate.cause?.package === '@middy/http-json-body-parser' && String(candidate.message).includes('malformed')) {
      return json(400, { message: 'Request body is not valid JSON' });
    }
    return json(candidate.statusCode, { message: String(candidate.message) });
  }
  logger.error('Unhandled error', { error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
  return json(500, { message: 'Internal server error' });
}

const jsonBodyParser = httpJsonBodyParser({ disableContentTypeError: true });

/** Each event's body as received, kept before the JSON parser replaces it. */
const rawBodies = new WeakMap<object, string>();
const keepRawBody = (event: HttpEvent): void => {
  if (typeof event.body === 'string') rawBodies.set(event, event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body);
};

/** Cognito subject of the verified JWT ('' when there is none). */
const callerOf = (event: HttpEvent): string => {
  const sub = event.requestContext.authorizer?.jwt?.claims?.sub;
  return typeof sub === 'string' ? sub : '';
};

/** The token's auth_time (epoch seconds; API Gateway hands JWT claims over as strings). */
const authTimeOf = (event: HttpEvent): number | undefined => {
  const value = Number(event.requestContext.authorizer?.jwt?.claims?.auth_time);
  return Number.isFinite(value) && value > 0 ? value : undefined;
};

const publicRoutes = new Set(publicRouteKeys);

/** What a path's {id} names, by the collection before it; the 404 says so. */
const notFoundMessages: Record<string, string> = {
  projects: 'Project not found',
  'bulk-jobs': 'Job not found',
  exports: 'Export not found',
  integrations: 'Integration not found',
  'email-templates': 'Template not found',
  'credential-links': INVALID_LINK_MESSAGE,
  'email-suppressions': 'This address is not on your suppression list',
};
const notFoundMessageOf = (routeKey: string): string => {
  const segments = routeKey.split(' ')[1]?.split('/') ?? [];
  const collection = segments[segments.findIndex((s) => s.startsWith('{')) - 1] ?? '';
  return notFoundMessages[collection] ?? 'Not found';
};

/**
 * Every path parameter is an id, or an e-mail address for `{email}` (test/unit/routes.test.ts
 * keeps it so). One that cannot exist, however API Gateway or the local gateway decoded it,
 * answers 404 before the route runs: no table read, no DynamoDB error over a key too large.
 */
const pathShapes: Record<string, (value: string) => boolean> = { email: isEmailPathShaped };

/**
 * The path parameters as the route reads them. An e-mail address may arrive still
 * percent-encoded ('%40' for '@'): it is decoded once here, so routes always see the address.
 */
function checkedPathParameters(routeKey: string, pathParameters: Record<string, string | undefined>): Record<string, string | undefined> {
  const checked: Record<string, string | undefined> = {};
  for (const [name, raw] of Object.entries(pathParameters)) {
    const value = name === 'email' && raw?.includes('%') ? decodeSegment(raw) : raw;
    if (value === undefined || !(pathShapes[name] ?? isIdShaped)(value)) throw new NotFoundError(notFoundMessageOf(routeKey));
    checked[name] = value;
  }
  return checked;
}

/** A body's issues: 404 when its only problem is ids that cannot exist, otherwise 400 with all of them. */
function invalidBody(issues: z.core.$ZodIssue[]): HttpError {
  const unknownIds = issues.filter((issue) => issue.code === 'custom' && issue.params?.[UNKNOWN_ID_PARAM] === true);
  if (unknownIds.length > 0 && unknownIds.length === issues.length) return new NotFoundError(unknownIds[0]!.message);
  const details = issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  return new ValidationError(details[0]?.message ?? 'Invalid request', details);
}

/**
 * The one middleware stack of every route group's Lambda: logger context, header normalisation,
 * JSON body parsing, then dispatch on API Gateway's routeKey to the route's zod validation and
 * use case. Errors are mapped last, in one place.
 */
export interface HttpHandlerOptions {
  /**
   * Refuses the callers whose account is being deleted. Default: the user item in TABLE_NAME
   * (every route group has the table; unit tests of this module have none and pass their own).
   */
  accountGate?: AccountGate;
}

const defaultAccountGate = (): AccountGate | undefined => {
  const tableName = process.env.TABLE_NAME;
  if (!tableName) return undefined;
  const db = dynamo();
  return dynamoAccountGate(db, tableName, { recordEvent: (event) => recordSecurityEvent({ db, tableName }, event) });
};

export function httpHandler(table: Record<string, Route<BodySchema | undefined>>, options: HttpHandlerOptions = {}) {
  const accountGate = options.accountGate ?? defaultAccountGate();
  const dispatch = (event: HttpEvent, context: Context): Promise<HttpResult> => withinInvocation(context, () => route(event));
  const route = async (event: HttpEvent): Promise<HttpResult> => {
    const key = event.routeKey;
    const target = table[key];
    if (!target) throw new NotFoundError(`No route for ${key}`);

    const userId = callerOf(event);
    // API Gateway's authorizer already refused unauthenticated calls; this is defence in depth.
    if (!publicRoutes.has(key) && !userId) throw new UnauthorizedError();
    const pathParameters = checkedPathParameters(key, event.pathParameters ?? {});

    let body: unknown;
    if (target.body) {
      if (typeof event.body === 'string' || event.body === undefined || event.body === null) {
        if (event.body) throw new HttpError(415, 'Content-Type must be application/json');
      }
      // Only a request without a body stands for an empty object: a JSON `null` is a body, and
      // malformed like any other that is not an object (a schema of optional fields would take {}).
      const parsed = target.body.safeParse(event.body === undefined ? {} : event.body);
      if (!parsed.success) throw invalidBody(parsed.error.issues);
      body = parsed.data;
    }

    const authorization = event.headers?.authorization ?? '';
    const result = await target.run({
      userId,
      accessToken: authorization.replace(/^Bearer\s+/i, ''),
      body: body as never,
      rawBody: rawBodies.get(event),
      pathParameters,
      query: event.queryStringParameters ?? {},
      event,
    });
    if (result instanceof Response) {
      // A text body with its own content type (CSV downloads) goes out as it is, gzipped when large.
      if (typeof result.body === 'string' && result.headers['content-type'] && !result.headers['content-type'].includes('json')) {
        return textResult(result.statusCode, result.body, { 'cache-control': 'no-store', ...result.headers }, event.headers?.['accept-encoding']);
      }
      return json(result.statusCode, result.body, result.headers);
    }
    return json(200, result);
  };

  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(httpHeaderNormalizer())
    .use({ before: (request) => keepRawBody(request.event) })
    // A caller refused the route as such (a free plan on a Pro feature) hears so before anything
    // about the body, even a body that is not JSON.
    .use({
      before: async (request) => {
        const userId = callerOf(request.event);
        if (!userId) return;
        const target = table[request.event.routeKey];
        // A deleted (or deleting) account is refused first, on every route but the deletion's own;
        // then the Security Center's rules (session timeout, concurrent sessions, password expiry)
        // on every route, the deletion's too: an expired session may not delete the account.
        if (accountGate) {
          const gateOptions: AccountGateOptions = { origin: requestOrigin(request.event) };
          if (target?.whileDeleting) gateOptions.whileDeleting = target.whileDeleting;
          if (target?.userItem) gateOptions.userItem = target.userItem;
          if (target?.passwordExpired) gateOptions.passwordExpired = target.passwordExpired;
          const authTime = authTimeOf(request.event);
          if (authTime !== undefined) gateOptions.authTime = authTime;
          await accountGate(userId, gateOptions);
        }
        await target?.authorize?.({ userId });
      },
    })
    // Requests without a body (GET, DELETE) skip JSON parsing whatever their Content-Type says.
    .use({ before: (request) => (request.event.body ? jsonBodyParser.before?.(request) : undefined) })
    .use({
      onError: async (request) => {
        request.response = errorResponse(request.error);
      },
    })
    .handler(dispatch);
}
