import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startScimServer, type ScimServer, type ScimServerOptions } from '../../bin/local/scim-server';
import { localScimTenantToken } from '../../functions/integrations/local-scim-tenant';

/** The local SCIM directory, started alone on any free port, spoken to over HTTP as a client would. */
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const BULK_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const TOKEN = 'test-token-for-the-local-scim-directory';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scim-server-test-'));
const running: ScimServer[] = [];
const start = async (options: Partial<ScimServerOptions> = {}) => {
  const server = await startScimServer({ port: 0, token: TOKEN, ...options });
  running.push(server);
  return server;
};
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

interface ScimResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { id?: string };
  text: string;
}

async function scim(server: ScimServer, method: string, pathAndQuery: string, body?: unknown, token: string | null = TOKEN): Promise<ScimResponse> {
  const response = await fetch(`${server.url}${pathAndQuery}`, {
    method,
    headers: { 'content-type': 'application/scim+json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as ScimResponse['body']) : {}, text };
}

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: userName, primary: true, type: 'work' }],
  active: true,
  ...extra,
});
const filterBy = (expression: string) => `/Users?filter=${encodeURIComponent(expression)}`;

describe('local SCIM directory: discovery', () => {
  it('advertises bulk (with its limits), filter and patch, and serves /Schemas and /ResourceTypes', async () => {
    const server = await start({ maxOperations: 7, maxPayloadSize: 4096 });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/scim\/v2$/);
    const config = await scim(server, 'GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(config.body).toMatchObject({
      bulk: { supported: true, maxOperations: 7, maxPayloadSize: 4096 },
      filter: { supported: true },
      patch: { supported: true },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
    });
    const schemas = await scim(server, 'GET', '/Schemas');
    expect((schemas.body.Resources as { id: string }[]).map((s) => s.id)).toContain(USER_SCHEMA);
    const types = await scim(server, 'GET', '/ResourceTypes');
    // Users, and Groups for the projects' platform groups (docs/provisioning.md, "Groups").
    expect((types.body.Resources as { endpoint: string }[]).map((t) => t.endpoint).sort()).toEqual(['/Groups', '/Users']);
  });
});

