import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scimAdapter } from '../../functions/provisioning/adapters/scim';
import { platformClient } from '../../functions/provisioning/platform-client';

/**
 * The SCIM adapter's setPassword against a provider that says, in its ServiceProviderConfig, that
 * passwords cannot be changed (RFC 7643 5, changePassword.supported false): refused with the
 * reason and no PATCH sent. (A provider that allows it: test/integration/reset-passwords.test.ts,
 * against the local scimmy server.)
 */
let server: http.Server;
let origin = '';
const received: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/scim+json' });
    res.end(JSON.stringify({ patch: { supported: true }, bulk: { supported: false }, changePassword: { supported: false } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('SCIM setPassword', () => {
  it('is refused without a call when the provider does not support password changes; must-change is never sent to SCIM', async () => {
    const scim = scimAdapter(platformClient({ platform: 'custom', apiType: 'REST', baseUrl: `${origin}/scim/v2`, authMethod: 'bearer_token', credentials: { token: 't' }, apiConfig: {} }, { allowedOrigins: [origin] }));
    expect(await scim.setPassword('user-1', { username: 'ann', password: 'New-Pass-1!x' })).toEqual({
      kind: 'failed',
      retryable: false,
      message: 'The SCIM provider does not allow password changes (its ServiceProviderConfig says changePassword is not supported).',
    });
    expect((await scim.capabilities()).mustChangePassword).toEqual({ supported: false, reason: expect.stringContaining('SCIM 2.0 has no standard way') });
    expect(received).toEqual(['GET /scim/v2/ServiceProviderConfig']);
    scim.close();
  });
});
