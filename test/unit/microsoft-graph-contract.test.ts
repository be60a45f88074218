import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { provisioningSettingsSchema } from '../../shared/schemas/integrations';
import { provisioningSupport } from '../../shared/schemas/provisioning';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import { adapterFactory, pacingOf } from '../../functions/provisioning/adapters';
import { microsoftGraphAdapter, type GraphSettings } from '../../functions/provisioning/adapters/microsoft-graph';
import { platformClient } from '../../functions/provisioning/platform-client';
import type { ProvisioningPerson } from '../../functions/provisioning/provisioning-port';

/**
 * What Microsoft Graph v1.0 documents (learn.microsoft.com/graph: Create user, JSON batching,
 * Throttling, List users with $filter), played by a loopback server: POST /users answers 201 with
 * the user; a userPrincipalName already held answers 400 "Another object with the same value for
 * property userPrincipalName already exists." (ObjectConflict); a UPN off the verified domains and
 * a weak password answer 400; POST /$batch takes up to 20 requests and answers each with its own
 * id, status, headers and body, in any order (a throttled one 429 with its Retry-After); the
 * Microsoft identity platform's token endpoint grants client credentials for <api>/.default.
 */
interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}
interface GraphUserRecord {
  id: string;
  userPrincipalName: string;
  mail: string | null;
  otherMails: string[];
  accountEnabled: boolean;
  displayName: string;
}

const DOMAIN = 'contoso.example';
const TENANT = '11111111-2222-3333-4444-555555555555';
const ACCESS_TOKEN = 'graph-access-token';

const fake = {
  users: new Map<string, GraphUserRecord>(),
  received: [] as Received[],
  tokenRequests: [] as URLSearchParams[],
  /** UPNs whose next creation inside a $batch is throttled (429, Retry-After: 7). */
  throttleInBatch: new Set<string>(),
  /** The next N calls (any) answer 429 with Retry-After: 3. */
  throttleCalls: 0,
  nextId: 1,
};

const graphError = (status: number, code: string, message: string, details?: { code: string; target: string }[]) => ({
  status,
  body: { error: { code, message, ...(details ? { details } : {}), innerError: { date: '2026-11-23T00:00:00', 'request-id': 'req-1', 'client-request-id': 'req-1' } } },
});

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** One Graph request (top level or inside a $batch), relative to /v1.0. */
function graphRequest(method: string, url: URL, body: unknown): Answer {
  if (method === 'POST' && url.pathname === '/users') {
    const user = body as Record<string, unknown> & { passwordProfile?: { password?: string } };
    for (const field of ['accountEnabled', 'displayName', 'mailNickname', 'userPrincipalName', 'passwordProfile']) {
      if (user?.[field] === undefined) return graphError(400, 'Request_BadRequest', `Invalid value specified for property '${field}' of resource 'User'.`);
    }
    const upn = String(user.userPrincipalName);
    if (!upn.toLowerCase().endsWith(`@${DOMAIN}`)) {
      return graphError(400, 'Request_BadRequest', 'The domain portion of the userPrincipalName property is invalid. You must use one of the verified domain names in your organization.', [
        { code: 'InvalidValue', target: 'userPrincipalName' },
      ]);
    }
    if ((user.passwordProfile?.password ?? '').length < 8) {
      return graphError(400, 'Request_BadRequest', 'The specified password does not comply with password complexity requirements. Please provide a different password.');
    }
    if ([...fake.users.values()].some((u) => u.userPrincipalName.toLowerCase() === upn.toLowerCase())) {
      return graphError(400, 'Request_BadRequest', 'Another object with the same value for property userPrincipalName already exists.', [{ code: 'ObjectConflict', target: 'userPrincipalName' }]);
    }
    const id = `00000000-0000-0000-0000-${String(fake.nextId++).padStart(12, '0')}`;
    const created: GraphUserRecord = { id, userPrincipalName: upn, mail: (user.mail as string) ?? null, otherMails: [], accountEnabled: user.accountEnabled === true, displayName: String(user.displayName) };
    fake.users.set(id, created);
    return { status: 201, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users/$entity', ...created, givenName: user.givenName, surname: user.surname } };
  }
  if (method === 'GET' && url.pathname === '/users') {
    const match = /^userPrincipalName eq '((?:[^']|'')*)'$/.exec(url.searchParams.get('$filter') ?? '');
    if (!match) return graphError(400, 'Request_UnsupportedQuery', 'Unsupported Query.');
    const upn = match[1]!.replace(/''/g, "'").toLowerCase();
    const value = [...fake.users.values()].filter((u) => u.userPrincipalName.toLowerCase() === upn);
    return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users(id,userPrincipalName,mail,otherMails,accountEnabled)', value } };
  }
  const one = /^\/users\/([^/]+)$/.exec(url.pathname);
  if (one) {
    const found = fake.users.get(decodeURIComponent(one[1]!));
    if (!found) return graphError(404, 'Request_ResourceNotFound', `Resource '${one[1]}' does not exist or one of its queried reference-property objects are not present.`);
    if (method === 'PATCH') {
      Object.assign(found, body as object);
      return { status: 204 };
    }
    if (method === 'DELETE') {
      fake.users.delete(found.id);
      return { status: 204 };
    }
  }
  return graphError(400, 'BadRequest', `Resource not found for the segment '${url.pathname}'.`);
}

