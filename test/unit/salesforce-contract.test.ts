import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { salesforceAdapter, salesforceAlias, salesforceUsername, SALESFORCE_LIMIT_WAIT_MS } from '../../functions/provisioning/adapters/salesforce';
import { platformClient } from '../../functions/provisioning/platform-client';
import type { ProvisioningPerson } from '../../functions/provisioning/provisioning-port';
import { provisioningSupport } from '../../shared/schemas/provisioning';
import { createIntegrationSchema } from '../../shared/schemas/integrations';
import { SALESFORCE_TEST_VERSION, startFakeSalesforce, type FakeSalesforce, type FakeSalesforceState } from '../support/fake-salesforce';

/** The loopback server: test/support/fake-salesforce.ts (Salesforce's documented shapes). */
const VERSION = SALESFORCE_TEST_VERSION;
const SETTINGS = { usernameDomain: 'acme.example', profileId: '00e5g000001AbCdEFG' };

let fake: FakeSalesforce;
let state: FakeSalesforceState;
let origin: string;

beforeAll(async () => {
  fake = await startFakeSalesforce();
  state = fake.state;
  origin = fake.origin;
});

afterAll(() => fake.stop());

beforeEach(() => fake.reset());

const adapter = (secret = 'right-secret', settings: Record<string, string> = {}) =>
  salesforceAdapter(
    platformClient(
      { platform: 'salesforce', apiType: 'REST', baseUrl: origin, authMethod: 'oauth2', credentials: { clientId: 'connected-app', clientSecret: secret }, apiConfig: {} },
      { allowedOrigins: [origin] },
    ),
    { ...SETTINGS, ...settings },
  );

const person = (n: number, overrides: Partial<ProvisioningPerson> = {}): ProvisioningPerson => ({
  accountId: `acc-${n}`,
  username: `jdoe.${n}`,
  password: `Generated-Pass-${n}!`,
  firstName: 'Jane',
  lastName: `Doe${n}`,
  email: `jane.doe${n}@people.example`,
  ...overrides,
});

const calls = (method: string, pathStart: string) => state.received.filter((r) => r.method === method && r.path.startsWith(pathStart));

