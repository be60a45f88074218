import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuthMethod } from '../../shared/schemas/integrations';
import { provisioningSupport } from '../../shared/schemas/provisioning';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import { adapterFactory, pacingOf } from '../../functions/provisioning/adapters';
import { oktaAdapter, type OktaSettings } from '../../functions/provisioning/adapters/okta';
import { platformClient } from '../../functions/provisioning/platform-client';
import { startFakeOkta, type FakeOkta, type OktaUserRecord } from '../support/fake-okta';
import { person } from '../support/provisioning-people';

/**
 * Okta's adapter against test/support/fake-okta.ts: a loopback server answering the request and
 * response shapes Okta documents (Users API, rate limits, errors), not the live service.
 */
let fake: FakeOkta;
let origin = '';
let TOKEN = '';
beforeAll(async () => {
  fake = await startFakeOkta();
  origin = fake.origin;
  TOKEN = fake.token;
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());


const adapter = (settings: OktaSettings = {}, authMethod: AuthMethod = 'api_key', credentials: Record<string, string> = { apiKey: TOKEN }) =>
  oktaAdapter(platformClient({ platform: 'okta', apiType: 'REST', baseUrl: origin, authMethod, credentials, apiConfig: {} }, { allowedOrigins: [origin] }), settings);

const seed = (profile: OktaUserRecord['profile'], status: OktaUserRecord['status'] = 'ACTIVE') => fake.seed(profile, status);

describe("contract: a loopback server that plays Okta's documented shapes, not the live service", () => {
  it("Require password change: nextLogin=changePassword with activate=true creates the user with the password expired; setPassword updates credentials.password", async () => {
    const okta = oktaAdapter(platformClient({ platform: 'okta', apiType: 'REST', baseUrl: origin, authMethod: 'api_key', credentials: { apiKey: TOKEN }, apiConfig: {} }, { allowedOrigins: [origin] }), {}, { requirePasswordChange: true });
    expect((await okta.capabilities()).mustChangePassword).toEqual({ supported: true, how: expect.stringContaining('nextLogin=changePassword') });
    const [created] = await okta.create([person(1)]);
    const id = (created as { externalId: string }).externalId;
    expect(fake.received[0]!.url).toBe('/api/v1/users?activate=true&nextLogin=changePassword');
    expect(fake.users.get(id)?.status).toBe('PASSWORD_EXPIRED');

    fake.users.get(id)!.status = 'ACTIVE';
    expect(await okta.setPassword(id, { username: 'janedoe2026-1', password: 'Reset-Pw-1!y' })).toEqual({ kind: 'updated' });
    expect(fake.received.at(-2)).toMatchObject({ method: 'POST', url: `/api/v1/users/${id}`, authorization: `SSWS ${TOKEN}`, body: { credentials: { password: { value: 'Reset-Pw-1!y' } } } });
    // Require password change: the reset password is expired too, so Okta asks for a new one.
    expect(fake.received.at(-1)).toMatchObject({ method: 'POST', url: `/api/v1/users/${id}/lifecycle/expire_password` });
    expect(fake.users.get(id)?.status).toBe('PASSWORD_EXPIRED');
    expect(fake.passwords.get(id)).toBe('Reset-Pw-1!y');
    // Okta's policy refusing the new password: failed with Okta's words, not retried; a user gone: gone.
    expect(await okta.setPassword(id, { username: 'janedoe2026-1', password: 'short' })).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('Password requirements were not met') });
    expect(await okta.setPassword('00unobody', { username: 'x', password: 'Reset-Pw-1!y' })).toEqual({ kind: 'gone' });
    okta.close();
  });

  it('creates each person with one activated POST /api/v1/users, signed with SSWS, the profile and the password', async () => {
    const okta = adapter();
    expect(await okta.capabilities()).toMatchObject({ batchSize: 1, undo: 'delete' });
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
    fake.limits.rateLimited = 1;
    fake.limits.resetInSeconds = 30;
    const okta = adapter();
    const [outcome] = await okta.create([person(7)]);
    okta.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true, message: 'HTTP 429: API call exceeded rate limit due to too many requests.' });
    const wait = (outcome as { retryAfterMs: number }).retryAfterMs;
    expect(wait).toBeGreaterThan(28_000);
    expect(wait).toBeLessThanOrEqual(30_000);
    expect(fake.users.size).toBe(0);
  });

  it("measures the X-Rate-Limit-Reset wait on Okta's clock (its Date header), so a clock behind ours does not turn it into no wait", async () => {
    fake.limits.rateLimited = 1;
    fake.limits.resetInSeconds = 30;
    fake.limits.clockSkewSeconds = -120;
    const okta = adapter();
    const [outcome] = await okta.create([person(15)]);
    okta.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    // Date has whole seconds: the wait is at most a second longer than Okta's, never shorter.
    const wait = (outcome as { retryAfterMs: number }).retryAfterMs;
    expect(wait).toBeGreaterThanOrEqual(29_000);
    expect(wait).toBeLessThanOrEqual(31_000);
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
    const credentials = { clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret, tokenUrl: fake.oauth.tokenUrl, scope: 'okta.users.manage' };
    const okta = adapter({}, 'oauth2', credentials);
    const [outcome] = await okta.create([person(10)]);
    okta.close();
    expect(outcome?.kind).toBe('created');
    expect(fake.tokenRequests).toHaveLength(1);
    expect(Object.fromEntries(fake.tokenRequests[0]!)).toEqual({ grant_type: 'client_credentials', client_id: fake.oauth.clientId, client_secret: fake.oauth.clientSecret, scope: 'okta.users.manage' });
    expect(fake.received[0]?.authorization).toBe(`Bearer ${fake.oauth.accessToken}`);

    // Okta's org authorization server has no default scope: left empty, okta.users.manage is asked for.
    fake.tokenRequests.length = 0;
    const { scope: _scope, ...withoutScope } = credentials;
    const unscoped = adapter({}, 'oauth2', withoutScope);
    expect((await unscoped.create([person(16)]))[0]?.kind).toBe('created');
    unscoped.close();
    expect(fake.tokenRequests[0]?.get('scope')).toBe('okta.users.manage');

    const refused = adapter({}, 'oauth2', { ...credentials, clientSecret: 'wrong' });
    const [failure] = await refused.create([person(11)]);
    refused.close();
    expect(failure).toMatchObject({ kind: 'failed', authRefused: true });
    expect(fake.users.size).toBe(2);
  });

  it('undoes by deactivating then deleting (the default), and finishes an undo that stopped after the deactivation', async () => {
    const okta = adapter();
    const [created] = await okta.create([person(12)]);
    const id = (created as { externalId: string }).externalId;
    fake.received.length = 0;
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
    fake.received.length = 0;
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
    expect(await okta.capabilities()).toMatchObject({ batchSize: 1, undo: 'deactivate' });
    const [outcome] = await okta.create([person(14)]);
    okta.close();
    expect(outcome?.kind).toBe('created');
    expect((fake.received[0]?.body as { profile: { login: string } }).profile.login).toBe('jane.doe14@example.com');
  });
});