describe('local SCIM directory: users', () => {
  it('creates a user (201, Location), keeps the password hashed and never returns it', async () => {
    const server = await start();
    const created = await scim(server, 'POST', '/Users', newUser('ada@example.com', { password: 'Sup3r-secret!' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userName: 'ada@example.com', active: true, meta: { resourceType: 'User' } });
    const location = created.headers.get('location');
    expect(location).toBe(`${server.url}/Users/${created.body.id}`);
    expect((created.body.meta as { location: string }).location).toBe(location);

    const answers = [
      created,
      await scim(server, 'GET', `/Users/${created.body.id}`),
      await scim(server, 'GET', '/Users'),
      await scim(server, 'GET', `${filterBy('userName eq "ada@example.com"')}&attributes=userName,password`),
      await scim(server, 'PATCH', `/Users/${created.body.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'displayName', value: 'Ada' }] }),
      await scim(server, 'PUT', `/Users/${created.body.id}`, newUser('ada@example.com', { password: 'N3w-secret!' })),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200 + (answer === created ? 1 : 0));
      expect(answer.text).not.toMatch(/password|Sup3r-secret|N3w-secret/i);
    }
    expect(server.stats()).toMatchObject({ created: 1, users: 1 });
  });

  it('refuses a second user whose userName differs only in case: 409 uniqueness, nothing created', async () => {
    const server = await start();
    expect((await scim(server, 'POST', '/Users', newUser('Grace.Hopper@Example.com'))).status).toBe(201);
    const duplicate = await scim(server, 'POST', '/Users', newUser('grace.hopper@EXAMPLE.com'));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness' });
    expect(duplicate.body.detail).toMatch(/already taken/);
    expect(server.users().map((u) => u.userName)).toEqual(['Grace.Hopper@Example.com']);

    // Renaming another user onto the taken name is refused too.
    const other = await scim(server, 'POST', '/Users', newUser('other@example.com'));
    const rename = await scim(server, 'PUT', `/Users/${other.body.id}`, newUser('GRACE.HOPPER@example.com'));
    expect(rename.status).toBe(409);
    expect(rename.body.scimType).toBe('uniqueness');
  });

  it('finds a user by userName and by e-mail without regard to case, and by other filters', async () => {
    const server = await start();
    const grace = await scim(server, 'POST', '/Users', newUser('Grace@Example.com'));
    await scim(server, 'POST', '/Users', newUser('alan@example.com'));
    const byName = await scim(server, 'GET', filterBy('userName eq "GRACE@example.COM"'));
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({ totalResults: 1, Resources: [{ id: grace.body.id, userName: 'Grace@Example.com' }] });
    const byEmail = await scim(server, 'GET', filterBy('emails.value eq "grace@EXAMPLE.com"'));
    expect(byEmail.body).toMatchObject({ totalResults: 1, Resources: [{ id: grace.body.id }] });
    const either = await scim(server, 'GET', filterBy('userName eq "grace@example.com" or userName eq "ALAN@example.com"'));
    expect(either.body.totalResults).toBe(2);
    const none = await scim(server, 'GET', filterBy('userName eq "nobody@example.com"'));
    expect(none.body).toMatchObject({ totalResults: 0 });
    const searched = await scim(server, 'POST', '/Users/.search', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: 'userName eq "grace@EXAMPLE.com"',
    });
    expect(searched.body).toMatchObject({ totalResults: 1, Resources: [{ id: grace.body.id }] });
    const startsWith = await scim(server, 'GET', filterBy('userName sw "alan"'));
    expect(startsWith.body).toMatchObject({ totalResults: 1, Resources: [{ userName: 'alan@example.com' }] });
  });

  it('answers a filter or attribute list it cannot parse with 400 invalidFilter, never a 500', async () => {
    const server = await start();
    const user = await scim(server, 'POST', '/Users', newUser('grace@example.com'));
    const searchSchema = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
    const answers = [
      ...['"a"', 'not', 'pr', 'userName xx "a"', '(userName eq "a"'].flatMap((filter) => [
        scim(server, 'GET', filterBy(filter)),
        scim(server, 'POST', '/Users/.search', { schemas: [searchSchema], filter }),
        scim(server, 'POST', '/.search', { schemas: [searchSchema], filter }),
      ]),
      ...[',', 'a..b'].flatMap((list) => [
        scim(server, 'GET', `/Users?attributes=${encodeURIComponent(list)}`),
        scim(server, 'GET', `/Users?excludedAttributes=${encodeURIComponent(list)}`),
        scim(server, 'GET', `/Users/${user.body.id}?attributes=${encodeURIComponent(list)}`),
      ]),
    ];
    for (const answer of await Promise.all(answers)) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ schemas: [ERROR_SCHEMA], scimType: 'invalidFilter' });
    }
  });

  it('deactivates with PATCH (active=false), then deletes; an unknown or impossible id is 404', async () => {
    const server = await start();
    const user = await scim(server, 'POST', '/Users', newUser('leaver@example.com'));
    const patched = await scim(server, 'PATCH', `/Users/${user.body.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(patched.status).toBe(200);
    expect(patched.body.active).toBe(false);
    expect((await scim(server, 'GET', `/Users/${user.body.id}`)).body.active).toBe(false);
    expect(server.users()).toEqual([{ id: user.body.id, userName: 'leaver@example.com', active: false, emails: ['leaver@example.com'] }]);
    // A PATCH asking for some attributes back still keeps all of them.
    const narrowed = await scim(server, 'PATCH', `/Users/${user.body.id}?attributes=userName`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Leaver' }],
    });
    expect(narrowed.status).toBe(200);
    expect((await scim(server, 'GET', `/Users/${user.body.id}`)).body).toMatchObject({
      displayName: 'Leaver',
      active: false,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'leaver@example.com' }],
    });

    expect((await scim(server, 'DELETE', `/Users/${user.body.id}`)).status).toBe(204);
    expect((await scim(server, 'GET', `/Users/${user.body.id}`)).status).toBe(404);
    const again = await scim(server, 'DELETE', `/Users/${user.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.schemas).toEqual([ERROR_SCHEMA]);
    for (const id of ['a%22b', 'x'.repeat(300), '00000000-0000-4000-8000-000000000000']) {
      expect((await scim(server, 'GET', `/Users/${id}`)).status).toBe(404);
    }
    // The name is free again once its user is gone.
    expect((await scim(server, 'POST', '/Users', newUser('LEAVER@example.com'))).status).toBe(201);
  });

  it('answers bad input with a SCIM 400, never a 500', async () => {
    const server = await start();
    const notJson = await scim(server, 'POST', '/Users', '{"userName":');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ schemas: [ERROR_SCHEMA], scimType: 'invalidSyntax' });
    const noUserName = await scim(server, 'POST', '/Users', { schemas: [USER_SCHEMA], active: true });
    expect(noUserName.status).toBe(400);
    expect(noUserName.body.detail).toMatch(/userName/);
    const badPatch = await scim(server, 'PATCH', '/Users/whatever', { Operations: 'no' });
    expect(badPatch.status).toBeLessThan(500);
    expect(server.stats().users).toBe(0);
  });

  it('pages a list by startIndex and count (RFC 7644 3.4.2.4): 1-based, totalResults the full count, itemsPerPage what is returned', async () => {
    const server = await start();
    const names = Array.from({ length: 25 }, (_, i) => `pager${String(i + 1).padStart(2, '0')}@example.com`);
    for (const name of names) expect((await scim(server, 'POST', '/Users', newUser(name))).status).toBe(201);
    const page = async (query: string) => {
      const answer = await scim(server, 'GET', `/Users?sortBy=userName&${query}`);
      expect(answer.status).toBe(200);
      const { startIndex, itemsPerPage, totalResults, Resources } = answer.body as { startIndex: number; itemsPerPage: number; totalResults: number; Resources?: { userName: string }[] };
      return { startIndex, itemsPerPage, totalResults, userNames: (Resources ?? []).map((u) => u.userName) };
    };
    const pages = [await page('startIndex=1&count=10'), await page('startIndex=11&count=10'), await page('startIndex=21&count=10')];
    expect(pages.map(({ startIndex, itemsPerPage, totalResults }) => ({ startIndex, itemsPerPage, totalResults }))).toEqual([
      { startIndex: 1, itemsPerPage: 10, totalResults: 25 },
      { startIndex: 11, itemsPerPage: 10, totalResults: 25 },
      { startIndex: 21, itemsPerPage: 5, totalResults: 25 },
    ]);
    expect(pages.flatMap((p) => p.userNames)).toEqual(names);
    // Past the end: no users, the total still said; count=0: the total only; below 1: from the first.
    expect(await page('startIndex=26&count=10')).toMatchObject({ startIndex: 26, itemsPerPage: 0, totalResults: 25, userNames: [] });
    expect(await page('count=0')).toMatchObject({ itemsPerPage: 0, totalResults: 25, userNames: [] });
    expect(await page('startIndex=0&count=2')).toMatchObject({ startIndex: 1, itemsPerPage: 2, userNames: names.slice(0, 2) });
    // With a filter, the page is of the matching users; over POST /.search the same.
    const filtered = await scim(server, 'GET', `/Users?filter=${encodeURIComponent('userName sw "pager1"')}&sortBy=userName&startIndex=3&count=4`);
    expect(filtered.body).toMatchObject({ totalResults: 10, startIndex: 3, itemsPerPage: 4 });
    expect((filtered.body.Resources as { userName: string }[]).map((u) => u.userName)).toEqual(names.slice(11, 15));
    const searched = await scim(server, 'POST', '/Users/.search', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      sortBy: 'userName',
      startIndex: 11,
      count: 10,
    });
    expect(searched.body).toMatchObject({ totalResults: 25, startIndex: 11, itemsPerPage: 10 });
    expect((searched.body.Resources as { userName: string }[]).map((u) => u.userName)).toEqual(names.slice(10, 20));
    // Not a number: a SCIM 400, never a 500.
    for (const query of ['startIndex=abc', 'count=1.5', 'count=ten']) {
      const bad = await scim(server, 'GET', `/Users?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ schemas: [ERROR_SCHEMA], scimType: 'invalidValue' });
    }
  });
});

