import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuthMethod } from '../../shared/schemas/integrations';
import { provisioningSupport } from '../../shared/schemas/provisioning';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import { adapterFactory, pacingOf } from '../../functions/provisioning/adapters';
import { oktaAdapter, type OktaSettings } from '../../functions/provisioning/adapters/okta';
import { platformClient } from '../../functions/provisioning/platform-client';
import type { ProvisioningPerson } from '../../functions/provisioning/provisioning-port';

/**
 * What Okta's Users API documents (developer.okta.com/docs/api, Users and Rate limits), played by
 * a loopback server: create with ?activate=true answers 200 with the user; a login already held
 * answers 400 E0000001 with the cause "login: An object with this field already exists...";
 * filter=profile.login eq "..." answers an array; lifecycle/deactivate then DELETE; 401 E0000011
 * for a wrong token; 429 E0000047 with X-Rate-Limit-Limit/-Remaining/-Reset (epoch seconds).
 */
interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}
interface OktaUserRecord {
  id: string;
  status: 'ACTIVE' | 'DEPROVISIONED';
  profile: { login: string; email: string; firstName: string; lastName: string };
}

const TOKEN = 'okta-api-token';
const OAUTH_TOKEN = 'okta-oauth-access-token';

const fake = {
  users: new Map<string, OktaUserRecord>(),
  received: [] as Received[],
  /** The next N POST /api/v1/users answers are 429 with X-Rate-Limit-Reset this many seconds ahead. */
  rateLimited: 0,
  resetInSeconds: 30,
  tokenRequests: [] as URLSearchParams[],
  nextId: 1,
};

const oktaError = (code: string, summary: string, causes: string[] = []) => ({
  errorCode: code,
  errorSummary: summary,
  errorLink: code,
  errorId: `oae${code}`,
  errorCauses: causes.map((errorSummary) => ({ errorSummary })),
});

const send = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers });
  res.end(body !== undefined ? JSON.stringify(body) : undefined);
};

