import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { provisioningSettingsSchema } from '../../shared/schemas/integrations';
import { provisioningSupport } from '../../shared/schemas/provisioning';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import { adapterFactory, pacingOf } from '../../functions/provisioning/adapters';
import { microsoftGraphAdapter, type GraphSettings } from '../../functions/provisioning/adapters/microsoft-graph';
import { platformClient } from '../../functions/provisioning/platform-client';
import { startFakeGraph, type FakeGraph } from '../support/fake-graph';
import { person } from '../support/provisioning-people';

/**
 * Microsoft Graph's adapter against test/support/fake-graph.ts: a loopback server answering the
 * request and response shapes Graph documents (Create user, JSON batching, Throttling, $filter,
 * the identity platform's token endpoint), not the live service.
 */
let fake: FakeGraph;
let origin = '';
let DOMAIN = '';
beforeAll(async () => {
  fake = await startFakeGraph();
  origin = fake.origin;
  DOMAIN = fake.domain;
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const upn = (n: number) => `janedoe2026-${n}@${DOMAIN}`;

const credentials = (clientSecret = fake.oauth.clientSecret) => ({ clientId: fake.oauth.clientId, clientSecret, tokenUrl: fake.oauth.tokenUrl });
const adapter = (settings: Partial<GraphSettings> = {}, clientSecret?: string) =>
  microsoftGraphAdapter(
    platformClient({ platform: 'active_directory', apiType: 'REST', baseUrl: `${origin}/v1.0`, authMethod: 'oauth2', credentials: credentials(clientSecret), apiConfig: {} }, { allowedOrigins: [origin] }),
    { domain: DOMAIN, ...settings },
  );

const seed = (userPrincipalName: string, mail: string | null, otherMails: string[] = []) => fake.seed(userPrincipalName, mail, otherMails);

type BatchBody = { requests: { id: string; method: string; url: string; headers: Record<string, string>; body: Record<string, unknown> }[] };

describe("contract: a loopback server that plays Microsoft Graph's documented shapes, not the live service", () => {
  it('creates people in one JSON $batch of POST /users, signed with a client-credentials token for <graph>/.default, each answer matched by id', async () => {
    const graph = adapter();
    expect(await graph.capabilities()).toMatchObject({ batchSize: 20, undo: 'deactivate' });
    const outcomes = await graph.create([person(1), person(2), person(3)]);
    graph.close();

    expect(outcomes.map((o) => o.kind)).toEqual(['created', 'created', 'created']);
    // Matched by id although the answers came in reverse order.
    outcomes.forEach((o, i) => expect(fake.users.get((o as { externalId: string }).externalId)?.userPrincipalName).toBe(upn(i + 1)));

    expect(Object.fromEntries(fake.tokenRequests[0]!)).toEqual({ grant_type: 'client_credentials', client_id: fake.oauth.clientId, client_secret: fake.oauth.clientSecret, scope: `${origin}/.default` });
    expect(fake.received).toHaveLength(1);
    const batch = fake.received[0]!;
    expect(batch.method).toBe('POST');
    expect(batch.url).toBe('/v1.0/$batch');
    expect(batch.authorization).toBe(`Bearer ${fake.oauth.accessToken}`);
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
      // Require password change is off (the default): Entra ID does not ask for a new password.
      passwordProfile: { password: 'Generated-Pw-1!x', forceChangePasswordNextSignIn: false },
    });
  });

  it('Require password change: forceChangePasswordNextSignIn follows the setting, on creation and on a password reset', async () => {
    const client = platformClient({ platform: 'active_directory', apiType: 'REST', baseUrl: `${origin}/v1.0`, authMethod: 'oauth2', credentials: credentials(), apiConfig: {} }, { allowedOrigins: [origin] });
    const graph = microsoftGraphAdapter(client, { domain: DOMAIN }, { requirePasswordChange: true });
    expect((await graph.capabilities()).mustChangePassword).toEqual({ supported: true, how: expect.stringContaining('forceChangePasswordNextSignIn') });
    const [created] = await graph.create([person(1)]);
    const id = (created as { externalId: string }).externalId;
    expect((fake.received.at(-1)!.body as { passwordProfile: unknown }).passwordProfile).toEqual({ password: 'Generated-Pw-1!x', forceChangePasswordNextSignIn: true });
    expect(await graph.setPassword(id, { username: 'janedoe2026-1', password: 'Reset-Pw-2!y' })).toEqual({ kind: 'updated' });
    const patch = fake.received.at(-1)!;
    expect([patch.method, patch.url]).toEqual(['PATCH', `/v1.0/users/${id}`]);
    expect(patch.body).toEqual({ passwordProfile: { password: 'Reset-Pw-2!y', forceChangePasswordNextSignIn: true } });
    expect(await graph.setPassword('no-such-user', { username: 'x', password: 'Reset-Pw-2!y' })).toEqual({ kind: 'gone' });
    graph.close();
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
    expect(outcomes[3]).toEqual({ kind: 'failed', retryable: true, rateLimited: true, message: 'HTTP 429: Too many requests.', retryAfterMs: 7000 });
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
    fake.received.length = 0;
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
    fake.limits.throttleCalls = 1;
    const graph = adapter();
    const outcomes = await graph.create([person(1), person(2)]);
    graph.close();
    expect(outcomes).toEqual([0, 1].map(() => ({ kind: 'failed', retryable: true, rateLimited: true, message: 'HTTP 429: Please retry again later.', retryAfterMs: 3000 })));
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

  it("fails a person whose mail another user holds (proxyAddresses) with Graph's words, not retried, never read as a name held", async () => {
    seed(`someoneelse2026@${DOMAIN}`, 'jane.doe1@example.com');
    const graph = adapter();
    const outcomes = await graph.create([person(1), person(2)]);
    graph.close();
    expect(outcomes[0]).toEqual({ kind: 'failed', retryable: false, message: 'HTTP 400: Another object with the same value for property proxyAddresses already exists.' });
    expect(outcomes[1]!.kind).toBe('created');
    // No lookup by name followed the refusal: it is not the userPrincipalName's.
    expect(fake.received.filter((r) => r.method === 'GET' && r.url.includes('/users?'))).toEqual([]);
  });

  it('undoes by PATCH accountEnabled=false (the default) or DELETE per setting; a user no longer there is gone', async () => {
    const graph = adapter();
    const [created] = await graph.create([person(1)]);
    const id = (created as { externalId: string }).externalId;
    fake.received.length = 0;
    expect(await graph.undo(id)).toEqual({ kind: 'undone', action: 'deactivated' });
    expect(fake.received.map((r) => [r.method, r.url, r.body])).toEqual([['PATCH', `/v1.0/users/${id}`, { accountEnabled: false }]]);
    expect(fake.users.get(id)?.accountEnabled).toBe(false);
    graph.close();

    const deleting = adapter({ undo: 'delete' });
    expect(await deleting.capabilities()).toMatchObject({ batchSize: 20, undo: 'delete' });
    expect(await deleting.undo(id)).toEqual({ kind: 'undone', action: 'deleted' });
    expect(fake.users.has(id)).toBe(false);
    expect(await deleting.undo(id)).toEqual({ kind: 'gone' });
    deleting.close();
  });
});

describe("contract: the user's other properties (employeeId and the mapped extra columns) as Graph's user resource documents them", () => {
  // What the adapter factory gives the adapter: the columns already mapped to Graph's property names.
  const mapped = {
    employeeId: 'E-1815',
    employeeHireDate: '2026-03-01',
    employeeType: 'Contractor',
    department: 'Research',
    jobTitle: 'Analyst',
    mobilePhone: '+44 20 7946 0000',
    businessPhones: '+44 20 7946 0001',
    officeLocation: '18/2111',
    companyName: 'Contoso',
    usageLocation: 'gb',
    postalCode: 'EC1A 1BB',
  };
  const asGraphDocuments = {
    employeeId: 'E-1815',
    // A DateTimeOffset (ISO 8601, UTC), not a bare date.
    employeeHireDate: '2026-03-01T00:00:00Z',
    employeeType: 'Contractor',
    department: 'Research',
    jobTitle: 'Analyst',
    mobilePhone: '+44 20 7946 0000',
    // A string collection holding one number.
    businessPhones: ['+44 20 7946 0001'],
    officeLocation: '18/2111',
    companyName: 'Contoso',
    // A two-letter country code (ISO 3166).
    usageLocation: 'GB',
    postalCode: 'EC1A 1BB',
  };
  const standard = (n: number) => ({
    accountEnabled: true,
    displayName: `Jane Doe${n}`,
    mailNickname: `janedoe2026-${n}`,
    userPrincipalName: upn(n),
    mail: `jane.doe${n}@example.com`,
    givenName: 'Jane',
    surname: `Doe${n}`,
    passwordProfile: { password: `Generated-Pw-${n}!x`, forceChangePasswordNextSignIn: false },
  });

  it('creates with employeeId and the other properties on POST /users (alone and in a $batch), each in its documented type; Graph keeps them', async () => {
    const graph = adapter();
    const [alone] = await graph.create([person(1, { platformAttributes: mapped })]);
    expect(alone?.kind).toBe('created');
    expect(fake.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1.0/users']);
    expect(fake.received[0]!.body).toEqual({ ...asGraphDocuments, ...standard(1) });
    expect(fake.users.get((alone as { externalId: string }).externalId)).toMatchObject(asGraphDocuments);

    fake.received.length = 0;
    const batched = await graph.create([person(2, { platformAttributes: mapped }), person(3, { platformAttributes: { employeeId: '000042' } })]);
    graph.close();
    expect(batched.map((o) => o.kind)).toEqual(['created', 'created']);
    const { requests } = fake.received[0]!.body as BatchBody;
    expect(requests.map((r) => r.body)).toEqual([{ ...asGraphDocuments, ...standard(2) }, { employeeId: '000042', ...standard(3) }]);
    // The manager is a reference (/manager/$ref), never a property of the body.
    for (const request of requests) expect(request.body).not.toHaveProperty('manager');
  });

  it('updates by PATCH /users/{id}: employeeId and the others set in their types, a removed column cleared (null, businessPhones [])', async () => {
    const graph = adapter();
    const [created] = await graph.create([person(4, { platformAttributes: mapped })]);
    const id = (created as { externalId: string }).externalId;
    const outcome = await graph.update(id, {
      firstName: 'Jane',
      lastName: 'Doe4',
      email: 'jane.doe4@example.com',
      platformAttributes: { employeeId: 'E-2026-0001', employeeHireDate: '2026-04-01T09:30:00+02:00', jobTitle: 'Lead' },
      clearedPlatformAttributes: ['department', 'businessPhones'],
    });
    graph.close();
    expect(outcome).toEqual({ kind: 'done', detail: 'Updated in Microsoft Entra ID.' });
    expect(fake.received.at(-1)).toMatchObject({ method: 'PATCH', url: `/v1.0/users/${id}` });
    expect(fake.received.at(-1)!.body).toEqual({
      department: null,
      businessPhones: [],
      employeeId: 'E-2026-0001',
      employeeHireDate: '2026-04-01T07:30:00Z',
      jobTitle: 'Lead',
      givenName: 'Jane',
      surname: 'Doe4',
      displayName: 'Jane Doe4',
      mail: 'jane.doe4@example.com',
    });
    expect(fake.users.get(id)).toMatchObject({ employeeId: 'E-2026-0001', employeeHireDate: '2026-04-01T07:30:00Z', jobTitle: 'Lead', department: null, businessPhones: [], officeLocation: '18/2111' });
  });

  it('refuses, before any call, a value Graph would refuse for the whole user (employeeId over 16 characters, a hire date that is not a date, a country that is not two letters); the others are sent', async () => {
    // Graph's own answer to such a value: 400 for the whole user.
    const client = platformClient({ platform: 'active_directory', apiType: 'REST', baseUrl: `${origin}/v1.0`, authMethod: 'oauth2', credentials: credentials(), apiConfig: {} }, { allowedOrigins: [origin] });
    const direct = await client.call({ method: 'POST', path: '/users', body: { ...standard(9), employeeId: 'E-12345678901234567' } });
    client.close();
    expect(direct).toMatchObject({ status: 400, json: { error: { message: "Invalid value specified for property 'employeeId' of resource 'User'." } } });
    expect(fake.users.size).toBe(0);
    fake.received.length = 0;

    const graph = adapter();
    const outcomes = await graph.create([
      person(5, { platformAttributes: { employeeId: 'E-12345678901234567' } }),
      person(6, { platformAttributes: { employeeId: 'E-6' } }),
      person(7, { platformAttributes: { employeeHireDate: '03/01/2026' } }),
      person(8, { platformAttributes: { usageLocation: 'United Kingdom' } }),
    ]);
    expect(outcomes).toEqual([
      { kind: 'failed', retryable: false, message: `Not sent to Microsoft Entra ID: employeeId "E-12345678901234567" has 19 characters; Microsoft Entra ID takes at most 16. Correct the account's value (or the integration's attribute mapping) and try again.` },
      { kind: 'created', externalId: expect.any(String) },
      { kind: 'failed', retryable: false, message: expect.stringContaining('employeeHireDate "03/01/2026" is not a date: write it as 2026-03-01') },
      { kind: 'failed', retryable: false, message: expect.stringContaining('usageLocation "United Kingdom" is not a two-letter country code (ISO 3166)') },
    ]);
    // Only the person Graph takes was sent (alone: a single POST).
    expect(fake.received.map((r) => [r.method, r.url, (r.body as { userPrincipalName?: string }).userPrincipalName])).toEqual([['POST', '/v1.0/users', upn(6)]]);

    const id = (outcomes[1] as { externalId: string }).externalId;
    fake.received.length = 0;
    const update = await graph.update(id, { firstName: 'Jane', lastName: 'Doe6', email: 'jane.doe6@example.com', platformAttributes: { employeeId: 'x'.repeat(17) } });
    graph.close();
    expect(update).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('has 17 characters; Microsoft Entra ID takes at most 16') });
    expect(fake.received).toEqual([]);
    expect(fake.users.get(id)).toMatchObject({ employeeId: 'E-6' });
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

  it('is supported over Graph with a verified domain; refused with the reason without one; an ldaps:// URL is the LDAP adapter\'s (it needs a base DN)', () => {
    expect(provisioningSupport(integration('https://graph.microsoft.com/v1.0'))).toEqual({ supported: true });
    expect(provisioningSupport(integration('https://graph.microsoft.com/v1.0', {}))).toEqual({ supported: false, reason: expect.stringMatching(/verified domain/) });
    expect(provisioningSupport(integration('ldaps://dc1.corp.example:636'))).toEqual({ supported: false, reason: expect.stringMatching(/LDAP directory needs the integration's LDAP settings: the base DN/) });
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
    expect(await graph.capabilities()).toMatchObject({ batchSize: 20, undo: 'delete' });
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

describe("contract: Microsoft Graph's user lifecycle after creation (findById, update, setActive, remove)", () => {
  const created = async (graph: ReturnType<typeof adapter>, n: number) => {
    const [outcome] = await graph.create([person(n)]);
    return (outcome as { externalId: string }).externalId;
  };
  const changes = { firstName: 'Janet', lastName: 'Smith', email: 'janet.smith@example.com' };
  const last = () => fake.received.at(-1)!;

  it('findById reads GET /users/{id} with $select: the UPN, mail, accountEnabled and the names; a user not there is undefined', async () => {
    const graph = adapter();
    const id = await created(graph, 1);
    expect(await graph.findById(id)).toEqual({ externalId: id, userName: upn(1), emails: ['jane.doe1@example.com'], active: true, firstName: 'Jane', lastName: 'Doe1' });
    expect(last()).toMatchObject({ method: 'GET', url: `/v1.0/users/${id}?$select=id,userPrincipalName,mail,otherMails,accountEnabled,givenName,surname` });
    expect(await graph.findById('00000000-0000-0000-0000-999999999999')).toBeUndefined();
    graph.close();
  });

  it('update is PATCH /users/{id} (204): givenName, surname, displayName, mail; the UPN and mailNickname only with a regenerated username', async () => {
    const graph = adapter();
    const id = await created(graph, 2);
    expect(await graph.update(id, changes)).toEqual({ kind: 'done', detail: 'Updated in Microsoft Entra ID.' });
    expect(last()).toMatchObject({ method: 'PATCH', url: `/v1.0/users/${id}`, body: { givenName: 'Janet', surname: 'Smith', displayName: 'Janet Smith', mail: 'janet.smith@example.com' } });
    expect(last().body).not.toHaveProperty('userPrincipalName');
    expect(fake.users.get(id)).toMatchObject({ userPrincipalName: upn(2), mail: 'janet.smith@example.com', displayName: 'Janet Smith' });

    expect(await graph.update(id, { ...changes, username: 'janetsmith' })).toEqual({ kind: 'done', detail: `Updated in Microsoft Entra ID, as janetsmith@${DOMAIN}.` });
    expect(last().body).toMatchObject({ userPrincipalName: `janetsmith@${DOMAIN}`, mailNickname: 'janetsmith' });

    const other = await created(graph, 3);
    expect(await graph.update(other, { ...changes, email: 'x@example.com', username: 'janetsmith' })).toEqual({
      kind: 'conflict',
      message: 'Microsoft Entra ID refused the change: a value it keeps unique is taken. HTTP 400: Another object with the same value for property userPrincipalName already exists.',
    });
    expect(fake.users.get(other)?.userPrincipalName).toBe(upn(3));
    expect(await graph.update('00000000-0000-0000-0000-999999999999', changes)).toEqual({ kind: 'gone', detail: 'Microsoft Entra ID no longer has this user.' });
    graph.close();
  });

  it('setActive PATCHes accountEnabled false and true; a user gone: deactivation is done (said so), reactivation is gone', async () => {
    const graph = adapter();
    const id = await created(graph, 4);
    expect(await graph.setActive(id, false)).toEqual({ kind: 'done', detail: 'Sign-in blocked in Microsoft Entra ID (accountEnabled false).' });
    expect(last()).toMatchObject({ method: 'PATCH', url: `/v1.0/users/${id}`, body: { accountEnabled: false } });
    expect(fake.users.get(id)?.accountEnabled).toBe(false);
    expect(await graph.findById(id)).toMatchObject({ active: false });
    expect(await graph.setActive(id, true)).toEqual({ kind: 'done', detail: 'Sign-in allowed again in Microsoft Entra ID.' });
    expect(fake.users.get(id)?.accountEnabled).toBe(true);
    const gone = '00000000-0000-0000-0000-999999999999';
    expect(await graph.setActive(gone, false)).toEqual({ kind: 'done', alreadyGone: true, detail: 'Microsoft Entra ID no longer has this user: nothing left to deactivate.' });
    expect(await graph.setActive(gone, true)).toEqual({ kind: 'gone', detail: 'Microsoft Entra ID no longer has this user: there is nothing to reactivate.' });
    graph.close();
  });

  it('remove is DELETE /users/{id} (204), restorable there for 30 days; again: already gone, which counts as done', async () => {
    const graph = adapter();
    expect((await graph.capabilities()).lifecycle.remove).toEqual({ supported: true, how: expect.stringContaining('keeps deleted users for 30 days') });
    const id = await created(graph, 5);
    expect(await graph.remove(id)).toEqual({ kind: 'done', action: 'deleted', detail: 'Deleted in Microsoft Entra ID (restorable there for 30 days).' });
    expect(last()).toMatchObject({ method: 'DELETE', url: `/v1.0/users/${id}` });
    expect(fake.users.has(id)).toBe(false);
    expect(await graph.remove(id)).toEqual({ kind: 'done', action: 'deleted', alreadyGone: true, detail: 'Microsoft Entra ID no longer had this user: nothing left to delete.' });
    graph.close();
  });

  it("429 (its Retry-After), 5xx (retryable) and 401 (authRefused) for every operation, in Graph's words", async () => {
    const graph = adapter();
    const id = await created(graph, 6);
    const calls: [string, () => Promise<unknown>][] = [
      ['findById', () => graph.findById(id)],
      ['update', () => graph.update(id, changes)],
      ['deactivate', () => graph.setActive(id, false)],
      ['reactivate', () => graph.setActive(id, true)],
      ['remove', () => graph.remove(id)],
    ];
    for (const [name, call] of calls) {
      fake.queued.push({ status: 429, body: { error: { code: 'TooManyRequests', message: 'Too many requests.' } }, headers: { 'retry-after': '9' } });
      expect(await call(), name).toEqual({ kind: 'failed', retryable: true, rateLimited: true, retryAfterMs: 9000, message: 'HTTP 429: Too many requests.' });
      fake.queued.push({ status: 503, body: { error: { code: 'serviceNotAvailable', message: 'Service unavailable.' } } });
      expect(await call(), name).toEqual({ kind: 'failed', retryable: true, message: 'HTTP 503: Service unavailable.' });
      fake.queued.push({ status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired or is not yet valid.' } } });
      fake.queued.push({ status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired or is not yet valid.' } } });
      // One fresh token, then the 401 stands: refused credentials.
      expect(await call(), name).toMatchObject({ kind: 'failed', retryable: false, authRefused: true, message: expect.stringContaining('HTTP 401: Access token has expired') });
    }
    expect(fake.users.get(id)).toMatchObject({ accountEnabled: true, mail: 'jane.doe6@example.com' });
    graph.close();
  });
});