describe('local SCIM directory: /Bulk', () => {
  const bulkPost = (bulkId: string, userName: string) => ({ method: 'POST', path: '/Users', bulkId, data: newUser(userName) });

  it('runs each operation with its own status, resolving bulkIds; one failing operation does not stop the others', async () => {
    const server = await start();
    await scim(server, 'POST', '/Users', newUser('taken@example.com'));
    const response = await scim(server, 'POST', '/Bulk', {
      schemas: [BULK_SCHEMA],
      Operations: [bulkPost('one', 'one@example.com'), bulkPost('dup', 'TAKEN@example.com'), bulkPost('two', 'two@example.com')],
    });
    expect(response.status).toBe(200);
    const operations = response.body.Operations as { bulkId: string; status: string; location?: string; response?: { scimType?: string } }[];
    expect(operations.map((o) => [o.bulkId, o.status])).toEqual([
      ['one', '201'],
      ['dup', '409'],
      ['two', '201'],
    ]);
    expect(operations[1]!.response?.scimType).toBe('uniqueness');
    const one = server.users().find((u) => u.userName === 'one@example.com')!;
    expect(operations[0]!.location).toBe(`${server.url}/Users/${one.id}`);
    expect(server.stats()).toMatchObject({ created: 3, users: 3 });
  });

  it('resolves a reference to a later operation\'s bulkId (run first), and refuses circular references', async () => {
    const server = await start();
    const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    const reporting = (bulkId: string, manager: string) => ({
      method: 'POST',
      path: '/Users',
      bulkId,
      data: newUser(`${bulkId}@example.com`, { schemas: [USER_SCHEMA, enterprise], [enterprise]: { manager: { value: `bulkId:${manager}` } } }),
    });
    const response = await scim(server, 'POST', '/Bulk', { schemas: [BULK_SCHEMA], Operations: [reporting('report', 'boss'), bulkPost('boss', 'boss@example.com')] });
    expect((response.body.Operations as { bulkId: string; status: string }[]).map((o) => [o.bulkId, o.status])).toEqual([
      ['report', '201'],
      ['boss', '201'],
    ]);
    const boss = server.users().find((u) => u.userName === 'boss@example.com')!;
    const report = await scim(server, 'GET', filterBy('userName eq "report@example.com"'));
    expect((report.body.Resources as Record<string, { manager: { value: string } }>[])[0]![enterprise]!.manager.value).toBe(boss.id);
    expect(server.stats().users).toBe(2);

    for (const operations of [[reporting('a', 'b'), reporting('b', 'a')], [reporting('self', 'self')]]) {
      const circular = await scim(server, 'POST', '/Bulk', { schemas: [BULK_SCHEMA], Operations: operations });
      expect(circular.status).toBe(400);
      expect(circular.body.detail).toMatch(/Circular bulkId references/);
    }
    expect(server.stats().users).toBe(2);
  });

  it('stops after failOnErrors errors, leaving the remaining operations unrun', async () => {
    const server = await start();
    await scim(server, 'POST', '/Users', newUser('taken@example.com'));
    const response = await scim(server, 'POST', '/Bulk', {
      schemas: [BULK_SCHEMA],
      failOnErrors: 1,
      Operations: [bulkPost('dup', 'taken@example.com'), bulkPost('after', 'after@example.com')],
    });
    expect(response.status).toBe(200);
    expect((response.body.Operations as { status: string }[]).map((o) => o.status)).toEqual(['409']);
    expect(server.users().map((u) => u.userName)).toEqual(['taken@example.com']);
  });

  it('refuses more than maxOperations and more than maxPayloadSize with 413, creating nothing', async () => {
    const server = await start({ maxOperations: 2, maxPayloadSize: 2048 });
    const tooMany = await scim(server, 'POST', '/Bulk', {
      schemas: [BULK_SCHEMA],
      Operations: [bulkPost('a', 'a@example.com'), bulkPost('b', 'b@example.com'), bulkPost('c', 'c@example.com')],
    });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.schemas).toEqual([ERROR_SCHEMA]);
    const tooLarge = await scim(server, 'POST', '/Bulk', {
      schemas: [BULK_SCHEMA],
      Operations: [{ ...bulkPost('a', 'a@example.com'), data: newUser('a@example.com', { displayName: 'x'.repeat(3000) }) }],
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.detail).toMatch(/maxPayloadSize \(2048 bytes\)/);
    expect(server.stats().users).toBe(0);
  });
});