const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString()));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://okta.test');
    if (url.pathname === '/oauth2/v1/token') {
      const form = new URLSearchParams(raw);
      fake.tokenRequests.push(form);
      if (form.get('client_secret') !== 'right-secret') return send(res, 401, { error: 'invalid_client', error_description: 'The client secret supplied for a confidential client is invalid.' });
      return send(res, 200, { token_type: 'Bearer', expires_in: 3600, access_token: OAUTH_TOKEN, scope: form.get('scope') });
    }
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    fake.received.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
    if (req.headers.authorization !== `SSWS ${TOKEN}` && req.headers.authorization !== `Bearer ${OAUTH_TOKEN}`) {
      return send(res, 401, oktaError('E0000011', 'Invalid token provided'));
    }
    const user = (id: string) => fake.users.get(decodeURIComponent(id));

    if (req.method === 'POST' && url.pathname === '/api/v1/users') {
      if (fake.rateLimited > 0) {
        fake.rateLimited--;
        return send(res, 429, oktaError('E0000047', 'API call exceeded rate limit due to too many requests.'), {
          'x-rate-limit-limit': '600',
          'x-rate-limit-remaining': '0',
          'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + fake.resetInSeconds),
        });
      }
      const { profile, credentials } = body as { profile: OktaUserRecord['profile']; credentials?: { password?: { value?: string } } };
      if ((credentials?.password?.value ?? '').length < 8) {
        return send(res, 400, oktaError('E0000001', 'Api validation failed: password', ['password: Password requirements were not met. Password requirements: at least 8 characters.']));
      }
      if ([...fake.users.values()].some((u) => u.profile.login.toLowerCase() === profile.login.toLowerCase())) {
        return send(res, 400, oktaError('E0000001', 'Api validation failed: login', ['login: An object with this field already exists in the current organization']));
      }
      const id = `00u${String(fake.nextId++).padStart(17, '0')}`;
      const created: OktaUserRecord = { id, status: url.searchParams.get('activate') === 'true' ? 'ACTIVE' : ('STAGED' as 'ACTIVE'), profile };
      fake.users.set(id, created);
      return send(res, 200, { ...created, credentials: { password: {}, provider: { type: 'OKTA', name: 'OKTA' } }, _links: {} });
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/users') {
      const match = /^profile\.login eq "(.*)"$/.exec(url.searchParams.get('filter') ?? '');
      if (!match) return send(res, 400, oktaError('E0000031', 'Invalid search criteria.'));
      const login = JSON.parse(`"${match[1]}"`) as string;
      return send(res, 200, [...fake.users.values()].filter((u) => u.profile.login.toLowerCase() === login.toLowerCase()));
    }
    const lifecycle = /^\/api\/v1\/users\/([^/]+)\/lifecycle\/deactivate$/.exec(url.pathname);
    if (req.method === 'POST' && lifecycle) {
      const found = user(lifecycle[1]!);
      if (!found) return send(res, 404, oktaError('E0000007', `Not found: Resource not found: ${lifecycle[1]} (User)`));
      if (found.status === 'DEPROVISIONED') return send(res, 403, oktaError('E0000038', "This operation is not allowed in the user's current status."));
      found.status = 'DEPROVISIONED';
      return send(res, 200, {});
    }
    const one = /^\/api\/v1\/users\/([^/]+)$/.exec(url.pathname);
    if (one && req.method === 'GET') {
      const found = user(one[1]!);
      return found ? send(res, 200, found) : send(res, 404, oktaError('E0000007', `Not found: Resource not found: ${one[1]} (User)`));
    }
    if (one && req.method === 'DELETE') {
      const found = user(one[1]!);
      if (!found) return send(res, 404, oktaError('E0000007', `Not found: Resource not found: ${one[1]} (User)`));
      // Okta: a DELETE on a user who is not deactivated only deactivates it.
      if (found.status !== 'DEPROVISIONED') found.status = 'DEPROVISIONED';
      else fake.users.delete(found.id);
      return send(res, 204);
    }
    return send(res, 404, oktaError('E0000022', 'The endpoint does not support the provided HTTP method'));
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
  fake.rateLimited = 0;
  fake.tokenRequests = [];
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

const adapter = (settings: OktaSettings = {}, authMethod: AuthMethod = 'api_key', credentials: Record<string, string> = { apiKey: TOKEN }) =>
  oktaAdapter(platformClient({ platform: 'okta', apiType: 'REST', baseUrl: origin, authMethod, credentials, apiConfig: {} }, { allowedOrigins: [origin] }), settings);

const seed = (profile: OktaUserRecord['profile'], status: OktaUserRecord['status'] = 'ACTIVE') => {
  const id = `00useeded${String(fake.nextId++).padStart(11, '0')}`;
  fake.users.set(id, { id, status, profile });
  return id;
};