describe("contract: a loopback server that plays Salesforce's documented shapes, not the live service", () => {
  it('creates Users with one sObject Collections request (allOrNone false), then sets each password', async () => {
    const sf = adapter();
    const people = [person(1), person(2), person(3)];
    const outcomes = await sf.create(people);
    sf.close();

    expect(outcomes.map((o) => o.kind)).toEqual(['created', 'created', 'created']);
    const token = calls('POST', '/services/oauth2/token');
    expect(token).toHaveLength(1);
    expect(new URLSearchParams(String(token[0]!.body)).get('client_id')).toBe('connected-app');

    const [collection] = calls('POST', `${VERSION}/composite/sobjects`);
    expect(collection!.authorization).toBe('Bearer token-1');
    const body = collection!.body as { allOrNone: boolean; records: Record<string, unknown>[] };
    expect(body.allOrNone).toBe(false);
    expect(body.records[0]).toEqual({
      attributes: { type: 'User' },
      Username: 'jdoe.1@acme.example',
      Alias: 'jdoe1',
      Email: 'jane.doe1@people.example',
      FirstName: 'Jane',
      LastName: 'Doe1',
      ProfileId: '00e5g000001AbCdEFG',
      TimeZoneSidKey: 'GMT',
      LocaleSidKey: 'en_US',
      EmailEncodingKey: 'UTF-8',
      LanguageLocaleKey: 'en_US',
      IsActive: true,
    });
    // The password never travels in the collection; the User Password resource sets it.
    expect(JSON.stringify(body)).not.toContain('Generated-Pass');
    const passwords = calls('POST', `${VERSION}/sobjects/User/`);
    expect(passwords).toHaveLength(3);
    expect(state.users.get('jdoe.2@acme.example')?.password).toBe('Generated-Pass-2!');
    expect(outcomes[1]).toEqual({ kind: 'created', externalId: state.users.get('jdoe.2@acme.example')!.Id });
  });

  it("reads each record's own result: a refused record fails with Salesforce's words, the others are created", async () => {
    const sf = adapter();
    const outcomes = await sf.create([person(1), person(2, { email: 'not-an-address' }), person(3)]);
    sf.close();
    expect(outcomes[0]!.kind).toBe('created');
    expect(outcomes[1]).toEqual({ kind: 'failed', retryable: false, message: 'INVALID_EMAIL_ADDRESS: Email: invalid email address: not-an-address (Email)' });
    expect(outcomes[2]!.kind).toBe('created');
  });

  it('a duplicate user name is looked up by SOQL: linked when the e-mail matches, conflict otherwise, conflict when another org holds it', async () => {
    state.users.set('jdoe.1@acme.example', { Id: '005A', Username: 'jdoe.1@acme.example', Email: 'JANE.DOE1@people.example', IsActive: true, LastLoginDate: '2026-01-01T00:00:00.000+0000' });
    state.users.set('jdoe.2@acme.example', { Id: '005B', Username: 'jdoe.2@acme.example', Email: 'someone.else@people.example', IsActive: true, LastLoginDate: null });
    state.elsewhere.add('jdoe.3@acme.example');
    const sf = adapter();
    const outcomes = await sf.create([person(1), person(2), person(3)]);
    sf.close();

    expect(outcomes[0]).toEqual({ kind: 'linked', externalId: '005A' });
    expect(outcomes[1]).toEqual({ kind: 'conflict', message: 'The user name "jdoe.2@acme.example" is already taken on the platform by another person (someone.else@people.example).' });
    expect(outcomes[2]).toMatchObject({ kind: 'conflict', message: expect.stringContaining('already taken in another Salesforce organization') });
    const queries = calls('GET', `${VERSION}/query`).map((q) => new URL(q.path, origin).searchParams.get('q'));
    expect(queries).toContain("SELECT Id, Username, Email, IsActive, LastLoginDate FROM User WHERE Username = 'jdoe.1@acme.example' LIMIT 1");
    // A User who has signed in keeps its own password; nobody else's is touched.
    expect(calls('POST', `${VERSION}/sobjects/User/`)).toHaveLength(0);
  });

  it('a redelivered chunk creates nobody twice: the User created before the crash is linked and given its password', async () => {
    const sf = adapter();
    // First delivery: created, but the password call died with a 503.
    state.queued.push({ match: `POST ${VERSION}/sobjects/User/`, status: 503, body: [{ message: 'Service Unavailable', errorCode: 'SERVER_UNAVAILABLE' }] });
    const [first] = await sf.create([person(1)]);
    expect(first).toMatchObject({ kind: 'failed', retryable: true, message: expect.stringContaining('was created') });
    const [again] = await sf.create([person(1)]);
    sf.close();
    expect(again).toEqual({ kind: 'linked', externalId: state.users.get('jdoe.1@acme.example')!.Id });
    expect(state.users.size).toBe(1);
    expect(state.users.get('jdoe.1@acme.example')?.password).toBe('Generated-Pass-1!');
  });

  it("a password the org's policy refuses fails the account with Salesforce's words", async () => {
    const sf = adapter();
    const [outcome] = await sf.create([person(1, { password: 'short' })]);
    sf.close();
    expect(outcome).toEqual({
      kind: 'failed',
      retryable: false,
      message: expect.stringMatching(/^The user jdoe\.1@acme\.example was created \(005\w+\) but its password was not set: HTTP 400: Your password must be at least 8 characters long\.$/),
    });
    expect(JSON.stringify(outcome)).not.toContain('short');
  });

  it('429 carries its Retry-After; 403 REQUEST_LIMIT_EXCEEDED is a wait, not refused credentials', async () => {
    state.queued.push({ match: `POST ${VERSION}/composite/sobjects`, status: 429, headers: { 'retry-after': '7' }, body: [{ message: 'Too many requests', errorCode: 'REQUEST_LIMIT_EXCEEDED' }] });
    state.queued.push({ match: `POST ${VERSION}/composite/sobjects`, status: 403, body: [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }] });
    const sf = adapter();
    const limited = await sf.create([person(1), person(2)]);
    const allocation = await sf.create([person(1)]);
    const after = await sf.create([person(1)]);
    sf.close();
    expect(limited).toEqual([
      { kind: 'failed', retryable: true, rateLimited: true, retryAfterMs: 7000, message: 'HTTP 429: Too many requests' },
      { kind: 'failed', retryable: true, rateLimited: true, retryAfterMs: 7000, message: 'HTTP 429: Too many requests' },
    ]);
    expect(allocation).toEqual([{ kind: 'failed', retryable: true, retryAfterMs: SALESFORCE_LIMIT_WAIT_MS, message: "HTTP 403: TotalRequests Limit exceeded. (Salesforce's API request limit)" }]);
    expect(after[0]!.kind).toBe('created');
    expect(state.users.size).toBe(1);

    // A 429 on the password call keeps its wait (the use case counts it as a rate limit), and the
    // retry links the User created before it and sets the password.
    state.queued.push({ match: `POST ${VERSION}/sobjects/User/`, status: 429, headers: { 'retry-after': '3' }, body: [{ message: 'Too many requests', errorCode: 'REQUEST_LIMIT_EXCEEDED' }] });
    const again = adapter();
    const [limitedPassword] = await again.create([person(2)]);
    expect(limitedPassword).toEqual({ kind: 'failed', retryable: true, rateLimited: true, retryAfterMs: 3000, message: 'HTTP 429: Too many requests' });
    expect(await again.create([person(2)])).toEqual([{ kind: 'linked', externalId: state.users.get('jdoe.2@acme.example')!.Id }]);
    again.close();
    expect(state.users.get('jdoe.2@acme.example')?.password).toBe('Generated-Pass-2!');
  });

  it('refused credentials: a bad client secret, and a session Salesforce no longer accepts after one fresh token', async () => {
    const bad = adapter('wrong-secret');
    const [refused] = await bad.create([person(1)]);
    bad.close();
    expect(refused).toMatchObject({ kind: 'failed', retryable: false, authRefused: true });
    expect(calls('POST', `${VERSION}/composite/sobjects`)).toHaveLength(0);

    state.queued.push({ match: `POST ${VERSION}/composite/sobjects`, status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] });
    state.queued.push({ match: `POST ${VERSION}/composite/sobjects`, status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] });
    const sf = adapter();
    const [expired] = await sf.create([person(2)]);
    sf.close();
    expect(expired).toEqual({ kind: 'failed', retryable: false, authRefused: true, message: "HTTP 401: Session expired or invalid (the integration's credentials were refused)" });
    expect(state.users.size).toBe(0);
  });

  it('Reset Passwords: setPassword sets the new one with the sObject User Password call; Require password change is not available and says why', async () => {
    const sf = adapter();
    expect((await sf.capabilities()).mustChangePassword).toEqual({ supported: false, reason: expect.stringContaining('without a way to require a change at first sign-in') });
    const [created] = await sf.create([person(1)]);
    const id = (created as { externalId: string }).externalId;
    expect(await sf.setPassword(id, { username: 'jdoe.1', password: 'Reset-Pass-1!y' })).toEqual({ kind: 'updated' });
    expect(state.users.get('jdoe.1@acme.example')?.password).toBe('Reset-Pass-1!y');
    expect(calls('POST', `${VERSION}/sobjects/User/${id}/password`).at(-1)?.body).toEqual({ NewPassword: 'Reset-Pass-1!y' });
    expect(await sf.setPassword(id, { username: 'jdoe.1', password: 'short' })).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('at least 8 characters') });
    expect(state.users.get('jdoe.1@acme.example')?.password).toBe('Reset-Pass-1!y');
    sf.close();
  });

  it('undo deactivates (Salesforce cannot delete a User); a User that is gone answers gone', async () => {
    const sf = adapter();
    expect(await sf.capabilities()).toMatchObject({ batchSize: 200, undo: 'deactivate' });
    const [created] = await sf.create([person(1)]);
    const id = (created as { externalId: string }).externalId;
    expect(await sf.undo(id)).toEqual({ kind: 'undone', action: 'deactivated' });
    const patch = calls('PATCH', `${VERSION}/sobjects/User/${id}`);
    expect(patch.map((p) => p.body)).toEqual([{ IsActive: false }]);
    expect(state.users.get('jdoe.1@acme.example')?.IsActive).toBe(false);
    expect(await sf.undo('005000000000000999')).toEqual({ kind: 'gone' });
    // Provisioned again after the undo: the same User, linked and active again.
    expect(await sf.create([person(1)])).toEqual([{ kind: 'linked', externalId: id }]);
    expect(state.users.get('jdoe.1@acme.example')?.IsActive).toBe(true);
    expect(calls('PATCH', `${VERSION}/sobjects/User/${id}`).map((p) => p.body)).toEqual([{ IsActive: false }, { IsActive: true }]);
    await sf.undo(id);
    expect(await sf.find({ username: 'jdoe.1', email: '' })).toEqual({ externalId: id, userName: 'jdoe.1@acme.example', emails: ['jane.doe1@people.example'], active: false });
    // The dry run's second lookup: by e-mail (SOQL on Email).
    expect(await sf.findByEmail!('Jane.Doe1@people.example')).toEqual({ externalId: id, userName: 'jdoe.1@acme.example', emails: ['jane.doe1@people.example'], active: false });
    expect(await sf.findByEmail!('nobody@people.example')).toBeUndefined();
    expect(calls('GET', `${VERSION}/query`).map((q) => new URL(q.path, origin).searchParams.get('q'))).toContain("SELECT Id, Username, Email, IsActive, LastLoginDate FROM User WHERE Email = 'Jane.Doe1@people.example' LIMIT 1");
    sf.close();
  });

  it('user names, aliases and SOQL quoting: a quote in a name cannot change the query', async () => {
    expect(salesforceUsername('J.Doe', SETTINGS)).toBe('j.doe@acme.example');
    expect(salesforceUsername('jane@corp.example', SETTINGS)).toBe('jane@corp.example');
    expect(salesforceAlias({ username: 'maximilian.mustermann', firstName: 'Max', lastName: 'M' })).toBe('maximili');
    expect(salesforceAlias({ username: "o'brien", firstName: 'Ann', lastName: "O'Brien" })).toBe('obrien');
    const sf = adapter();
    expect(await sf.find({ username: "o'brien' OR Username != 'x", email: '' })).toBeUndefined();
    sf.close();
    const [query] = calls('GET', `${VERSION}/query`);
    expect(new URL(query!.path, origin).searchParams.get('q')).toBe("SELECT Id, Username, Email, IsActive, LastLoginDate FROM User WHERE Username = 'o\\'brien\\' or username != \\'x@acme.example' LIMIT 1");
  });
});