describe('local SCIM directory: bearer token', () => {
  it('answers 401 (SCIM error, WWW-Authenticate) without the token or with a wrong one, and does nothing', async () => {
    const server = await start();
    for (const token of [null, 'wrong-token', `${TOKEN}x`]) {
      for (const [method, target] of [
        ['POST', '/Users'],
        ['GET', '/Users'],
        ['GET', '/ServiceProviderConfig'],
        ['POST', '/Bulk'],
      ] as const) {
        const response = await scim(server, method, target, method === 'POST' ? newUser('intruder@example.com') : undefined, token);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(response.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '401' });
      }
    }
    expect(server.stats().users).toBe(0);
  });
});

describe("local SCIM directory: users' own tenants", () => {
  const KEY = 'tenant-key-for-the-test';
  const listed = async (server: ScimServer, token: string) => ((await scim(server, 'GET', '/Users', undefined, token)).body.Resources as { userName: string }[] | undefined ?? []).map((u) => u.userName);

  it("opens each user's own directory with their token: one never sees, finds, changes or collides with another's people", async () => {
    const tenantsDir = path.join(dataDir, 'tenants');
    const server = await start({ tenants: { key: KEY, dataDir: tenantsDir } });
    const ann = localScimTenantToken(KEY, 'user-ann');
    const bob = localScimTenantToken(KEY, 'user-bob');
    expect(ann).not.toBe(bob);
    const created = await scim(server, 'POST', '/Users', newUser('ada@example.com'), ann);
    expect(created.status).toBe(201);
    // The same name in another tenant is no conflict: a directory of its own.
    expect((await scim(server, 'POST', '/Users', newUser('ada@example.com'), bob)).status).toBe(201);
    expect((await scim(server, 'POST', '/Users', newUser('bob.only@example.com'), bob)).status).toBe(201);
    expect(await listed(server, ann)).toEqual(['ada@example.com']);
    expect((await listed(server, bob)).sort()).toEqual(['ada@example.com', 'bob.only@example.com']);
    expect((await scim(server, 'GET', filterBy('userName eq "bob.only@example.com"'), undefined, ann)).body.totalResults).toBe(0);
    // Ann's user by id: not found for Bob, and not deleted by him.
    expect((await scim(server, 'GET', `/Users/${created.body.id}`, undefined, bob)).status).toBe(404);
    expect((await scim(server, 'DELETE', `/Users/${created.body.id}`, undefined, bob)).status).toBe(404);
    expect((await scim(server, 'GET', `/Users/${created.body.id}`, undefined, ann)).status).toBe(200);
    // /Bulk too works in the token's tenant only.
    const bulk = await scim(server, 'POST', '/Bulk', { schemas: [BULK_SCHEMA], Operations: [{ method: 'POST', path: '/Users', bulkId: 'b1', data: newUser('bulk@example.com') }] }, ann);
    expect(bulk.status).toBe(200);
    expect((await listed(server, ann)).sort()).toEqual(['ada@example.com', 'bulk@example.com']);
    expect(await listed(server, bob)).not.toContain('bulk@example.com');
    // The operator's token opens the operator's directory, which holds none of theirs.
    expect(await listed(server, TOKEN)).toEqual([]);
    // A token made with another key, or one tenant's name with another's code, opens nothing.
    const [, annTenant] = ann.split('.');
    const [, , bobMac] = bob.split('.');
    for (const forged of [localScimTenantToken('another-key', 'user-ann'), `tenant.${annTenant}.${bobMac}`, `tenant.${annTenant}`]) {
      expect((await scim(server, 'GET', '/Users', undefined, forged)).status).toBe(401);
    }
    // Each tenant is kept in a file of its own across a restart.
    await server.stop();
    running.splice(running.indexOf(server), 1);
    expect(fs.readdirSync(tenantsDir).sort()).toEqual([`${annTenant}.json`, `${bob.split('.')[1]}.json`].sort());
    const again = await start({ tenants: { key: KEY, dataDir: tenantsDir } });
    expect((await listed(again, ann)).sort()).toEqual(['ada@example.com', 'bulk@example.com']);
    expect((await listed(again, bob)).sort()).toEqual(['ada@example.com', 'bob.only@example.com']);
  });

  it('refuses tenant tokens when the server has no tenants', async () => {
    const server = await start();
    expect((await scim(server, 'GET', '/Users', undefined, localScimTenantToken(KEY, 'user-ann'))).status).toBe(401);
  });
});

