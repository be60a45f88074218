import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findRoute, groupAccess, isWellEncodedPath, matchPath, queues, routeGroups, routes, routeKey, workerAccess } from '../../shared/routes';

const root = path.resolve(import.meta.dirname, '../..');

describe('route table', () => {
  it('has one handler module per route group and per worker', () => {
    for (const group of routeGroups) expect(fs.existsSync(path.join(root, 'functions', group, 'handler.ts')), group).toBe(true);
    for (const q of queues) {
      for (const worker of [q.worker, q.deadLetterWorker]) {
        if (worker) expect(fs.existsSync(path.join(root, 'functions', 'workers', `${worker}.ts`)), worker).toBe(true);
      }
    }
  });

  it('has no duplicate route and grants for every group and worker', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const group of routeGroups) expect(groupAccess[group]).toBeDefined();
    for (const q of queues) for (const worker of [q.worker, q.deadLetterWorker]) if (worker) expect(workerAccess[worker]).toBeDefined();
  });

  it('keeps every API path under /api and protects all but the browser redirects, sign-in, the signed Stripe webhook and the one-time credential links', () => {
    for (const route of routes) expect(route.path.startsWith('/api/')).toBe(true);
    expect(routes.filter((r) => r.auth === 'none').map(routeKey).sort()).toEqual([
      'GET /api/login',
      'GET /api/logout',
      'POST /api/auth/sign-in',
      'POST /api/auth/sign-in/totp',
      'POST /api/credential-links/reveal',
      'POST /api/credential-links/state',
      'POST /api/stripe/webhook',
    ]);
  });

  it('matches path parameters and nothing else', () => {
    expect(matchPath('/api/projects/{id}/export', '/api/projects/abc/export')).toEqual({ id: 'abc' });
    expect(matchPath('/api/projects/{id}', '/api/projects/')).toBeUndefined();
    expect(matchPath('/api/projects/{id}', '/api/projects/a/b')).toBeUndefined();
    expect(findRoute('GET', '/api/auth/user')?.route.group).toBe('auth');
    expect(findRoute('POST', '/api/auth/user')).toBeUndefined();
  });

  it('decodes any path segment back to what was encoded', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (segment) => {
        expect(matchPath('/api/things/{id}', `/api/things/${encodeURIComponent(segment)}`)).toEqual({ id: segment });
      }),
    );
  });

  it('never throws on a malformed percent-encoding: the parameter matches nothing and the path is flagged', () => {
    for (const bad of ['%', '%zz', 'a%2', '%C3%28', '%E0%A4%A']) {
      expect(matchPath('/api/bulk-jobs/{id}', `/api/bulk-jobs/${bad}`), bad).toBeUndefined();
      expect(findRoute('GET', `/api/bulk-jobs/${bad}`), bad).toBeUndefined();
      expect(isWellEncodedPath(`/api/bulk-jobs/${bad}`), bad).toBe(false);
      expect(isWellEncodedPath(`/api/pro${bad}jects`), bad).toBe(false);
    }
    expect(isWellEncodedPath('/api/bulk-jobs/a%20b%C3%A9')).toBe(true);
  });

  it('has ids (or an e-mail address, {email}) as its only path parameters (functions/core/http.ts refuses any other shape with 404)', () => {
    for (const route of routes) {
      for (const param of route.path.match(/\{[^}]*\}/g) ?? []) expect(['{id}', '{email}'], routeKey(route)).toContain(param);
    }
  });
});

describe('queue retries (docs/deploy.md, Queue retries)', () => {
  const bulk = queues.find((q) => q.name === 'bulk')!;

  it('the bulk queue tries a chunk at least 5 times (AWS advice for a Lambda event source), about 25 minutes before the dead-letter queue', () => {
    expect(bulk.maxReceiveCount).toBeGreaterThanOrEqual(5);
    // Every try but the first waits for the visibility timeout: give a throttling spell time to pass, but not hours.
    const minutesBeforeDeadLetter = (bulk.maxReceiveCount * bulk.visibilityTimeoutSeconds) / 60;
    expect(minutesBeforeDeadLetter).toBeGreaterThanOrEqual(20);
    expect(minutesBeforeDeadLetter).toBeLessThanOrEqual(60);
  });
});