describe('Salesforce as a provisioning target', () => {
  it('needs its settings: a profile id and a user name domain, with clear messages', () => {
    expect(provisioningSupport({ platform: 'salesforce' })).toEqual({ supported: false, reason: expect.stringContaining('the profile id for new users and the domain of their user names') });
    expect(provisioningSupport({ platform: 'salesforce', apiConfig: { provisioning: { salesforce: SETTINGS } } })).toEqual({ supported: true });
    const base = { name: 'SF', platform: 'salesforce', baseUrl: 'https://acme.my.salesforce.com', authMethod: 'oauth2', authConfig: { clientId: 'a', clientSecret: 'b' } };
    const bad = createIntegrationSchema.safeParse({ ...base, apiConfig: { provisioning: { salesforce: { usernameDomain: 'not a domain', profileId: '123' } } } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.message)).toEqual([
      'The user name domain must be a domain such as example.com (Salesforce user names look like e-mails: name@domain)',
      'The profile id is a Salesforce Profile record id: 15 or 18 characters starting with 00e (Setup, Profiles, the id in the address)',
    ]);
    const good = createIntegrationSchema.parse({ ...base, apiConfig: { provisioning: { salesforce: { usernameDomain: 'Acme.Example', profileId: '00e5g000001AbCd', localeSidKey: 'fr_FR' } } } });
    expect(good.apiConfig.provisioning?.salesforce).toEqual({ usernameDomain: 'acme.example', profileId: '00e5g000001AbCd', localeSidKey: 'fr_FR' });
  });
});