const send = (res: http.ServerResponse, answer: Answer) => {
  res.writeHead(answer.status, { ...(answer.body !== undefined ? { 'content-type': 'application/json' } : {}), ...answer.headers });
  res.end(answer.body !== undefined ? JSON.stringify(answer.body) : undefined);
};

const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString()));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://graph.test');
    if (url.pathname === `/${TENANT}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(raw);
      fake.tokenRequests.push(form);
      if (!form.get('scope')) return send(res, { status: 400, body: { error: 'invalid_request', error_description: "AADSTS90014: The required field 'scope' is missing from the credential." } });
      if (form.get('client_secret') !== 'right-secret') return send(res, { status: 401, body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' } });
      return send(res, { status: 200, body: { token_type: 'Bearer', expires_in: 3599, access_token: ACCESS_TOKEN } });
    }
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    fake.received.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
    if (req.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) {
      return send(res, graphError(401, 'InvalidAuthenticationToken', 'Access token validation failure. Invalid audience.'));
    }
    if (fake.throttleCalls > 0) {
      fake.throttleCalls--;
      return send(res, { ...graphError(429, 'TooManyRequests', 'Please retry again later.'), headers: { 'retry-after': '3' } });
    }
    if (!url.pathname.startsWith('/v1.0/')) return send(res, graphError(400, 'BadRequest', 'Invalid version.'));
    const path = url.pathname.slice('/v1.0'.length);
    if (req.method === 'POST' && path === '/$batch') {
      const requests = (body as { requests?: { id: string; method: string; url: string; headers?: Record<string, string>; body?: unknown }[] }).requests ?? [];
      if (requests.length > 20) return send(res, graphError(400, 'BadRequest', 'The number of requests in the batch exceeds the limit of 20.'));
      const responses = requests.map((r) => {
        const inner = new URL(r.url, 'http://graph.test');
        const upn = (r.body as { userPrincipalName?: string } | undefined)?.userPrincipalName ?? '';
        if (fake.throttleInBatch.delete(upn)) {
          const throttled = graphError(429, 'TooManyRequests', 'Too many requests.');
          return { id: r.id, status: 429, headers: { 'Retry-After': '7', 'Content-Type': 'application/json' }, body: throttled.body };
        }
        if (r.body !== undefined && r.headers?.['Content-Type'] !== 'application/json') return { id: r.id, ...graphError(400, 'BadRequest', 'Write request id : ' + r.id + ' does not contain Content-Type header or body.') };
        const answer = graphRequest(r.method, inner, r.body);
        return { id: r.id, status: answer.status, headers: { 'Content-Type': 'application/json' }, body: answer.body };
      });
      // Graph answers a batch in any order: the client must match by id.
      return send(res, { status: 200, body: { responses: responses.reverse() } });
    }
    return send(res, graphRequest(req.method ?? 'GET', new URL(path + url.search, 'http://graph.test'), body));
  });
});

let origin = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  fake.users.clear();
  fake.received = [];
  fake.tokenRequests = [];
  fake.throttleInBatch.clear();
  fake.throttleCalls = 0;
});

const person = (n: number, over: Partial<ProvisioningPerson> = {}): ProvisioningPerson => ({
  accountId: `acc-${n}`,
  username: `janedoe2026-${n}`,
  password: `Generated-Pw-${n}!x`,
  firstName: 'Jane',
  lastName: `Doe${n}`,
  email: `jane.doe${n}@example.com`,
  ...over,
});
const upn = (n: number) => `janedoe2026-${n}@${DOMAIN}`;

const credentials = (clientSecret = 'right-secret') => ({ clientId: 'app-id', clientSecret, tokenUrl: `${origin}/${TENANT}/oauth2/v2.0/token` });
const adapter = (settings: Partial<GraphSettings> = {}, clientSecret?: string) =>
  microsoftGraphAdapter(
    platformClient({ platform: 'active_directory', apiType: 'REST', baseUrl: `${origin}/v1.0`, authMethod: 'oauth2', credentials: credentials(clientSecret), apiConfig: {} }, { allowedOrigins: [origin] }),
    { domain: DOMAIN, ...settings },
  );

const seed = (userPrincipalName: string, mail: string | null, otherMails: string[] = []) => {
  const id = `seeded-${fake.nextId++}`;
  fake.users.set(id, { id, userPrincipalName, mail, otherMails, accountEnabled: true, displayName: 'Seeded' });
  return id;
};

type BatchBody = { requests: { id: string; method: string; url: string; headers: Record<string, string>; body: Record<string, unknown> }[] };

describe("contract: a loopback server that plays Microsoft Graph's documented shapes, not the live service", () => {
  it('creates people in one JSON $batch of POST /users, signed with a client-credentials token for <graph>/.default, each answer matched by id', async () => {
    const graph = adapter();
    expect(await graph.capabilities()).toEqual({ batchSize: 20, undo: 'deactivate' });
    const outcomes = await graph.create([person(1), person(2), person(3)]);
    graph.close();

    expect(outcomes.map((o) => o.kind)).toEqual(['created', 'created', 'created']);
    // Matched by id although the answers came in reverse order.
    outcomes.forEach((o, i) => expect(fake.users.get((o as { externalId: string }).externalId)?.userPrincipalName).toBe(upn(i + 1)));

    expect(Object.fromEntries(fake.tokenRequests[0]!)).toEqual({ grant_type: 'client_credentials', client_id: 'app-id', client_secret: 'right-secret', scope: `${origin}/.default` });
    expect(fake.received).toHaveLength(1);
    const batch = fake.received[0]!;
    expect(batch.method).toBe('POST');
    expect(batch.url).toBe('/v1.0/$batch');
    expect(batch.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(batch.contentType).toBe('application/json');
    const { requests } = batch.body as BatchBody;
    expect(requests.map((r) => [r.id, r.method, r.url, r.headers['Content-Type']])).toEqual([
      ['1', 'POST', '/users', 'application/json'],
      ['2', 'POST', '/users', 'application/json'],
      ['3', 'POST', '/users', 'application/json'],
    ]);
    expect(requests[0]!.body).toEqual({
      accountEnabled: true,
      displayName: 'Jane Doe1',
      mailNickname: 'janedoe2026-1',
      userPrincipalName: upn(1),
      mail: 'jane.doe1@example.com',
      givenName: 'Jane',
      surname: 'Doe1',
      passwordProfile: { password: 'Generated-Pw-1!x', forceChangePasswordNextSignIn: true },
    });
  });

  it("reads each sub-request's status on its own: created, linked, conflict, throttled (429 with its own Retry-After) and refused, in one $batch", async () => {
    const mine = seed(upn(2).toUpperCase(), 'Jane.Doe2@example.com');
    seed(upn(3), 'someone.else@example.com');
    const linkedByOtherMail = seed(upn(6), 'old@example.com', ['jane.doe6@example.com']);
    fake.throttleInBatch.add(upn(4));
    const graph = adapter();
    const outcomes = await graph.create([person(1), person(2), person(3), person(4), person(5, { password: 'weak' }), person(6)]);

    expect(outcomes[0]?.kind).toBe('created');
    expect(outcomes[1]).toEqual({ kind: 'linked', externalId: mine });
    expect(outcomes[2]).toEqual({ kind: 'conflict', message: `The user principal name "${upn(3)}" is already taken in Microsoft Entra ID by another person (someone.else@example.com).` });
    expect(outcomes[3]).toEqual({ kind: 'failed', retryable: true, message: 'HTTP 429: Too many requests.', retryAfterMs: 7000 });
    expect(outcomes[4]).toEqual({
      kind: 'failed',
      retryable: false,
      message: 'HTTP 400: The specified password does not comply with password complexity requirements. Please provide a different password.',
    });
    expect(outcomes[5]).toEqual({ kind: 'linked', externalId: linkedByOtherMail });
    // The existing names were looked up by userPrincipalName.
    const lookups = fake.received.filter((r) => r.method === 'GET').map((r) => decodeURIComponent(r.url));
    expect(lookups.sort()).toEqual(
      [2, 3, 6].map((n) => `/v1.0/users?$filter=userPrincipalName eq '${upn(n)}'&$select=id,userPrincipalName,mail,otherMails,accountEnabled`),
    );

    // The use case sends the throttled person again alone, after its wait: a single POST /users.
    fake.received = [];
    const [again] = await graph.create([person(4)]);
    graph.close();
    expect(again?.kind).toBe('created');
    expect(fake.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1.0/users']);
    expect((fake.received[0]!.body as { userPrincipalName: string }).userPrincipalName).toBe(upn(4));
  });

  it('splits more than 20 people into $batch requests of at most 20', async () => {
    const graph = adapter();
    const people = Array.from({ length: 25 }, (_, i) => person(100 + i));
    const outcomes = await graph.create(people);
    graph.close();
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(25);
    expect(fake.received.map((r) => (r.body as BatchBody).requests.length).sort((a, b) => a - b)).toEqual([5, 20]);
    expect(fake.users.size).toBe(25);
  });

  it('turns a throttled $batch (429, Retry-After) into a retryable failure with that wait for everyone in it', async () => {
    fake.throttleCalls = 1;
    const graph = adapter();
    const outcomes = await graph.create([person(1), person(2)]);
    graph.close();
    expect(outcomes).toEqual([0, 1].map(() => ({ kind: 'failed', retryable: true, message: 'HTTP 429: Please retry again later.', retryAfterMs: 3000 })));
    expect(fake.users.size).toBe(0);
  });

  it('reports refused credentials as authRefused: a client secret the token endpoint refuses, and a token Graph refuses', async () => {
    const refused = adapter({}, 'wrong-secret');
    const outcomes = await refused.create([person(1), person(2)]);
    refused.close();
    expect(outcomes.every((o) => o.kind === 'failed' && o.authRefused === true)).toBe(true);
    expect(fake.received).toHaveLength(0);

    const bearer = microsoftGraphAdapter(
      platformClient({ platform: 'active_directory', apiType: 'REST', baseUrl: `${origin}/v1.0`, authMethod: 'bearer_token', credentials: { token: 'expired' }, apiConfig: {} }, { allowedOrigins: [origin] }),
      { domain: DOMAIN },
    );
    const [outcome] = await bearer.create([person(3)]);
    bearer.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false, authRefused: true });
    expect((outcome as { message: string }).message).toContain('Access token validation failure');
  });

  it('finds a person by userPrincipalName (an OData literal: a quote doubled) and answers undefined when Graph has none', async () => {
    const id = seed(`o'neil2026@${DOMAIN}`, 'oneil@example.com');
    const graph = adapter();
    expect(await graph.find({ username: "O'Neil2026", email: 'x@example.com' })).toEqual({ externalId: id, userName: `o'neil2026@${DOMAIN}`, emails: ['oneil@example.com'], active: true });
    expect(await graph.find({ username: 'nobody2026', email: 'x@example.com' })).toBeUndefined();
    graph.close();
  });

  it('fails a name off the verified domain with Graph\'s words, not retried', async () => {
    const graph = adapter({ domain: 'unverified.example' });
    const [outcome] = await graph.create([person(1)]);
    graph.close();
    expect(outcome).toEqual({
      kind: 'failed',
      retryable: false,
      message: 'HTTP 400: The domain portion of the userPrincipalName property is invalid. You must use one of the verified domain names in your organization.',
    });
  });

  it('undoes by PATCH accountEnabled=false (the default) or DELETE per setting; a user no longer there is gone', async () => {
    const graph = adapter();
    const [created] = await graph.create([person(1)]);
    const id = (created as { externalId: string }).externalId;
    fake.received = [];
    expect(await graph.undo(id)).toEqual({ kind: 'undone', action: 'deactivated' });
    expect(fake.received.map((r) => [r.method, r.url, r.body])).toEqual([['PATCH', `/v1.0/users/${id}`, { accountEnabled: false }]]);
    expect(fake.users.get(id)?.accountEnabled).toBe(false);
    graph.close();

    const deleting = adapter({ undo: 'delete' });
    expect(await deleting.capabilities()).toEqual({ batchSize: 20, undo: 'delete' });
    expect(await deleting.undo(id)).toEqual({ kind: 'undone', action: 'deleted' });
    expect(fake.users.has(id)).toBe(false);
    expect(await deleting.undo(id)).toEqual({ kind: 'gone' });
    deleting.close();
  });
});

