import { beforeAll, describe, expect, inject, it } from 'vitest';
import { routes, routeKey } from '../../shared/routes';
import { apiUser, upgradeToPro, type ApiUser } from '../support/api';

/** Odd ids, odd paths and odd sizes: each answers a status and a JSON {message}, never a 500 or a reset. */
let user: ApiUser;
beforeAll(async () => {
  user = await apiUser();
  // Pro, so no route refuses on the plan before it looks at the id.
  await upgradeToPro(user);
});

const expectJsonError = async (response: Response, status: number) => {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { message?: unknown };
  expect(typeof body.message).toBe('string');
  return body.message as string;
};

const idRoutes = routes.filter((r) => /\{(id|email)\}/.test(r.path));
/** A route's path with its {id} or {email} filled in. */
const withParam = (path: string, value: string) => path.replace(/\{(id|email)\}/, value);

describe('ids that cannot exist', () => {
  it('has routes with an id to try', () => {
    expect(idRoutes.length).toBeGreaterThanOrEqual(6);
  });

  for (const route of idRoutes) {
    it(`${routeKey(route)}: answers 404 to a 5,000-character id, a key separator and a space`, async () => {
      for (const id of ['x'.repeat(5000), encodeURIComponent('00000000-0000-7000-8000-000000000000#CHUNK#000001'), 'a%20b', encodeURIComponent('é'.repeat(300))]) {
        const response = await user.call(withParam(route.path, id), {
          method: route.method,
          // A valid body where the route takes one, so the id is the only thing wrong.
          ...(route.method === 'PUT' ? { body: { name: 'Welcome', subject: 'Hi', htmlContent: '<p>Hi</p>' } } : {}),
        });
        await expectJsonError(response, 404);
      }
    });
  }

  it('POST /api/exports: answers 404 to a 5,000-character projectId, 400 to a blank one', async () => {
    const message = await expectJsonError(await user.call('/api/exports', { body: { projectId: 'p'.repeat(5000), format: 'csv' } }), 404);
    expect(message).toBe('Project not found');
    expect(await expectJsonError(await user.call('/api/exports', { body: { projectId: ' ', format: 'csv' } }), 400)).toBe('Please select a project to export.');
  });
});

describe('a JSON null body', () => {
  // Both settings schemas make every field optional: null once stood in for {} and saved nothing with a 200.
  for (const path of ['/api/security/settings', '/api/user/settings']) {
    it(`PUT ${path}: answers 400 like any other malformed body, and changes nothing`, async () => {
      const before = await user.json(path);
      const response = await fetch(`${inject('stack').urls.app}${path}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
        body: 'null',
      });
      await expectJsonError(response, 400);
      expect(await user.json(path)).toEqual(before);
    });
  }
});

describe('paths that do not decode', () => {
  it('answers 400 JSON to a malformed percent-encoding, with or without a token', async () => {
    const app = inject('stack').urls.app;
    for (const path of ['/api/bulk-jobs/%', '/api/bulk-jobs/%zz', '/api/projects/%C3%28/accounts', '/api/pro%jects']) {
      await expectJsonError(await fetch(`${app}${path}`), 400);
      await expectJsonError(await user.call(path), 400);
    }
  });
});

describe('bodies over 10 MB', () => {
  it('answer 413 JSON, not a dropped connection, and the gateway serves the next request', async () => {
    const csvText = `firstName,lastName,email\n${'Anna,Lee,anna@example.com\n'.repeat(Math.ceil((11 * 1024 * 1024) / 26))}`;
    const response = await user.call('/api/bulk-create', { body: { projectName: 'Too big', csvText } });
    const message = await expectJsonError(response, 413);
    expect(message).toMatch(/10 MB/);
    expect((await user.call('/api/auth/user')).status).toBe(200);
  });
});

describe('any route, odd input', () => {
  // The Stripe webhook is left out: it is signed, and refuses anything unsigned before reading it.
  const tried = routes.filter((r) => r.path !== '/api/stripe/webhook');
  const ids = ['0190a0b0-0000-7000-8000-000000000000', 'x'.repeat(5000), '%00', '..', encodeURIComponent('{"$ne":1}'), encodeURIComponent('a@b.test'), `${'a'.repeat(5000)}%40b.test`];
  const queries = ['', `?q=${'q'.repeat(5000)}&limit=${'9'.repeat(400)}`, '?cursor=%ZZ&limit=-1&showPasswords=maybe', `?cursor=${'A'.repeat(5000)}`, '?q=%00%01&q=second'];
  const bodies: (string | undefined)[] = [undefined, '{}', '[]', 'null', '"text"', '{"projectId":{"$ne":1},"csvData":"x","format":["csv"]}', `${'['.repeat(5000)}${']'.repeat(5000)}`, '{"name":"\ud800"}'];

  for (const route of tried) {
    it(`${routeKey(route)}: never answers 500`, async () => {
      const seen = new Set<number>();
      for (const id of /\{(id|email)\}/.test(route.path) ? ids : ['']) {
        for (const query of queries) {
          for (const body of route.method === 'GET' || route.method === 'DELETE' ? [undefined] : bodies) {
            const response = await fetch(`${inject('stack').urls.app}${withParam(route.path, id)}${query}`, {
              method: route.method,
              headers: { authorization: `Bearer ${user.accessToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
              body,
            });
            const text = await response.text();
            expect(response.status, `${route.method} ${withParam(route.path, id.slice(0, 40))}${query.slice(0, 60)} ${String(body).slice(0, 60)}: ${text.slice(0, 200)}`).toBeLessThan(500);
            seen.add(response.status);
          }
        }
      }
      expect(seen.size).toBeGreaterThan(0);
    });
  }
});
