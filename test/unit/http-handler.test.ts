import { describe, expect, it, vi } from 'vitest';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { DOWNLOAD_NEEDS_GZIP_MESSAGE, DOWNLOAD_TOO_LARGE_MESSAGE, GZIP_RESPONSE_FROM_BYTES, RESPONSE_BODY_MAX_BYTES, httpHandler, redirect, Response, route, type HttpEvent } from '../../functions/core/http';
import { ConflictError, NotFoundError, PlanLimitError } from '../../functions/core/errors';
import { logger } from '../../functions/core/logger';
import { idField } from '../../shared/schemas/id-field';

const context = { awsRequestId: 'req-1', functionName: 'test', getRemainingTimeInMillis: () => 1000 } as unknown as Context;

const event = (routeKey: string, options: { sub?: string; body?: string; headers?: Record<string, string>; pathParameters?: Record<string, string> } = {}): HttpEvent =>
  ({
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1],
    rawQueryString: '',
    headers: { 'content-type': 'application/json', authorization: 'Bearer token-1', ...options.headers },
    body: options.body,
    pathParameters: options.pathParameters,
    isBase64Encoded: false,
    requestContext: {
      routeKey,
      requestId: 'req-1',
      http: { method: routeKey.split(' ')[0] },
      authorizer: { jwt: { claims: options.sub ? { sub: options.sub } : {}, scopes: [] } },
    },
  }) as unknown as HttpEvent;

const schema = z.object({ name: z.string().trim().min(1, 'Name is required') });

const handler = httpHandler({
  'GET /api/auth/user': route({ run: async ({ userId, accessToken }) => ({ userId, accessToken }) }),
  'PUT /api/user/profile': route({ body: schema, run: async ({ body }) => ({ echoed: body.name }) }),
  'GET /api/login': route({ run: async () => redirect('/sign-in') }),
  'POST /api/stripe/webhook': route({ run: async ({ rawBody, event }) => ({ rawBody, parsed: event.body }) }),
  'GET /api/logout': route({
    run: async () => {
      throw new Error('database password is hunter2');
    },
  }),
});

const parse = (result: { body?: string }) => JSON.parse(result.body ?? 'null');

describe('httpHandler', () => {
  it('passes the JWT subject and token to the route and answers JSON', async () => {
    const result = await handler(event('GET /api/auth/user', { sub: 'user-1' }), context);
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('application/json');
    expect(parse(result)).toEqual({ userId: 'user-1', accessToken: 'token-1' });
  });

  it('hands the route the body exactly as received, before JSON parsing', async () => {
    const raw = '{ "id":"evt_1",  "n": 1.50 }';
    const result = await handler(event('POST /api/stripe/webhook', { body: raw, headers: { 'content-type': 'application/json' } }), context);
    expect(result.statusCode).toBe(200);
    expect(parse(result)).toEqual({ rawBody: raw, parsed: { id: 'evt_1', n: 1.5 } });
  });

  it('refuses a protected route without a subject (defence in depth)', async () => {
    const result = await handler(event('GET /api/auth/user'), context);
    expect(result.statusCode).toBe(401);
    expect(parse(result)).toEqual({ message: 'Unauthorized' });
  });

  it('validates the body with the zod schema and reports every issue', async () => {
    const ok = await handler(event('PUT /api/user/profile', { sub: 'u', body: '{"name":"  Ann "}' }), context);
    expect(parse(ok)).toEqual({ echoed: 'Ann' });
    const bad = await handler(event('PUT /api/user/profile', { sub: 'u', body: '{"name":" "}' }), context);
    expect(bad.statusCode).toBe(400);
    expect(parse(bad)).toEqual({ message: 'Name is required', details: [{ path: 'name', message: 'Name is required' }] });
  });

  it('answers 400 for malformed JSON and 415 for a body that is not JSON', async () => {
    const malformed = await handler(event('PUT /api/user/profile', { sub: 'u', body: '{"name":' }), context);
    expect(malformed.statusCode).toBe(400);
    const text = await handler(event('PUT /api/user/profile', { sub: 'u', body: 'name=x', headers: { 'content-type': 'text/plain' } }), context);
    expect(text.statusCode).toBe(415);
  });

  it('answers 400 to a JSON null body (or any body that is not an object), even when every field is optional; no body at all is an empty object', async () => {
    const partial = httpHandler({ 'PUT /api/user/settings': route({ body: z.object({ theme: z.string().optional() }), run: async ({ body }) => ({ saved: body }) }) });
    for (const body of ['null', '[]', '1', 'true']) {
      const refused = await partial(event('PUT /api/user/settings', { sub: 'u', body }), context);
      expect(refused.statusCode, body).toBe(400);
    }
    const none = await partial(event('PUT /api/user/settings', { sub: 'u' }), context);
    expect(none.statusCode).toBe(200);
    expect(parse(none)).toEqual({ saved: {} });
  });

  it('answers redirects', async () => {
    const result = await handler(event('GET /api/login'), context);
    expect(result.statusCode).toBe(302);
    expect(result.headers?.location).toBe('/sign-in');
  });

  it('turns unexpected errors into a bare 500 and keeps the details in the log only', async () => {
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const result = await handler(event('GET /api/logout'), context);
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('hunter2');
    expect(parse(result)).toEqual({ message: 'Internal server error' });
    expect(logged).toHaveBeenCalledOnce();
    logged.mockRestore();
  });

  it.each([
    [new NotFoundError('Project not found'), 404],
    [new ConflictError('Already exists'), 409],
    [new PlanLimitError('You have reached your project limit.'), 403],
  ])('maps %s to its status', async (error, status) => {
    const failing = httpHandler({
      'GET /api/auth/user': route({
        run: async () => {
          throw error;
        },
      }),
    });
    const result = await failing(event('GET /api/auth/user', { sub: 'u' }), context);
    expect(result.statusCode).toBe(status);
    expect(parse(result)).toEqual({ message: error.message });
  });
});

