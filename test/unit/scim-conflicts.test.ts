import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { scimAdapter } from '../../functions/provisioning/adapters/scim';
import { platformClient } from '../../functions/provisioning/platform-client';
import { person } from '../support/provisioning-people';

/**
 * The SCIM adapter's reading of 409 uniqueness (RFC 7644 3.12), against the real local SCIM
 * directory (bin/local/scim-server.ts, scimmy) set to keep e-mail addresses unique too, as some
 * providers do (better-auth's SCIM server answers "A Better Auth User already uses this email").
 * A 409 says some unique value is taken, not which: a user name held is told from an e-mail held,
 * the platform's words are kept, and a refusal that will come again is final, not retried.
 */
const TOKEN = 'scim-conflicts-token';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
let single: ScimServer;
let bulk: ScimServer;
beforeAll(async () => {
  // maxOperations 1: one POST /Users a person; the other takes /Bulk.
  single = await startScimServer({ port: 0, token: TOKEN, uniqueEmails: true, maxOperations: 1 });
  bulk = await startScimServer({ port: 0, token: TOKEN, uniqueEmails: true });
});
afterAll(async () => {
  await single?.stop();
  await bulk?.stop();
});
beforeEach(() => {
  single.reset();
  bulk.reset();
});

const adapterFor = (server: ScimServer) => {
  const origin = new URL(server.url).origin;
  return scimAdapter(platformClient({ platform: 'custom', apiType: 'REST', baseUrl: server.url, authMethod: 'bearer_token', credentials: { token: TOKEN }, apiConfig: {} }, { allowedOrigins: [origin] }));
};

async function seed(server: ScimServer, userName: string, email: string) {
  const response = await fetch(`${server.url}/Users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({ schemas: [USER_SCHEMA], userName, emails: [{ value: email, primary: true }] }),
  });
  expect(response.status).toBe(201);
}


describe.each([
  ['one POST /Users a person', () => single],
  ['/Bulk', () => bulk],
])('SCIM 409 uniqueness, %s', (_name, server) => {
  it("tells an e-mail held under another user name from a user name held, keeps the platform's words, and fails it for good", async () => {
    await seed(server(), 'jd-elsewhere', 'jane.doe1@example.com');
    await seed(server(), 'janedoe2026-2', 'somebody.else@example.com');
    await seed(server(), 'janedoe2026-3', 'jane.doe3@example.com');
    const scim = adapterFor(server());
    const outcomes = await scim.create([person(1), person(2), person(3), person(4)]);
    scim.close();

    expect(outcomes[0]).toEqual({
      kind: 'conflict',
      message:
        'The e-mail address jane.doe1@example.com is already used on the platform by another user ("jd-elsewhere"), so "janedoe2026-1" was not created. ' +
        "The platform says: HTTP 409: The e-mail address 'jane.doe1@example.com' is already used by another user",
    });
    expect(outcomes[1]).toEqual({ kind: 'conflict', message: 'The user name "janedoe2026-2" is already taken on the platform by another person (somebody.else@example.com).' });
    expect(outcomes[2]).toMatchObject({ kind: 'linked' });
    expect(outcomes[3]).toMatchObject({ kind: 'created' });
    for (const outcome of outcomes) expect(JSON.stringify(outcome)).not.toMatch(/try again|will look/i);
    expect(server().users().map((u) => u.userName).sort()).toEqual(['janedoe2026-2', 'janedoe2026-3', 'janedoe2026-4', 'jd-elsewhere']);
  });
});

/**
 * A contract server answering as RFC 7644 3.12 shows (and better-auth's SCIM server words it): 409
 * uniqueness for every POST, while no filter finds the holder (e.g. it keeps unique a value the
 * client cannot search by). Not a real provider: only the error's shape.
 */
describe('SCIM 409 uniqueness, contract server: no user of that name or e-mail found', () => {
  let contract: http.Server;
  let origin = '';
  const received: string[] = [];
  beforeAll(async () => {
    contract = http.createServer((req, res) => {
      received.push(`${req.method} ${decodeURIComponent(req.url ?? '')}`);
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/scim+json' }).end(JSON.stringify(body));
      if (req.url?.endsWith('/ServiceProviderConfig')) return send(200, { bulk: { supported: false }, patch: { supported: true } });
      if (req.method === 'POST') {
        return send(409, { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '409', scimType: 'uniqueness', detail: 'A Better Auth User already uses this email' });
      }
      send(200, { schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    });
    await new Promise<void>((resolve) => contract.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(contract.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => contract.close(() => resolve())));

  it("fails the account for good with the platform's own words, after one look by name and one by e-mail", async () => {
    const scim = scimAdapter(platformClient({ platform: 'custom', apiType: 'REST', baseUrl: `${origin}/scim/v2`, authMethod: 'bearer_token', credentials: { token: 't' }, apiConfig: {} }, { allowedOrigins: [origin] }));
    const [outcome] = await scim.create([person(1)]);
    scim.close();
    expect(outcome).toEqual({
      kind: 'conflict',
      message:
        'The platform refused "janedoe2026-1" as a duplicate, but holds no user of that name: another of this person\'s values is already taken there. ' +
        'The platform says: HTTP 409: A Better Auth User already uses this email',
    });
    expect(received).toEqual([
      'GET /scim/v2/ServiceProviderConfig',
      'POST /scim/v2/Users',
      'GET /scim/v2/Users?filter=userName eq "janedoe2026-1"&count=2',
      'GET /scim/v2/Users?filter=emails.value eq "jane.doe1@example.com"&count=2',
    ]);
  });
});
