import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { scimAdapter } from '../../functions/provisioning/adapters/scim';
import { platformClient } from '../../functions/provisioning/platform-client';
import { SCIM_LIFECYCLE, SCIM_NO_PATCH } from '../../shared/schemas/lifecycle';
import { person } from '../support/provisioning-people';

/**
 * The SCIM adapter's lifecycle operations (findById, update, setActive, remove) against the real
 * local SCIM directory (bin/local/scim-server.ts, scimmy), read back over HTTP as a client would;
 * its fault injection for 429 and 5xx; a wrong token for 401. A provider whose
 * ServiceProviderConfig says PATCH is not supported: a loopback server that says so.
 */
const TOKEN = 'scim-lifecycle-token';
let server: ScimServer;
// Every /Users request answered 429 (Retry-After 7), or 500, before anything is done.
let limiting: ScimServer;
let failing: ScimServer;
beforeAll(async () => {
  server = await startScimServer({ port: 0, token: TOKEN, maxOperations: 1 });
  limiting = await startScimServer({ port: 0, token: TOKEN, maxOperations: 1, faults: { rate429: 1, retryAfterSeconds: 7 } });
  failing = await startScimServer({ port: 0, token: TOKEN, maxOperations: 1, faults: { rate500: 1 } });
});
afterAll(async () => {
  await server?.stop();
  await limiting?.stop();
  await failing?.stop();
});
beforeEach(() => server.reset());

const adapterFor = (target: ScimServer, token = TOKEN, settings = {}) => {
  const origin = new URL(target.url).origin;
  return scimAdapter(platformClient({ platform: 'custom', apiType: 'REST', baseUrl: target.url, authMethod: 'bearer_token', credentials: { token }, apiConfig: {} }, { allowedOrigins: [origin] }), settings);
};