describe('httpHandler: large text downloads', () => {
  const csv = (bytes: number) => 'a,b,c\n'.repeat(Math.ceil(bytes / 6));
  const download = (bytes: number) =>
    httpHandler({
      'GET /api/projects/{id}/export': route({ run: async () => new Response(200, csv(bytes), { 'content-type': 'text/csv; charset=utf-8' }) }),
    });

  it('gzips a large text body for a client that accepts gzip, and leaves small ones and other clients alone', async () => {
    const large = await download(GZIP_RESPONSE_FROM_BYTES * 4)(event('GET /api/projects/{id}/export', { sub: 'u', headers: { 'accept-encoding': 'gzip, deflate, br' } }), context);
    expect(large.isBase64Encoded).toBe(true);
    expect(large.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'text/csv; charset=utf-8' });
    expect(gunzipSync(Buffer.from(large.body!, 'base64')).toString('utf8')).toBe(csv(GZIP_RESPONSE_FROM_BYTES * 4));
    expect(large.body!.length).toBeLessThan(GZIP_RESPONSE_FROM_BYTES);

    const plain = await download(GZIP_RESPONSE_FROM_BYTES * 4)(event('GET /api/projects/{id}/export', { sub: 'u' }), context);
    expect(plain.isBase64Encoded).toBeFalsy();
    expect(plain.headers?.['content-encoding']).toBeUndefined();

    const small = await download(1000)(event('GET /api/projects/{id}/export', { sub: 'u', headers: { 'accept-encoding': 'gzip' } }), context);
    expect(small.headers?.['content-encoding']).toBeUndefined();
    expect(small.body).toBe(csv(1000));
  });

  it('refuses what cannot fit Lambda\'s 6 MB with a clear JSON answer instead of a 502: 406 without gzip, 413 when even gzip is too large', async () => {
    const huge = 8 * 1024 * 1024;
    const plain = await download(huge)(event('GET /api/projects/{id}/export', { sub: 'u' }), context);
    expect(plain.statusCode).toBe(406);
    expect(JSON.parse(plain.body!)).toEqual({ message: DOWNLOAD_NEEDS_GZIP_MESSAGE });
    // The same body compresses well: gzipped it fits.
    const gzipped = await download(huge)(event('GET /api/projects/{id}/export', { sub: 'u', headers: { 'accept-encoding': 'gzip' } }), context);
    expect(gzipped.statusCode).toBe(200);
    expect(gzipped.body!.length).toBeLessThan(RESPONSE_BODY_MAX_BYTES);
    // Random text does not compress: refused.
    const noise = randomBytes(6 * 1024 * 1024).toString('base64');
    const incompressible = httpHandler({
      'GET /api/projects/{id}/export': route({ run: async () => new Response(200, noise, { 'content-type': 'text/csv; charset=utf-8' }) }),
    });
    const refused = await incompressible(event('GET /api/projects/{id}/export', { sub: 'u', headers: { 'accept-encoding': 'gzip' } }), context);
    expect(refused.statusCode).toBe(413);
    expect(JSON.parse(refused.body!)).toEqual({ message: DOWNLOAD_TOO_LARGE_MESSAGE });
  });
});

