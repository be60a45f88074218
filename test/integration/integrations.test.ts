import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { upgradeMessage } from '../../shared/plans';
import { builtInTemplate } from '../../shared/email/default-template';
import type { EmailTemplate } from '../../shared/schemas/email-templates';
import type { Integration } from '../../shared/schemas/integrations';
import { apiUser, testDb, upgradeToPro, type ApiUser } from '../support/api';

/** A fake Okta / OAuth platform on the one private origin the test stack lets integrations call. */
interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const seen: SeenRequest[] = [];
let platform: http.Server;

beforeAll(async () => {
  const origin = new URL(inject('stack').fakePlatformOrigin);
  platform = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.url === '/oauth/token') {
        const form = new URLSearchParams(body);
        return form.get('client_secret') === 'client-secret-1' ? send(200, { access_token: 'issued-token', token_type: 'Bearer' }) : send(401, { error: 'invalid_client' });
      }
      const auth = req.headers.authorization;
      if (auth === 'SSWS okta-secret-1' || auth === 'Bearer issued-token') return send(200, [{ id: '00u1' }]);
      send(401, { errorCode: 'E0000011' });
    });
  });
  await new Promise<void>((resolve) => platform.listen(Number(origin.port), origin.hostname, resolve));
  expect((platform.address() as AddressInfo).port).toBe(Number(origin.port));
});
afterAll(() => new Promise<void>((resolve) => platform.close(() => resolve())));

const okta = (baseUrl: string, apiKey = 'okta-secret-1') => ({
  name: 'Okta production',
  description: 'Staff accounts',
  platform: 'okta',
  apiType: 'REST',
  baseUrl,
  authMethod: 'api_key',
  authConfig: { apiKey },
  apiConfig: {},
});
const template = (overrides: Record<string, unknown> = {}) => ({
  name: 'Welcome',
  subject: 'Welcome to {{companyName}}, {{accountHolderName}}',
  htmlContent: '<p onclick="steal()">Hello {{accountHolderName}}, your username is {{username}}.</p><script>alert(1)</script><a href="javascript:alert(1)">x</a>',
  brandLogoUrl: '',
  isDefault: false,
  isActive: true,
  ...overrides,
});
const someId = '0190a0b0-0000-7000-8000-000000000000';

async function proUser(): Promise<ApiUser> {
  const user = await apiUser();
  await upgradeToPro(user);
  return user;
}

