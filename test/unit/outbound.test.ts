import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOutboundError, guardedRequest, isPublicAddress, outboundUrlProblem, OutboundRefusedError } from '../../functions/core/outbound';
import { joinUrl, testConnection } from '../../functions/integrations/connection-test';

/** A resolver that answers fixed addresses for any name (what a hostile DNS record would do). */
const resolvesTo = (...addresses: string[]) =>
  ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    )) as unknown as typeof dnsLookup;

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['not-an-ip', false],
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['::127.0.0.1', false],
    ['::7f00:1', false],
  ])('%s -> %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('outboundUrlProblem', () => {
  it('allows public https URLs and refuses the rest before any DNS', () => {
    expect(outboundUrlProblem('https://acme.okta.com/api')).toBeUndefined();
    expect(outboundUrlProblem('https://8.8.8.8/')).toBeUndefined();
    expect(outboundUrlProblem('http://acme.okta.com')).toMatch(/only https/);
    expect(outboundUrlProblem('https://user:pw@acme.okta.com')).toMatch(/credentials/);
    expect(outboundUrlProblem('https://localhost/')).toMatch(/private or reserved/);
    expect(outboundUrlProblem('https://metadata.internal/')).toMatch(/private or reserved/);
    expect(outboundUrlProblem('https://intranet/')).toMatch(/private or reserved/);
    expect(outboundUrlProblem('https://0x7f000001/')).toMatch(/private or reserved/);
    expect(outboundUrlProblem('https://[::ffff:169.254.169.254]/')).toMatch(/private or reserved/);
    expect(outboundUrlProblem('https://[::127.0.0.1]/')).toMatch(/private or reserved/);
    expect(outboundUrlProblem('file:///etc/passwd')).toMatch(/only https/);
    expect(outboundUrlProblem('nonsense')).toBe('The URL is not valid.');
  });
});

describe('guardedRequest', () => {
  let server: http.Server;
  let origin: string;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits++;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/' });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(200 * 1024));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a public-looking name that resolves to a private address, without connecting', async () => {
    hits = 0;
    const attempt = guardedRequest({ url: 'https://rebind.example.com/' }, { lookup: resolvesTo('127.0.0.1') });
    await expect(attempt).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(attempt).rejects.toThrow(/rebind\.example\.com is a private or reserved address/);
    // One private address among public ones is enough to refuse.
    await expect(guardedRequest({ url: 'https://mixed.example.com/' }, { lookup: resolvesTo('8.8.8.8', '10.0.0.1') })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(hits).toBe(0);
  });

  it('reaches an allowed origin, caps the answer at 64 KB and does not follow redirects', async () => {
    const response = await guardedRequest({ url: `${origin}/big` }, { allowedOrigins: [origin] });
    expect(response.status).toBe(200);
    expect(response.body.length).toBe(64 * 1024);
    const redirect = await guardedRequest({ url: `${origin}/redirect` }, { allowedOrigins: [origin] });
    expect(redirect.status).toBe(302);
  });

  it('refuses the same origin when it is not allowed', async () => {
    await expect(guardedRequest({ url: `${origin}/big` })).rejects.toBeInstanceOf(OutboundRefusedError);
  });

  it('describes failures in words', () => {
    expect(describeOutboundError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe('The host name could not be found.');
    expect(describeOutboundError(Object.assign(new Error('x'), { name: 'TimeoutError' }))).toBe('No answer within 10 seconds.');
    // What node's http client throws when its AbortSignal.timeout fires.
    expect(describeOutboundError(Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }), 8000)).toBe('No answer within 8 seconds.');
    expect(describeOutboundError(Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }))).toMatch(/TLS certificate/);
    expect(describeOutboundError(new Error('secret internals'))).toBe('The request failed.');
  });
});

describe('testConnection', () => {
  it('reports a refused address as a failed test, not an error', async () => {
    const result = await testConnection({ platform: 'okta', apiType: 'REST', baseUrl: 'https://127.0.0.1:9', authMethod: 'api_key', credentials: { apiKey: 'k' }, apiConfig: {} });
    expect(result).toEqual({ status: 'failed', message: expect.stringMatching(/^Refused: 127\.0\.0\.1 is a private or reserved address/) });
  });

  it('joins base and path with one slash', () => {
    expect(joinUrl('https://a.com/', '/x')).toBe('https://a.com/x');
    expect(joinUrl('https://a.com/v1', 'users?x=1')).toBe('https://a.com/v1/users?x=1');
    expect(joinUrl('https://a.com/v1', '')).toBe('https://a.com/v1');
    expect(joinUrl('https://a.com/v1?tenant=x', '/users?limit=1')).toBe('https://a.com/v1/users?tenant=x&limit=1');
    expect(joinUrl('https://graph.microsoft.com/v1.0', '/users?$top=1')).toBe('https://graph.microsoft.com/v1.0/users?$top=1');
  });
});
