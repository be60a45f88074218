import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scimAdapter } from '../../functions/provisioning/adapters/scim';
import { platformClient } from '../../functions/provisioning/platform-client';

/**
 * Targets that misbehave on purpose: the SCIM adapter must turn each into a clear, bounded
 * failure (never a hang, a crash or a call somewhere else), with no password in any message.
 */
let server: http.Server;
let origin: string;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    const path = req.url ?? '';
    if (path.startsWith('/redirect/')) {
      // To the instance metadata service: must never be followed.
      res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    } else if (path.startsWith('/slow/')) {
      setTimeout(() => res.writeHead(201, { 'content-type': 'application/scim+json' }).end('{"id":"late"}'), 3000).unref();
    } else if (path.startsWith('/huge/')) {
      // A 201 whose body never ends sensibly: 20 MB of padding before any JSON closes.
      res.writeHead(201, { 'content-type': 'application/scim+json' });
      const block = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      const push = () => {
        while (sent < 20 && res.write(block)) sent++;
        if (sent < 20) res.once('drain', push);
        else res.end();
      };
      res.write('{"id":"');
      push();
    } else if (path === '/token-busy') {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"temporarily_unavailable"}');
    } else if (path === '/token-refused') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
    } else if (path.startsWith('/echo/')) {
      // A plain refusal: only its words are kept.
      res.writeHead(400, { 'content-type': 'application/scim+json' }).end(JSON.stringify({ detail: 'Bad request', scimType: 'invalidValue' }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const adapterAt = (path: string, timeoutMs?: number) =>
  scimAdapter(
    platformClient(
      { platform: 'custom', apiType: 'REST', baseUrl: `${origin}${path}`, authMethod: 'bearer_token', credentials: { token: 't' }, apiConfig: {} },
      { allowedOrigins: [origin], ...(timeoutMs ? { timeoutMs } : {}) },
    ),
  );
const person = { accountId: 'a1', username: 'ada', password: 'Secret-Password-123', firstName: 'Ada', lastName: 'L', email: 'ada@example.com' };

describe('hostile provisioning targets', () => {
  it('a redirect (to the metadata service) is not followed: the account fails with the reason', async () => {
    const adapter = adapterAt('/redirect');
    const [outcome] = await adapter.create([person]);
    adapter.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false });
    expect((outcome as { message: string }).message).toContain('redirects are not followed');
    expect(seen.filter((s) => s.includes('meta-data'))).toEqual([]);
  });

  it('a slow server is given up on after the call timeout, as a retryable failure', async () => {
    const adapter = adapterAt('/slow', 500);
    const started = Date.now();
    const [outcome] = await adapter.create([person]);
    adapter.close();
    expect(Date.now() - started).toBeLessThan(2500);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    expect((outcome as { message: string }).message).toMatch(/No answer within/);
  });

  it('a huge answer is read only up to its bound and does not become an account id', async () => {
    const adapter = adapterAt('/huge');
    const before = process.memoryUsage().rss;
    const [outcome] = await adapter.create([person]);
    adapter.close();
    // Not a created account with a 20 MB id: the answer could not be read as the user.
    expect(outcome?.kind).toBe('failed');
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it("a refusal is reported in the platform's words, never with the password", async () => {
    const adapter = adapterAt('/echo');
    const [outcome] = await adapter.create([person]);
    adapter.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false, message: 'HTTP 400: Bad request' });
    expect(JSON.stringify(outcome)).not.toContain(person.password);
  });

  it('a busy token endpoint (503) is a retryable failure, not refused credentials; a 401 there is refused credentials', async () => {
    const withToken = (tokenPath: string) =>
      scimAdapter(
        platformClient(
          { platform: 'custom', apiType: 'REST', baseUrl: `${origin}/echo`, authMethod: 'oauth2', credentials: { clientId: 'c', clientSecret: 's', tokenUrl: `${origin}${tokenPath}` }, apiConfig: {} },
          { allowedOrigins: [origin] },
        ),
      );
    const busy = withToken('/token-busy');
    const [later] = await busy.create([person]);
    busy.close();
    expect(later).toMatchObject({ kind: 'failed', retryable: true });
    expect((later as { authRefused?: boolean }).authRefused).toBeUndefined();
    const refused = withToken('/token-refused');
    const [denied] = await refused.create([person]);
    refused.close();
    expect(denied).toMatchObject({ kind: 'failed', retryable: false, authRefused: true });
  });

  it('a private address that is not allowed is refused before any call', async () => {
    const adapter = scimAdapter(platformClient({ platform: 'custom', apiType: 'REST', baseUrl: 'http://10.0.0.7/scim/v2', authMethod: 'bearer_token', credentials: { token: 't' }, apiConfig: {} }, {}));
    const [outcome] = await adapter.create([person]);
    adapter.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false });
    expect((outcome as { message: string }).message).toMatch(/Refused/);
  });
});