describe('Pro-only endpoints refuse a free user', () => {
  it('answers 403 with the upgrade message to every write of integrations and templates, whatever the body', async () => {
    const user = await apiUser();
    const refused = [
      user.call('/api/integrations', { body: okta('https://acme.okta.com') }),
      user.call('/api/integrations', { body: {} }),
      user.call(`/api/integrations/${someId}/test`, { method: 'POST' }),
      user.call('/api/email-templates', { body: template() }),
      user.call('/api/email-templates', { body: {} }),
      user.call(`/api/email-templates/${someId}`, { method: 'PUT', body: template() }),
    ];
    // Not even JSON: the plan is the answer, not the body.
    for (const path of ['/api/integrations', '/api/email-templates']) {
      refused.push(fetch(`${inject('stack').urls.app}${path}`, { method: 'POST', headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' }, body: '{bad' }));
    }
    for (const response of await Promise.all(refused)) {
      expect(response.status).toBe(403);
      const body = (await response.json()) as { message: string };
      expect([upgradeMessage('API Integrations'), upgradeMessage('Email Templates')]).toContain(body.message);
    }
    // Reading is not a Pro feature: the pages list what there is (nothing).
    expect(await user.json('/api/integrations')).toEqual([]);
    expect(await user.json('/api/email-templates')).toEqual([]);
    expect((await user.json<unknown[]>('/api/integration-templates')).length).toBeGreaterThanOrEqual(5);
  });
});

describe('API integrations', () => {
  it('stores credentials encrypted and never returns them; the test calls the platform with them', async () => {
    const user = await proUser();
    const origin = inject('stack').fakePlatformOrigin;
    const created = await user.call('/api/integrations', { body: okta(origin) });
    expect(created.status).toBe(201);
    const integration = (await created.json()) as Integration;
    expect(integration).toMatchObject({ name: 'Okta production', platform: 'okta', authFieldsSet: ['apiKey'], lastTestStatus: 'pending', isActive: true });
    expect(JSON.stringify(integration)).not.toContain('okta-secret-1');
    expect(JSON.stringify(await user.json('/api/integrations'))).not.toContain('okta-secret-1');

    const { Items = [] } = await testDb().send(
      new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': `USER#${user.sub}`, ':sk': 'INTEGRATION#' } }),
    );
    expect(Items).toHaveLength(1);
    expect(JSON.stringify(Items[0])).not.toContain('okta-secret-1');
    expect(Items[0]!.authConfigEncrypted).toMatch(/^v2\.k1\./);

    seen.length = 0;
    const tested = await user.json<Integration>(`/api/integrations/${integration.id}/test`, { method: 'POST' });
    expect(tested).toMatchObject({ lastTestStatus: 'success', lastTestMessage: 'Connected (HTTP 200 OK)' });
    expect(tested.lastTestDate).toBeTruthy();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/v1/users?limit=1' });
    expect(seen[0]!.headers.authorization).toBe('SSWS okta-secret-1');

    const wrong = await user.json<Integration>('/api/integrations', { body: okta(origin, 'wrong-key') });
    const failed = await user.json<Integration>(`/api/integrations/${wrong.id}/test`, { method: 'POST' });
    expect(failed).toMatchObject({ lastTestStatus: 'failed', lastTestMessage: 'HTTP 401 Unauthorized: the credentials were refused.' });
    expect((await user.json<Integration[]>('/api/integrations')).map((i) => i.id)).toEqual([wrong.id, integration.id]);
  });

  it('gets an OAuth token with the client credentials, then calls with it', async () => {
    const user = await proUser();
    const origin = inject('stack').fakePlatformOrigin;
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'Graph', platform: 'custom', baseUrl: `${origin}/v1`, authMethod: 'oauth2', authConfig: { clientId: 'app-1', clientSecret: 'client-secret-1', tokenUrl: `${origin}/oauth/token` }, apiConfig: { testPath: '/me' } },
    });
    expect(integration.authFieldsSet).toEqual(['clientId', 'clientSecret', 'tokenUrl']);
    seen.length = 0;
    const tested = await user.json<Integration>(`/api/integrations/${integration.id}/test`, { method: 'POST' });
    expect(tested.lastTestStatus).toBe('success');
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /oauth/token', 'GET /v1/me']);
    expect(new URLSearchParams(seen[0]!.body).get('grant_type')).toBe('client_credentials');
    expect(seen[1]!.headers.authorization).toBe('Bearer issued-token');
  });

  it('refuses base URLs that point inside (loopback, private, metadata, plain http) with a clear 400', async () => {
    const user = await proUser();
    for (const baseUrl of ['https://127.0.0.1/', 'https://10.0.0.8/api', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/', 'https://localhost:8443', 'http://acme.okta.com', 'https://[::ffff:127.0.0.1]/']) {
      const response = await user.call('/api/integrations', { body: okta(baseUrl) });
      expect(response.status, baseUrl).toBe(400);
      expect(((await response.json()) as { message: string }).message).toMatch(/^Refused: /);
    }
    const bad = await user.call('/api/integrations', { body: { name: '', platform: 'myspace', baseUrl: 'not a url', authMethod: 'api_key', authConfig: {} } });
    expect(bad.status).toBe(400);
    const details = ((await bad.json()) as { details: { path: string; message: string }[] }).details;
    expect(details.map((d) => d.message)).toEqual(expect.arrayContaining(['Name is required', 'Choose a platform', 'Base URL must be a valid http(s) URL']));
  });

  it('drops unknown API settings and refuses header names that frame the request, never a 500', async () => {
    const user = await proUser();
    const kept = await user.json<Integration>('/api/integrations', { body: { ...okta('https://acme.okta.com'), apiConfig: { testPath: '/api/v1/users?limit=1', huge: 1e300, ['k'.repeat(5000)]: 1 } } });
    expect(kept.apiConfig).toEqual({ testPath: '/api/v1/users?limit=1' });
    for (const headerName of ['Host', 'content-length', 'Transfer-Encoding', 'X Bad', 'proxy-authorization']) {
      const response = await user.call('/api/integrations', { body: { ...okta('https://acme.okta.com'), authConfig: { apiKey: 'k', headerName } } });
      expect(response.status, headerName).toBe(400);
    }
    const absolute = await user.call('/api/integrations', { body: { ...okta('https://acme.okta.com'), apiConfig: { testPath: 'https://169.254.169.254/' } } });
    expect(absolute.status).toBe(400);
  });

  it("answers 404 to another user's integration and deletes only one's own", async () => {
    const owner = await proUser();
    const other = await proUser();
    const integration = await owner.json<Integration>('/api/integrations', { body: okta('https://acme.okta.com') });
    expect((await other.call(`/api/integrations/${integration.id}/test`, { method: 'POST' })).status).toBe(404);
    expect((await other.call(`/api/integrations/${integration.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await other.json('/api/integrations')).toEqual([]);
    expect((await owner.call(`/api/integrations/${integration.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await owner.call(`/api/integrations/${integration.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await owner.call('/api/integrations/not-an-id', { method: 'DELETE' })).status).toBe(404);
  });

  it('keeps a lapsed Pro user’s integrations listed and deletable, but refuses new ones and tests', async () => {
    const user = await proUser();
    const integration = await user.json<Integration>('/api/integrations', { body: okta('https://acme.okta.com') });
    const { portalUrl } = await user.json<{ portalUrl: string }>('/api/subscription/create-portal', { method: 'POST' });
    expect((await fetch(`${portalUrl}/fail-payment`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await user.call(`/api/integrations/${integration.id}/test`, { method: 'POST' })).status).toBe(403);
    expect((await user.call('/api/integrations', { body: okta('https://acme.okta.com') })).status).toBe(403);
    expect((await user.json<Integration[]>('/api/integrations')).map((i) => i.id)).toEqual([integration.id]);
    expect((await user.call(`/api/integrations/${integration.id}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('E-mail templates', () => {
  it('stores sanitised HTML, keeps one default, and updates and deletes only its own', async () => {
    const user = await proUser();
    const created = await user.call('/api/email-templates', { body: template({ isDefault: true }) });
    expect(created.status).toBe(201);
    const first = (await created.json()) as EmailTemplate;
    expect(first.htmlContent).toBe('<p>Hello {{accountHolderName}}, your username is {{username}}.</p><a rel="noopener noreferrer">x</a>');
    expect(first.variables).toEqual(['companyName', 'accountHolderName', 'username']);
    expect(first.isDefault).toBe(true);

    const second = await user.json<EmailTemplate>('/api/email-templates', { body: template({ name: 'Reminder', isDefault: true }) });
    let list = await user.json<EmailTemplate[]>('/api/email-templates');
    expect(list.map((t) => [t.name, t.isDefault])).toEqual([
      ['Reminder', true],
      ['Welcome', false],
    ]);

    const updated = await user.json<EmailTemplate>(`/api/email-templates/${first.id}`, { method: 'PUT', body: template({ name: 'Welcome v2', isDefault: true, isActive: false }) });
    expect(updated).toMatchObject({ id: first.id, name: 'Welcome v2', isDefault: true, isActive: false, createdAt: first.createdAt });
    list = await user.json<EmailTemplate[]>('/api/email-templates');
    expect(list.filter((t) => t.isDefault).map((t) => t.id)).toEqual([first.id]);

    const other = await proUser();
    expect((await other.call(`/api/email-templates/${first.id}`, { method: 'PUT', body: template() })).status).toBe(404);
    expect((await other.call(`/api/email-templates/${first.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await user.call(`/api/email-templates/${second.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await user.json<EmailTemplate[]>('/api/email-templates')).map((t) => t.id)).toEqual([first.id]);
  });

  it('keeps exactly one default when several saves race to be the default', async () => {
    const user = await proUser();
    const created: EmailTemplate[] = [];
    for (let i = 0; i < 5; i++) created.push(await user.json<EmailTemplate>('/api/email-templates', { body: template({ name: `T${i}`, isDefault: i === 0 }) }));
    const responses = await Promise.all(
      created.map((t) => user.call(`/api/email-templates/${t.id}`, { method: 'PUT', body: template({ name: t.name, isDefault: true }) })),
    );
    // Each save either won its turn or was told to try again (409), never a 500.
    for (const response of responses) expect([200, 409]).toContain(response.status);
    const defaults = (await user.json<EmailTemplate[]>('/api/email-templates')).filter((t) => t.isDefault);
    expect(defaults).toHaveLength(1);
    // Deleting the default leaves none; the next default save works.
    expect((await user.call(`/api/email-templates/${defaults[0]!.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await user.json<EmailTemplate[]>('/api/email-templates')).filter((t) => t.isDefault)).toHaveLength(0);
    const next = created.find((t) => t.id !== defaults[0]!.id)!;
    await user.json(`/api/email-templates/${next.id}`, { method: 'PUT', body: template({ name: next.name, isDefault: true }) });
    expect((await user.json<EmailTemplate[]>('/api/email-templates')).filter((t) => t.isDefault).map((t) => t.id)).toEqual([next.id]);
  });

  it('refuses what sanitising would turn into something else, variables in addresses, and a template too large to list', async () => {
    const user = await proUser();
    const joined = await user.call('/api/email-templates', { body: template({ htmlContent: '<p>{<script>x</script>{evil}}</p>' }) });
    expect(joined.status).toBe(400);
    expect(((await joined.json()) as { message: string }).message).toMatch(/^Unknown variable \{\{evil\}\}/);
    const link = await user.call('/api/email-templates', { body: template({ htmlContent: '<a href="{{username}}">me</a>' }) });
    expect(link.status).toBe(400);
    expect(((await link.json()) as { message: string }).message).toContain('except href="{{credentialLink}}" and href="{{loginUrl}}"');
    const big = await user.call('/api/email-templates', { body: template({ htmlContent: `<p>${'&'.repeat(20_000)}</p>` }) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toMatch(/at most 55 KB/);
    expect(await user.json('/api/email-templates')).toEqual([]);
  });

  it("keeps a copy of either built-in template ('Copy and edit'), the sign-in address link included", async () => {
    const user = await proUser();
    for (const delivery of ['password', 'link'] as const) {
      const source = builtInTemplate(delivery);
      const copy = await user.call('/api/email-templates', { body: template({ name: `Copy ${delivery}`, subject: source.subject, htmlContent: source.htmlContent, isDefault: false }) });
      expect(copy.status).toBe(201);
      const stored = (await copy.json()) as EmailTemplate;
      expect(stored.htmlContent).toContain('href="{{loginUrl}}"');
      expect(stored.variables).toContain('loginUrl');
    }
  });

  it('refuses unknown variables, a blank form, a non-https logo and HTML that is nothing but script', async () => {
    const user = await proUser();
    const unknown = await user.call('/api/email-templates', { body: template({ htmlContent: '<p>Hi {{fristName}}</p>' }) });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/^Unknown variable \{\{fristName\}\}/);
    const blank = await user.call('/api/email-templates', { body: { name: ' ', subject: '', htmlContent: '' } });
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { details: { message: string }[] }).details.map((d) => d.message)).toEqual(['Template name is required', 'Subject is required', 'HTML content is required']);
    expect((await user.call('/api/email-templates', { body: template({ brandLogoUrl: 'javascript:alert(1)' }) })).status).toBe(400);
    const scriptOnly = await user.call('/api/email-templates', { body: template({ htmlContent: '<script>alert(1)</script>' }) });
    expect(scriptOnly.status).toBe(400);
    expect(await user.json('/api/email-templates')).toEqual([]);
  });
});