describe('local SCIM directory: injected faults', () => {
  const run = async (server: ScimServer) => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i += 1) {
      const response = await scim(server, 'POST', '/Users', newUser(`user${i}@example.com`));
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get('retry-after')).toBe('2');
      if (response.status >= 429) expect(response.body.schemas).toEqual([ERROR_SCHEMA]);
    }
    return statuses;
  };

  it('answers about the given shares of /Users requests 429 (Retry-After) and 500 before doing anything, counted, in a repeatable sequence', async () => {
    const faults = { rate429: 0.25, rate500: 0.15, retryAfterSeconds: 2 };
    const server = await start({ faults });
    const statuses = await run(server);
    const count = (status: number) => statuses.filter((s) => s === status).length;
    expect(count(429) + count(500) + count(201)).toBe(60);
    expect(count(429)).toBeGreaterThanOrEqual(5);
    expect(count(500)).toBeGreaterThanOrEqual(3);
    // A faulted request did nothing: every user stored came from a 201.
    expect(server.stats()).toEqual({ requests: 60, created: count(201), faults429: count(429), faults500: count(500), users: count(201) });
    // Discovery endpoints are never faulted.
    expect((await scim(server, 'GET', '/ServiceProviderConfig')).status).toBe(200);

    const twin = await start({ faults });
    expect(await run(twin)).toEqual(statuses);
    // reset() starts the sequence over, with no users.
    twin.reset();
    expect(twin.stats()).toEqual({ requests: 0, created: 0, faults429: 0, faults500: 0, users: 0 });
    expect(await run(twin)).toEqual(statuses);
  });
});