describe("contract: Salesforce's User lifecycle after creation (findById, update, setActive, remove)", () => {
  const created = async (sf: ReturnType<typeof adapter>, n: number) => {
    const [outcome] = await sf.create([person(n)]);
    return (outcome as { externalId: string }).externalId;
  };
  const changes = { firstName: 'Janet', lastName: 'Smith', email: 'janet.smith@people.example' };
  const gone = '005000000000000999';

  it('findById reads the User (sObject Rows GET with fields); a User not there is undefined', async () => {
    const sf = adapter();
    const id = await created(sf, 1);
    expect(await sf.findById(id)).toEqual({ externalId: id, userName: 'jdoe.1@acme.example', emails: ['jane.doe1@people.example'], active: true, firstName: 'Jane', lastName: 'Doe1' });
    expect(state.received.at(-1)).toMatchObject({ method: 'GET', path: `${VERSION}/sobjects/User/${id}?fields=Id,Username,Email,IsActive,FirstName,LastName` });
    expect(await sf.findById(gone)).toBeUndefined();
    sf.close();
  });

  it('update PATCHes FirstName, LastName and Email (the new Email waits for its owner to confirm), Username only when regenerated', async () => {
    const sf = adapter();
    expect((await sf.capabilities()).lifecycle.update).toEqual({ supported: true, how: expect.stringContaining('once its owner confirms') });
    const id = await created(sf, 2);
    expect(await sf.update(id, changes)).toEqual({ kind: 'done', detail: "Updated in Salesforce; a new e-mail takes effect once its owner confirms Salesforce's message." });
    expect(calls('PATCH', `${VERSION}/sobjects/User/${id}`).at(-1)?.body).toEqual({ FirstName: 'Janet', LastName: 'Smith', Email: 'janet.smith@people.example' });
    expect(state.users.get('jdoe.2@acme.example')).toMatchObject({ FirstName: 'Janet', LastName: 'Smith', Email: 'jane.doe2@people.example', pendingEmail: 'janet.smith@people.example' });

    expect(await sf.update(id, { ...changes, username: 'jsmith' })).toEqual({ kind: 'done', detail: "Updated in Salesforce, as jsmith@acme.example; a new e-mail takes effect once its owner confirms Salesforce's message." });
    expect(calls('PATCH', `${VERSION}/sobjects/User/${id}`).at(-1)?.body).toMatchObject({ Username: 'jsmith@acme.example' });
    expect(await sf.findById(id)).toMatchObject({ userName: 'jsmith@acme.example' });

    // A Username another org holds: a conflict, in Salesforce's words.
    state.elsewhere.add('taken@acme.example');
    expect(await sf.update(id, { ...changes, username: 'taken' })).toEqual({
      kind: 'conflict',
      message: 'The user name "taken@acme.example" is already taken in Salesforce (user names are unique across all of Salesforce). HTTP 400: Duplicate Username.<br>The username already exists in this or another Salesforce organization.',
    });
    expect(await sf.update(gone, changes)).toEqual({ kind: 'gone', detail: 'Salesforce has no such user.' });
    sf.close();
  });

  it('setActive PATCHes IsActive false and true; a User gone: deactivation is done (said so), reactivation is gone', async () => {
    const sf = adapter();
    const id = await created(sf, 3);
    expect(await sf.setActive(id, false)).toEqual({ kind: 'done', detail: 'Deactivated in Salesforce (IsActive false).' });
    expect(state.users.get('jdoe.3@acme.example')?.IsActive).toBe(false);
    expect(await sf.setActive(id, true)).toEqual({ kind: 'done', detail: 'Active again in Salesforce (IsActive true).' });
    expect(state.users.get('jdoe.3@acme.example')?.IsActive).toBe(true);
    expect(calls('PATCH', `${VERSION}/sobjects/User/${id}`).map((p) => p.body)).toEqual([{ IsActive: false }, { IsActive: true }]);
    expect(await sf.setActive(gone, false)).toEqual({ kind: 'done', alreadyGone: true, detail: 'Salesforce has no such user: nothing left to deactivate.' });
    expect(await sf.setActive(gone, true)).toEqual({ kind: 'gone', detail: 'Salesforce has no such user: there is nothing to reactivate.' });
    sf.close();
  });

  it('remove deactivates, since Salesforce keeps its users, and says so before and after', async () => {
    const sf = adapter();
    expect((await sf.capabilities()).lifecycle.remove).toEqual({ supported: true, how: 'Salesforce keeps users: Delete deactivates them there (IsActive false).' });
    const id = await created(sf, 4);
    expect(await sf.remove(id)).toEqual({ kind: 'done', action: 'deactivated', detail: 'Deactivated in Salesforce (IsActive false): Salesforce keeps users, it cannot delete them.' });
    expect(calls('DELETE', VERSION)).toHaveLength(0);
    expect(state.users.get('jdoe.4@acme.example')?.IsActive).toBe(false);
    expect(await sf.remove(gone)).toEqual({ kind: 'done', action: 'deactivated', alreadyGone: true, detail: 'Salesforce has no such user: nothing left to deactivate.' });
    sf.close();
  });

  it("429 (its Retry-After), 403 REQUEST_LIMIT_EXCEEDED (a wait), 5xx (retryable) and 401 (authRefused) for every operation, in Salesforce's words", async () => {
    const sf = adapter();
    const id = await created(sf, 5);
    const calls: [string, string, () => Promise<unknown>][] = [
      ['findById', 'GET', () => sf.findById(id)],
      ['update', 'PATCH', () => sf.update(id, changes)],
      ['deactivate', 'PATCH', () => sf.setActive(id, false)],
      ['reactivate', 'PATCH', () => sf.setActive(id, true)],
      ['remove', 'PATCH', () => sf.remove(id)],
    ];
    for (const [name, method, call] of calls) {
      const match = `${method} ${VERSION}/sobjects/User/${id}`;
      state.queued.push({ match, status: 429, headers: { 'retry-after': '5' }, body: [{ message: 'Too many requests', errorCode: 'REQUEST_LIMIT_EXCEEDED' }] });
      expect(await call(), name).toEqual({ kind: 'failed', retryable: true, rateLimited: true, retryAfterMs: 5000, message: 'HTTP 429: Too many requests' });
      state.queued.push({ match, status: 403, body: [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }] });
      expect(await call(), name).toEqual({ kind: 'failed', retryable: true, retryAfterMs: SALESFORCE_LIMIT_WAIT_MS, message: "HTTP 403: TotalRequests Limit exceeded. (Salesforce's API request limit)" });
      state.queued.push({ match, status: 503, body: [{ message: 'Server temporarily unavailable', errorCode: 'SERVER_UNAVAILABLE' }] });
      expect(await call(), name).toEqual({ kind: 'failed', retryable: true, message: 'HTTP 503: Server temporarily unavailable' });
      state.queued.push({ match, status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] });
      state.queued.push({ match, status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] });
      expect(await call(), name).toEqual({ kind: 'failed', retryable: false, authRefused: true, message: "HTTP 401: Session expired or invalid (the integration's credentials were refused)" });
    }
    expect(state.users.get('jdoe.5@acme.example')).toMatchObject({ IsActive: true, FirstName: 'Jane' });
    sf.close();
  });
});