describe("contract: Okta's lifecycle after creation (findById, update, setActive, remove)", () => {
  const created = async (okta: ReturnType<typeof adapter>, n: number) => {
    const [outcome] = await okta.create([person(n)]);
    return (outcome as { externalId: string }).externalId;
  };
  const changes = { firstName: 'Janet', lastName: 'Smith', email: 'janet.smith@example.com' };

  it('findById reads the user (profile names, login, e-mail; active unless deactivated or suspended); a user not there is undefined', async () => {
    const okta = adapter();
    const id = await created(okta, 1);
    expect(await okta.findById(id)).toEqual({ externalId: id, userName: 'janedoe2026-1', emails: ['jane.doe1@example.com'], active: true, firstName: 'Jane', lastName: 'Doe1' });
    expect(fake.received.at(-1)).toMatchObject({ method: 'GET', url: `/api/v1/users/${id}` });
    fake.users.get(id)!.status = 'SUSPENDED';
    expect(await okta.findById(id)).toMatchObject({ active: false });
    fake.users.get(id)!.status = 'PASSWORD_EXPIRED';
    expect(await okta.findById(id)).toMatchObject({ active: true });
    expect(await okta.findById('00unobody')).toBeUndefined();
    okta.close();
  });

  it('update is a partial profile update (POST /api/v1/users/{id}): names and e-mail; the login only with a regenerated username', async () => {
    const okta = adapter();
    const id = await created(okta, 2);
    expect(await okta.update(id, changes)).toEqual({ kind: 'done', detail: 'Updated on Okta.' });
    expect(fake.received.at(-1)).toMatchObject({ method: 'POST', url: `/api/v1/users/${id}`, authorization: `SSWS ${TOKEN}`, body: { profile: changes } });
    expect(fake.users.get(id)?.profile).toEqual({ login: 'janedoe2026-2', email: 'janet.smith@example.com', firstName: 'Janet', lastName: 'Smith' });

    expect(await okta.update(id, { ...changes, username: 'janetsmith2026' })).toEqual({ kind: 'done', detail: 'Updated on Okta, with the login janetsmith2026.' });
    expect(fake.users.get(id)?.profile.login).toBe('janetsmith2026');

    // A login Okta holds for someone else: a conflict, the user unchanged.
    const other = await created(okta, 3);
    expect(await okta.update(other, { ...changes, username: 'janetsmith2026' })).toEqual({ kind: 'conflict', message: 'The login "janetsmith2026" is already taken on Okta by another user.' });
    expect(fake.users.get(other)?.profile.login).toBe('janedoe2026-3');
    expect(await okta.update('00unobody', changes)).toEqual({ kind: 'gone', detail: 'Okta no longer has this user.' });
    okta.close();
  });

  it('with e-mail logins, the login follows the e-mail, whatever the username', async () => {
    const okta = adapter({ login: 'email' });
    const id = await created(okta, 4);
    expect(await okta.update(id, { ...changes, username: 'ignored2026' })).toMatchObject({ kind: 'done' });
    expect(fake.users.get(id)?.profile.login).toBe('janet.smith@example.com');
    expect((await okta.capabilities()).lifecycle.userName).toEqual({ supported: true, how: expect.stringContaining('the login changes with the e-mail') });
    okta.close();
  });

  it('deactivate (the default): lifecycle/deactivate, then lifecycle/activate?sendEmail=false; again is harmless; a user gone counts as deactivated', async () => {
    const okta = adapter();
    expect((await okta.capabilities()).lifecycle.setActive).toEqual({ supported: true, how: expect.stringContaining('Okta deactivates the user') });
    const id = await created(okta, 5);
    expect(await okta.setActive(id, false)).toEqual({ kind: 'done', detail: 'Deactivated on Okta.' });
    expect(fake.received.at(-1)).toMatchObject({ method: 'POST', url: `/api/v1/users/${id}/lifecycle/deactivate` });
    expect(fake.users.get(id)?.status).toBe('DEPROVISIONED');
    // Redelivered: Okta refuses (E0000038), the user is where we want them.
    expect(await okta.setActive(id, false)).toEqual({ kind: 'done', detail: 'Already deactivated on Okta.' });

    expect(await okta.setActive(id, true)).toEqual({ kind: 'done', detail: 'Active again on Okta.' });
    expect(fake.received.map((r) => `${r.method} ${r.url}`).slice(-2)).toEqual([`POST /api/v1/users/${id}/lifecycle/activate?sendEmail=false`, `GET /api/v1/users/${id}`]);
    expect(fake.users.get(id)?.status).toBe('ACTIVE');
    expect(await okta.setActive(id, true)).toEqual({ kind: 'done', detail: 'Already active on Okta.' });

    // A user with no password left must finish Okta's activation: PROVISIONED, and said so.
    await okta.setActive(id, false);
    fake.passwords.delete(id);
    expect(await okta.setActive(id, true)).toEqual({ kind: 'done', detail: expect.stringContaining('status PROVISIONED') });

    expect(await okta.setActive('00unobody', false)).toEqual({ kind: 'done', alreadyGone: true, detail: 'Okta no longer has this user: nothing left to deactivate.' });
    expect(await okta.setActive('00unobody', true)).toEqual({ kind: 'gone', detail: 'Okta no longer has this user: there is nothing to reactivate.' });
    okta.close();
  });

  it('suspend (per integration): lifecycle/suspend and unsuspend; a user not ACTIVE cannot be suspended, in words; a deactivated one is activated on reactivate', async () => {
    const okta = adapter({ deactivation: 'suspend' });
    expect((await okta.capabilities()).lifecycle.setActive).toEqual({ supported: true, how: expect.stringContaining('Okta suspends the user') });
    const id = await created(okta, 6);
    expect(await okta.setActive(id, false)).toEqual({ kind: 'done', detail: 'Suspended on Okta.' });
    expect(fake.received.at(-1)).toMatchObject({ method: 'POST', url: `/api/v1/users/${id}/lifecycle/suspend` });
    expect(fake.users.get(id)?.status).toBe('SUSPENDED');
    expect(await okta.setActive(id, false)).toEqual({ kind: 'done', detail: 'Already suspended on Okta.' });
    expect(await okta.setActive(id, true)).toEqual({ kind: 'done', detail: 'Unsuspended on Okta: active again.' });
    expect(fake.received.at(-1)).toMatchObject({ method: 'POST', url: `/api/v1/users/${id}/lifecycle/unsuspend` });
    expect(fake.users.get(id)?.status).toBe('ACTIVE');

    // Okta suspends only ACTIVE users: one whose password is expired is refused, with what to do.
    fake.users.get(id)!.status = 'PASSWORD_EXPIRED';
    expect(await okta.setActive(id, false)).toEqual({
      kind: 'failed',
      retryable: false,
      message: expect.stringMatching(/^Okta suspends only active users; this one is PASSWORD_EXPIRED .*Choose Deactivate for Okta.*HTTP 403: This operation is not allowed in the user's current status\.$/),
    });
    // A user deactivated elsewhere (e.g. Undo on platform): unsuspend is refused, activate brings them back.
    fake.users.get(id)!.status = 'DEPROVISIONED';
    expect(await okta.setActive(id, true)).toEqual({ kind: 'done', detail: 'Active again on Okta.' });
    expect(fake.users.get(id)?.status).toBe('ACTIVE');
    okta.close();
  });

  it('remove deactivates then deletes; a user already gone counts as done and says so', async () => {
    const okta = adapter({ undo: 'deactivate' });
    expect((await okta.capabilities()).lifecycle.remove).toEqual({ supported: true, how: 'Okta deactivates the user, then deletes them for good.' });
    const id = await created(okta, 7);
    expect(await okta.remove(id)).toEqual({ kind: 'done', action: 'deleted', detail: 'Deactivated, then deleted on Okta.' });
    expect(fake.received.map((r) => `${r.method} ${r.url}`).slice(-2)).toEqual([`POST /api/v1/users/${id}/lifecycle/deactivate`, `DELETE /api/v1/users/${id}`]);
    expect(fake.users.has(id)).toBe(false);
    expect(await okta.remove(id)).toEqual({ kind: 'done', action: 'deleted', alreadyGone: true, detail: 'Okta no longer has this user: nothing left to do there.' });
    okta.close();
  });

  it("429 (waits until X-Rate-Limit-Reset), 5xx (retryable) and 401 (authRefused) for every operation, in Okta's words", async () => {
    const okta = adapter();
    const id = await created(okta, 8);
    const calls: [string, () => Promise<unknown>][] = [
      ['findById', () => okta.findById(id)],
      ['update', () => okta.update(id, changes)],
      ['deactivate', () => okta.setActive(id, false)],
      ['reactivate', () => okta.setActive(id, true)],
      ['remove', () => okta.remove(id)],
    ];
    for (const [name, call] of calls) {
      const reset = Math.floor(Date.now() / 1000) + 20;
      fake.queued.push({ status: 429, body: { errorCode: 'E0000047', errorSummary: 'API call exceeded rate limit due to too many requests.' }, headers: { date: new Date().toUTCString(), 'x-rate-limit-reset': String(reset) } });
      const limited = (await call()) as { retryAfterMs?: number };
      expect(limited, name).toMatchObject({ kind: 'failed', retryable: true, rateLimited: true, message: 'HTTP 429: API call exceeded rate limit due to too many requests.' });
      expect(limited.retryAfterMs, name).toBeGreaterThan(15_000);
      fake.queued.push({ status: 503, body: { errorCode: 'E0000009', errorSummary: 'Internal Server Error' } });
      expect(await call(), name).toMatchObject({ kind: 'failed', retryable: true, message: 'HTTP 503: Internal Server Error' });
    }
    expect(fake.users.get(id)?.status).toBe('ACTIVE');
    okta.close();
    const refused = adapter({}, 'api_key', { apiKey: 'wrong' });
    for (const call of [refused.findById(id), refused.update(id, changes), refused.setActive(id, false), refused.setActive(id, true), refused.remove(id)]) {
      expect(await call).toMatchObject({ kind: 'failed', retryable: false, authRefused: true, message: expect.stringContaining('HTTP 401: Invalid token provided') });
    }
    refused.close();
    expect(fake.users.get(id)?.status).toBe('ACTIVE');
  });
});