const read = async (id: string) => {
  const response = await fetch(`${server.url}/Users/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

async function created(n: number): Promise<string> {
  const scim = adapterFor(server);
  const [outcome] = await scim.create([person(n)]);
  scim.close();
  expect(outcome?.kind).toBe('created');
  return (outcome as { externalId: string }).externalId;
}

describe('SCIM lifecycle against the local SCIM directory (scimmy)', () => {
  it('findById reads the user as it is now (names, e-mail, active); a user not there is undefined', async () => {
    const id = await created(1);
    const scim = adapterFor(server);
    expect(await scim.findById(id)).toEqual({ externalId: id, userName: 'janedoe2026-1', emails: ['jane.doe1@example.com'], active: true, firstName: 'Jane', lastName: 'Doe1' });
    expect(await scim.findById('no-such-user')).toBeUndefined();
    expect((await scim.capabilities()).lifecycle).toEqual(SCIM_LIFECYCLE);
    scim.close();
  });

  it('update replaces the names, display name and e-mail with one PATCH (RFC 7644 3.5.2), the userName only when regenerated', async () => {
    const id = await created(2);
    const scim = adapterFor(server);
    expect(await scim.update(id, { firstName: 'Janet', lastName: 'Smith', email: 'janet.smith@example.com' })).toEqual({ kind: 'done', detail: 'Updated on the SCIM provider.' });
    let user = (await read(id)).body;
    expect(user).toMatchObject({ userName: 'janedoe2026-2', displayName: 'Janet Smith', name: { givenName: 'Janet', familyName: 'Smith', formatted: 'Janet Smith' }, active: true });
    expect(user.emails).toEqual([{ value: 'janet.smith@example.com', type: 'work', primary: true }]);

    expect(await scim.update(id, { firstName: 'Janet', lastName: 'Smith', email: 'janet.smith@example.com', username: 'janetsmith2026' })).toEqual({
      kind: 'done',
      detail: 'Updated on the SCIM provider, with the new user name.',
    });
    user = (await read(id)).body;
    expect(user.userName).toBe('janetsmith2026');
    scim.close();
  });

  it('update to a userName someone else holds is a conflict in the platform words; a user gone is gone', async () => {
    const id = await created(3);
    await created(4);
    const scim = adapterFor(server);
    const outcome = await scim.update(id, { firstName: 'Jane', lastName: 'Doe3', email: 'jane.doe3@example.com', username: 'janedoe2026-4' });
    expect(outcome).toEqual({ kind: 'conflict', message: expect.stringMatching(/^The SCIM provider refused the change: a value it keeps unique is taken\. The platform says: HTTP 409: .*already taken/) });
    expect((await read(id)).body.userName).toBe('janedoe2026-3');
    expect(await scim.update('no-such-user', { firstName: 'A', lastName: 'B', email: 'a@example.com' })).toEqual({ kind: 'gone', detail: 'The SCIM provider no longer has this user.' });
    scim.close();
  });

  it('setActive PATCHes active false and true; a user gone: deactivation counts as done (said so), reactivation is gone', async () => {
    const id = await created(5);
    const scim = adapterFor(server);
    expect(await scim.setActive(id, false)).toEqual({ kind: 'done', detail: 'Inactive on the SCIM provider (active false).' });
    expect((await read(id)).body.active).toBe(false);
    expect((await scim.findById(id)) as { active?: boolean }).toMatchObject({ active: false });
    // Again: harmless (redelivery).
    expect(await scim.setActive(id, false)).toMatchObject({ kind: 'done' });
    expect(await scim.setActive(id, true)).toEqual({ kind: 'done', detail: 'Active again on the SCIM provider.' });
    expect((await read(id)).body.active).toBe(true);

    expect(await scim.setActive('no-such-user', false)).toEqual({ kind: 'done', alreadyGone: true, detail: 'The SCIM provider no longer has this user: nothing left to deactivate.' });
    expect(await scim.setActive('no-such-user', true)).toEqual({ kind: 'gone', detail: 'The SCIM provider no longer has this user: there is nothing to reactivate.' });
    scim.close();
  });

  it('remove DELETEs the user; a second remove finds it gone, which counts as done and says so', async () => {
    const id = await created(6);
    const scim = adapterFor(server);
    expect(await scim.remove(id)).toEqual({ kind: 'done', action: 'deleted', detail: 'Deleted from the SCIM provider.' });
    expect((await read(id)).status).toBe(404);
    expect(await scim.remove(id)).toEqual({ kind: 'done', action: 'deleted', alreadyGone: true, detail: 'The SCIM provider no longer had this user: nothing left to delete.' });
    expect(await scim.findById(id)).toBeUndefined();
    scim.close();
  });

  it('refused credentials (401) are authRefused for every operation', async () => {
    const id = await created(7);
    const scim = adapterFor(server, 'wrong-token');
    const refused = { kind: 'failed', retryable: false, authRefused: true, message: expect.stringContaining("HTTP 401") };
    expect(await scim.findById(id)).toMatchObject(refused);
    expect(await scim.update(id, { firstName: 'A', lastName: 'B', email: 'a@example.com' })).toMatchObject(refused);
    expect(await scim.setActive(id, false)).toMatchObject(refused);
    expect(await scim.remove(id)).toMatchObject(refused);
    scim.close();
    expect((await read(id)).body).toMatchObject({ active: true, userName: 'janedoe2026-7' });
  });

  it("a 429 is retryable and rate limited with the provider's Retry-After; a 5xx is retryable", async () => {
    const scim = adapterFor(limiting);
    const limited = { kind: 'failed', retryable: true, rateLimited: true, retryAfterMs: 7000, message: expect.stringContaining('HTTP 429') };
    expect(await scim.findById('any')).toMatchObject(limited);
    expect(await scim.update('any', { firstName: 'A', lastName: 'B', email: 'a@example.com' })).toMatchObject(limited);
    expect(await scim.setActive('any', false)).toMatchObject(limited);
    expect(await scim.remove('any')).toMatchObject(limited);
    scim.close();
    const broken = adapterFor(failing);
    const failed = { kind: 'failed', retryable: true, message: expect.stringContaining('HTTP 500') };
    expect(await broken.findById('any')).toMatchObject(failed);
    expect(await broken.update('any', { firstName: 'A', lastName: 'B', email: 'a@example.com' })).toMatchObject(failed);
    expect(await broken.setActive('any', true)).toMatchObject(failed);
    expect(await broken.remove('any')).toMatchObject(failed);
    broken.close();
  });
});

describe('a SCIM provider without PATCH (ServiceProviderConfig patch.supported false)', () => {
  let plain: http.Server;
  let origin = '';
  const received: string[] = [];
  beforeAll(async () => {
    plain = http.createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      if (req.method === 'DELETE') {
        res.writeHead(204);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/scim+json' });
      res.end(JSON.stringify({ patch: { supported: false }, bulk: { supported: false } }));
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => plain.close(() => resolve())));

  it('says it cannot update or deactivate before anyone tries, refuses them without a call, and still deletes', async () => {
    const scim = scimAdapter(platformClient({ platform: 'custom', apiType: 'REST', baseUrl: `${origin}/scim/v2`, authMethod: 'bearer_token', credentials: { token: 't' }, apiConfig: {} }, { allowedOrigins: [origin] }));
    const { lifecycle } = await scim.capabilities();
    // Group membership is a PATCH of the group too.
    expect(lifecycle).toEqual({ ...SCIM_LIFECYCLE, update: { supported: false, reason: SCIM_NO_PATCH }, userName: { supported: false, reason: SCIM_NO_PATCH }, setActive: { supported: false, reason: SCIM_NO_PATCH }, groups: { supported: false, reason: SCIM_NO_PATCH } });
    expect(await scim.update('u1', { firstName: 'A', lastName: 'B', email: 'a@example.com' })).toEqual({ kind: 'failed', retryable: false, message: SCIM_NO_PATCH });
    expect(await scim.setActive('u1', false)).toEqual({ kind: 'failed', retryable: false, message: SCIM_NO_PATCH });
    expect(await scim.remove('u1')).toMatchObject({ kind: 'done', action: 'deleted' });
    expect(received).toEqual(['GET /scim/v2/ServiceProviderConfig', 'DELETE /scim/v2/Users/u1']);
    scim.close();
  });
});