describe('Microsoft Entra ID as a provisioning target: support, settings, the factory and pacing', () => {
  const integration = (baseUrl: string, provisioning: Record<string, unknown> = { entraDomain: DOMAIN }) =>
    ({
      id: 'int-graph',
      userId: 'user-1',
      name: 'Entra',
      description: '',
      platform: 'active_directory',
      apiType: 'REST',
      baseUrl,
      authMethod: 'oauth2',
      authConfigEncrypted: '',
      authFieldsSet: ['clientId', 'clientSecret', 'tokenUrl'],
      apiConfig: { provisioning },
      isActive: true,
      lastTestStatus: 'success',
      createdAt: '',
      updatedAt: '',
    }) satisfies IntegrationRecord;

  it('is supported over Graph with a verified domain; refused with the reason without one, and over LDAP (not built here)', () => {
    expect(provisioningSupport(integration('https://graph.microsoft.com/v1.0'))).toEqual({ supported: true });
    expect(provisioningSupport(integration('https://graph.microsoft.com/v1.0', {}))).toEqual({ supported: false, reason: expect.stringMatching(/verified domain/) });
    expect(provisioningSupport(integration('ldaps://dc1.corp.example:636'))).toEqual({ supported: false, reason: expect.stringMatching(/LDAP is not available yet/) });
    expect(provisioningSupport({ platform: 'workday' })).toEqual({ supported: false, reason: expect.stringMatching(/Workday/) });
  });

  it('checks the verified domain setting with a clear message', () => {
    expect(provisioningSettingsSchema.parse({ entraDomain: ' Contoso.OnMicrosoft.com ' })).toEqual({ entraDomain: 'contoso.onmicrosoft.com' });
    const bad = provisioningSettingsSchema.safeParse({ entraDomain: 'https://contoso.com' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('The verified domain must be a domain name such as contoso.com or contoso.onmicrosoft.com');
  });

  it("builds the Graph adapter from the integration's settings, with Graph's documented write limit as default pacing", async () => {
    const record = integration(`${origin}/v1.0`, { entraDomain: DOMAIN, undo: 'delete' });
    expect(pacingOf(record)).toEqual({ requestsPerMinute: 60, concurrency: 4 });
    expect(pacingOf({ ...record, apiConfig: { provisioning: { entraDomain: DOMAIN, requestsPerMinute: 30 } } })).toEqual({ requestsPerMinute: 30, concurrency: 4 });
    const graph = adapterFactory({ allowedOrigins: [origin] })(record, credentials());
    expect(await graph.capabilities()).toEqual({ batchSize: 20, undo: 'delete' });
    const [outcome] = await graph.create([person(1)]);
    graph.close();
    expect(outcome?.kind).toBe('created');
    expect(fake.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1.0/users']);
  });

  it('fails each person with the reason, calling nobody, when the domain was removed under a running job', async () => {
    const graph = adapterFactory({ allowedOrigins: [origin] })(integration(`${origin}/v1.0`, {}), credentials());
    const outcomes = await graph.create([person(1), person(2)]);
    graph.close();
    expect(outcomes).toEqual([0, 1].map(() => ({ kind: 'failed', retryable: false, message: expect.stringMatching(/verified domain/) })));
    expect(fake.received).toHaveLength(0);
  });
});