describe('httpHandler: ids that cannot exist', () => {
  const reached: string[] = [];
  const ids = httpHandler({
    'GET /api/bulk-jobs/{id}': route({
      run: async ({ pathParameters }) => {
        reached.push(pathParameters.id ?? '');
        return { id: pathParameters.id };
      },
    }),
    'POST /api/exports': route({
      body: z.object({ projectId: idField({ required: 'Please select a project to export.', notFound: 'Project not found' }), format: z.enum(['csv', 'xlsx']).default('csv') }),
      run: async ({ body }) => {
        reached.push(body.projectId);
        return body;
      },
    }),
  });
  const job = (id: string) => ids(event('GET /api/bulk-jobs/{id}', { sub: 'u', pathParameters: { id } }), context);
  const exportOf = (body: unknown) => ids(event('POST /api/exports', { sub: 'u', body: JSON.stringify(body) }), context);

  it('answers 404 to a path id that cannot exist, before the route runs', async () => {
    reached.length = 0;
    for (const id of ['x'.repeat(5000), 'a'.repeat(201), 'job#CHUNK#000001', 'a b', 'tab\there', 'new\nline', '%', 'é', '']) {
      const result = await job(id);
      expect(result.statusCode, JSON.stringify(id)).toBe(404);
      expect(parse(result)).toEqual({ message: 'Job not found' });
    }
    expect(reached).toEqual([]);
    const uuid = '0190a0b0-0000-7000-8000-000000000000';
    expect(parse(await job(uuid))).toEqual({ id: uuid });
    expect(parse(await job('a'.repeat(200)))).toEqual({ id: 'a'.repeat(200) });
    expect(reached).toEqual([uuid, 'a'.repeat(200)]);
  });

  it('answers 404 to a body id that cannot exist, 400 when it is missing or the body has other problems', async () => {
    reached.length = 0;
    const huge = await exportOf({ projectId: 'p'.repeat(5000) });
    expect(huge.statusCode).toBe(404);
    expect(parse(huge)).toEqual({ message: 'Project not found' });
    const blank = await exportOf({ projectId: '  ' });
    expect(blank.statusCode).toBe(400);
    expect(parse(blank).message).toBe('Please select a project to export.');
    const both = await exportOf({ projectId: 'p'.repeat(5000), format: 'pdf' });
    expect(both.statusCode).toBe(400);
    expect(reached).toEqual([]);
    expect((await exportOf({ projectId: ' 0190a0b0-0000-7000-8000-000000000000 ' })).statusCode).toBe(200);
    expect(reached).toEqual(['0190a0b0-0000-7000-8000-000000000000']);
  });
});

describe('httpHandler: an e-mail address in the path ({email})', () => {
  const reached: string[] = [];
  const handler = httpHandler({
    'DELETE /api/email-suppressions/{email}': route({
      run: async ({ pathParameters }) => {
        reached.push(pathParameters.email ?? '');
        return new Response(204);
      },
    }),
  });
  const remove = (email: string) => handler(event('DELETE /api/email-suppressions/{email}', { sub: 'u', pathParameters: { email } }), context);

  it('reaches the route with the address, decoded once when it arrives percent-encoded', async () => {
    reached.length = 0;
    for (const email of ['bounce@simulator.amazonses.com', 'bounce%40simulator.amazonses.com', 'a.b+tag@x.test']) expect((await remove(email)).statusCode, email).toBe(204);
    expect(reached).toEqual(['bounce@simulator.amazonses.com', 'bounce@simulator.amazonses.com', 'a.b+tag@x.test']);
  });

  it('answers 404 to what cannot be an address on the list, before the route runs', async () => {
    reached.length = 0;
    for (const email of ['no-at-sign', 'two@@x.test', 'a/b@x.test', 'a%2Fb%40x.test', 'a#b@x.test', 'a b@x.test', '%E0%A4%A', `${'a'.repeat(250)}@x.test`, '']) {
      const result = await remove(email);
      expect(result.statusCode, email).toBe(404);
      expect(parse(result)).toEqual({ message: 'This address is not on your suppression list' });
    }
    expect(reached).toEqual([]);
  });
});

describe('httpHandler: what the account gate is told', () => {
  it("passes the token's auth_time (a string, as API Gateway hands claims over), the route's allowances and the caller's address", async () => {
    const calls: unknown[] = [];
    const gated = httpHandler(
      {
        'GET /api/auth/user': route({ userItem: 'optional', passwordExpired: 'allow', run: async () => ({}) }),
        'DELETE /api/user/account': route({ whileDeleting: 'allow', run: async () => ({}) }),
        'GET /api/projects': route({ run: async () => ({}) }),
      },
      { accountGate: async (userId, options) => void calls.push({ userId, ...options }) },
    );
    const withClaims = (routeKey: string, claims: Record<string, string>) => {
      const e = event(routeKey, { sub: 'user-1' });
      e.requestContext.authorizer.jwt.claims = { sub: 'user-1', ...claims };
      (e.requestContext.http as { sourceIp?: string }).sourceIp = '203.0.113.9';
      return e;
    };
    await gated(withClaims('GET /api/auth/user', { auth_time: '1750000000' }), context);
    await gated(withClaims('DELETE /api/user/account', { auth_time: '1750000001' }), context);
    await gated(withClaims('GET /api/projects', {}), context);
    expect(calls).toEqual([
      { userId: 'user-1', userItem: 'optional', passwordExpired: 'allow', authTime: 1750000000, origin: { ipAddress: '203.0.113.9', userAgent: '' } },
      // The deletion route skips only the deletion check: the session rules still apply to it.
      { userId: 'user-1', whileDeleting: 'allow', authTime: 1750000001, origin: { ipAddress: '203.0.113.9', userAgent: '' } },
      { userId: 'user-1', origin: { ipAddress: '203.0.113.9', userAgent: '' } },
    ]);
  });
});