describe("contract: a loopback server that plays Okta's documented shapes, not the live service", () => {
  it('creates each person with one activated POST /api/v1/users, signed with SSWS, the profile and the password', async () => {
    const okta = adapter();
    expect(await okta.capabilities()).toEqual({ batchSize: 1, undo: 'delete' });
    const outcomes = await okta.create([person(1), person(2)]);
    okta.close();

    expect(outcomes.map((o) => o.kind)).toEqual(['created', 'created']);
    const ids = outcomes.map((o) => (o as { externalId: string }).externalId);
    expect(ids.every((id) => fake.users.get(id)?.status === 'ACTIVE')).toBe(true);
    expect(fake.received).toHaveLength(2);
    const first = fake.received.find((r) => (r.body as { profile: { login: string } }).profile.login === 'janedoe2026-1')!;
    expect(first.method).toBe('POST');
    expect(first.url).toBe('/api/v1/users?activate=true');
    expect(first.authorization).toBe(`SSWS ${TOKEN}`);
    expect(first.contentType).toBe('application/json');
    expect(first.body).toEqual({
      profile: { login: 'janedoe2026-1', email: 'jane.doe1@example.com', firstName: 'Jane', lastName: 'Doe1' },
      credentials: { password: { value: 'Generated-Pw-1!x' } },
    });
  });

  it("uses the e-mail as the login when the integration says so (Okta's default login pattern)", async () => {
    const okta = adapter({ login: 'email' });
    const [outcome] = await okta.create([person(3)]);
    okta.close();
    expect(outcome?.kind).toBe('created');
    expect((fake.received[0]?.body as { profile: { login: string } }).profile.login).toBe('jane.doe3@example.com');
  });

  it('links a login Okta already holds for the same person (found with filter=profile.login eq) and fails it for another person', async () => {
    const mine = seed({ login: 'JaneDoe2026-4', email: 'Jane.Doe4@example.com', firstName: 'Jane', lastName: 'Doe4' });
    seed({ login: 'janedoe2026-5', email: 'someone.else@example.com', firstName: 'Other', lastName: 'Person' });
    const okta = adapter();
    const outcomes = await okta.create([person(4), person(5)]);
    okta.close();

    expect(outcomes[0]).toEqual({ kind: 'linked', externalId: mine });
    expect(outcomes[1]).toEqual({ kind: 'conflict', message: 'The login "janedoe2026-5" is already taken on Okta by another person (someone.else@example.com).' });
    const lookups = fake.received.filter((r) => r.method === 'GET');
    expect(lookups.map((r) => decodeURIComponent(r.url)).sort()).toEqual([
      '/api/v1/users?filter=profile.login eq "janedoe2026-4"&limit=2',
      '/api/v1/users?filter=profile.login eq "janedoe2026-5"&limit=2',
    ]);
    expect(fake.users.size).toBe(2);
  });

  it('finds a person by login, case-insensitively, and answers undefined for a login Okta does not hold', async () => {
    const id = seed({ login: 'janedoe2026-6', email: 'jane.doe6@example.com', firstName: 'Jane', lastName: 'Doe6' });
    const okta = adapter();
    expect(await okta.find({ username: 'JANEDOE2026-6', email: 'x@example.com' })).toEqual({ externalId: id, userName: 'janedoe2026-6', emails: ['jane.doe6@example.com'], active: true });
    expect(await okta.find({ username: 'nobody2026', email: 'x@example.com' })).toBeUndefined();
    okta.close();
  });

  it("turns a 429 into a retryable failure that waits until X-Rate-Limit-Reset, with Okta's own words", async () => {
    fake.rateLimited = 1;
    fake.resetInSeconds = 30;
    const okta = adapter();
    const [outcome] = await okta.create([person(7)]);
    okta.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true, message: 'HTTP 429: API call exceeded rate limit due to too many requests.' });
    const wait = (outcome as { retryAfterMs: number }).retryAfterMs;
    expect(wait).toBeGreaterThan(28_000);
    expect(wait).toBeLessThanOrEqual(30_000);
    expect(fake.users.size).toBe(0);
  });

  it("fails a password Okta's policy refuses, not retried, with the cause and without the password", async () => {
    const okta = adapter();
    const [outcome] = await okta.create([person(8, { password: 'short' })]);
    okta.close();
    expect(outcome).toEqual({
      kind: 'failed',
      retryable: false,
      message: 'HTTP 400: Api validation failed: password: password: Password requirements were not met. Password requirements: at least 8 characters.',
    });
    expect(JSON.stringify(outcome)).not.toContain('short');
  });

  it('reports refused credentials (401 E0000011) as authRefused, so the run pauses instead of failing every row', async () => {
    const okta = adapter({}, 'api_key', { apiKey: 'revoked-token' });
    const [outcome] = await okta.create([person(9)]);
    okta.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false, authRefused: true });
    expect((outcome as { message: string }).message).toContain('Invalid token provided');
    expect(fake.received[0]?.authorization).toBe('SSWS revoked-token');
  });

  it('signs in with OAuth 2.0 client credentials (scope okta.users.manage) and calls with the bearer token', async () => {
    const credentials = { clientId: 'svc-app', clientSecret: 'right-secret', tokenUrl: `${origin}/oauth2/v1/token`, scope: 'okta.users.manage' };
    const okta = adapter({}, 'oauth2', credentials);
    const [outcome] = await okta.create([person(10)]);
    okta.close();
    expect(outcome?.kind).toBe('created');
    expect(fake.tokenRequests).toHaveLength(1);
    expect(Object.fromEntries(fake.tokenRequests[0]!)).toEqual({ grant_type: 'client_credentials', client_id: 'svc-app', client_secret: 'right-secret', scope: 'okta.users.manage' });
    expect(fake.received[0]?.authorization).toBe(`Bearer ${OAUTH_TOKEN}`);

    const refused = adapter({}, 'oauth2', { ...credentials, clientSecret: 'wrong' });
    const [failure] = await refused.create([person(11)]);
    refused.close();
    expect(failure).toMatchObject({ kind: 'failed', authRefused: true });
    expect(fake.users.size).toBe(1);
  });

  it('undoes by deactivating then deleting (the default), and finishes an undo that stopped after the deactivation', async () => {
    const okta = adapter();
    const [created] = await okta.create([person(12)]);
    const id = (created as { externalId: string }).externalId;
    fake.received = [];
    expect(await okta.undo(id)).toEqual({ kind: 'undone', action: 'deleted' });
    expect(fake.received.map((r) => `${r.method} ${r.url}`)).toEqual([`POST /api/v1/users/${id}/lifecycle/deactivate`, `DELETE /api/v1/users/${id}`]);
    expect(fake.users.has(id)).toBe(false);
    expect(await okta.undo(id)).toEqual({ kind: 'gone' });

    // Deactivated by an earlier undo that stopped there: Okta refuses a second deactivation; the delete goes on.
    const halfway = seed({ login: 'half2026', email: 'half@example.com', firstName: 'Half', lastName: 'Way' }, 'DEPROVISIONED');
    expect(await okta.undo(halfway)).toEqual({ kind: 'undone', action: 'deleted' });
    expect(fake.users.has(halfway)).toBe(false);
    okta.close();
  });

  it('undoes by deactivating only when the integration says deactivate', async () => {
    const okta = adapter({ undo: 'deactivate' });
    const [created] = await okta.create([person(13)]);
    const id = (created as { externalId: string }).externalId;
    fake.received = [];
    expect(await okta.undo(id)).toEqual({ kind: 'undone', action: 'deactivated' });
    expect(fake.received.map((r) => r.method)).toEqual(['POST']);
    expect(fake.users.get(id)?.status).toBe('DEPROVISIONED');
    okta.close();
  });

  it('is the adapter the factory builds for an okta integration, with its login and undo settings and the documented pacing', async () => {
    const integration = {
      id: 'int-okta',
      userId: 'user-1',
      name: 'Okta',
      description: '',
      platform: 'okta',
      apiType: 'REST',
      baseUrl: origin,
      authMethod: 'api_key',
      authConfigEncrypted: '',
      authFieldsSet: ['apiKey'],
      apiConfig: { provisioning: { oktaLogin: 'email', undo: 'deactivate' } },
      isActive: true,
      lastTestStatus: 'success',
      createdAt: '',
      updatedAt: '',
    } satisfies IntegrationRecord;
    expect(provisioningSupport(integration)).toEqual({ supported: true });
    expect(pacingOf(integration)).toEqual({ requestsPerMinute: 600, concurrency: 75 });
    const okta = adapterFactory({ allowedOrigins: [origin] })(integration, { apiKey: TOKEN });
    expect(await okta.capabilities()).toEqual({ batchSize: 1, undo: 'deactivate' });
    const [outcome] = await okta.create([person(14)]);
    okta.close();
    expect(outcome?.kind).toBe('created');
    expect((fake.received[0]?.body as { profile: { login: string } }).profile.login).toBe('jane.doe14@example.com');
  });
});