describe('local SCIM directory: data file', () => {
  it('keeps its users across a restart (same ids, uniqueness still enforced) and never writes a clear password', async () => {
    // Its folder is made when missing.
    const dataFile = path.join(dataDir, 'restart', 'scim-directory.json');
    const first = await start({ dataFile });
    const ada = await scim(first, 'POST', '/Users', newUser('ada@example.com', { password: 'Pl4in-text-pw' }));
    const alan = await scim(first, 'POST', '/Users', newUser('alan@example.com'));
    await scim(first, 'PATCH', `/Users/${alan.body.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] });
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const stored = fs.readFileSync(dataFile, 'utf8');
    expect(stored).not.toContain('Pl4in-text-pw');
    expect(stored).toMatch(/"passwordHash":"sha256\$[^$"]+\$[0-9a-f]{64}"/);
    expect(fs.readdirSync(path.dirname(dataFile))).toEqual(['scim-directory.json']);

    const second = await start({ dataFile });
    expect(second.users().sort((a, b) => a.userName.localeCompare(b.userName))).toEqual([
      { id: ada.body.id, userName: 'ada@example.com', active: true, emails: ['ada@example.com'] },
      { id: alan.body.id, userName: 'alan@example.com', active: false, emails: ['alan@example.com'] },
    ]);
    expect((await scim(second, 'GET', filterBy('userName eq "ADA@example.com"'))).body.totalResults).toBe(1);
    expect((await scim(second, 'POST', '/Users', newUser('Ada@Example.com'))).status).toBe(409);
  });

  it('moves an unreadable data file aside (never overwriting it) and starts empty', async () => {
    const dataFile = path.join(dataDir, 'corrupt', 'scim-directory.json');
    fs.mkdirSync(path.dirname(dataFile), { recursive: true });
    fs.writeFileSync(dataFile, '{"version":1,"users":[{"id":');
    const messages: string[] = [];
    const server = await start({ dataFile, log: (m) => messages.push(m) });
    expect(server.stats().users).toBe(0);
    const aside = fs.readdirSync(path.dirname(dataFile)).filter((f) => f.includes('.unreadable-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(path.dirname(dataFile), aside[0]!), 'utf8')).toBe('{"version":1,"users":[{"id":');
    expect(messages.join('\n')).toMatch(/could not be read/);
  });
});

describe('the test stack runs a local SCIM directory', () => {
  let stackScim: { url: string; token: string };
  beforeAll(() => {
    stackScim = inject('stack').scim;
  });

  it('answers with the token the stack made, and only with it', async () => {
    const withToken = await fetch(`${stackScim.url}/ServiceProviderConfig`, { headers: { authorization: `Bearer ${stackScim.token}` } });
    expect(withToken.status).toBe(200);
    expect(((await withToken.json()) as { bulk: { supported: boolean } }).bulk.supported).toBe(true);
    const without = await fetch(`${stackScim.url}/Users`);
    expect(without.status).toBe(401);
    expect(fs.readFileSync(path.join(inject('stack').dataDir, 'scim-token'), 'utf8').trim()).toBe(stackScim.token);
  });
});
