import { describe, expect, it } from 'vitest';
import { updateIntegrationSchema, type Integration, type IntegrationTemplate } from '../../shared/schemas/integrations';
import { compactSettings, integrationFormDefaults, optionalChoice, optionalNumber, sameOrigin, templateFor, toCreateRequest, withCompactSettings } from '../../frontend/src/features/integrations/lib/integration-form';

const stored: Integration = {
  id: 'int-1',
  name: 'Directory',
  description: 'HR directory',
  platform: 'custom',
  apiType: 'REST',
  baseUrl: 'https://scim.example.com/scim/v2',
  authMethod: 'bearer_token',
  authFieldsSet: ['token'],
  apiConfig: { testPath: '/ServiceProviderConfig', provisioning: { requestsPerMinute: 120, undo: 'delete' } },
  isActive: true,
  lastTestStatus: 'success',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const template = (over: Partial<IntegrationTemplate>): IntegrationTemplate => ({
  id: 'custom',
  platform: 'custom',
  name: 'Custom API',
  description: '',
  apiType: 'REST',
  authMethod: 'bearer_token',
  baseUrlExample: 'https://api.example.com',
  testPath: '/',
  isBuiltIn: true,
  ...over,
});

describe('the integration form on edit', () => {
  it('starts from the stored fields and settings, never a credential', () => {
    expect(integrationFormDefaults(undefined, stored)).toEqual({
      name: 'Directory',
      description: 'HR directory',
      platform: 'custom',
      apiType: 'REST',
      baseUrl: 'https://scim.example.com/scim/v2',
      authMethod: 'bearer_token',
      authConfig: {},
      apiConfig: { testPath: '/ServiceProviderConfig', provisioning: { requestsPerMinute: 120, undo: 'delete' } },
    });
  });

  it('sends a credential left empty as absent (the server keeps the stored one) and passes the update schema', () => {
    const values = updateIntegrationSchema.parse({ ...integrationFormDefaults(undefined, stored), name: 'Directory 2', authConfig: { token: '' } });
    const request = toCreateRequest(values);
    expect(request.authConfig).toEqual({});
    expect(request.name).toBe('Directory 2');
    expect(request.apiConfig).toEqual({ testPath: '/ServiceProviderConfig', provisioning: { requestsPerMinute: 120, undo: 'delete' } });
  });

  it('leaves out empty pacing, so the platform defaults apply, and refuses a pace that is not a whole number', () => {
    const values = updateIntegrationSchema.parse({ ...integrationFormDefaults(undefined, stored), apiConfig: { testPath: '', provisioning: { requestsPerMinute: optionalNumber(''), concurrency: optionalNumber('4') } } });
    expect(toCreateRequest(values).apiConfig).toEqual({ provisioning: { concurrency: 4 } });
    const empty = updateIntegrationSchema.parse({ ...integrationFormDefaults(undefined, stored), apiConfig: { provisioning: { requestsPerMinute: optionalNumber('') } } });
    expect(toCreateRequest(empty).apiConfig).toEqual({});
    const refused = updateIntegrationSchema.safeParse({ ...integrationFormDefaults(undefined, stored), apiConfig: { provisioning: { requestsPerMinute: optionalNumber('2.5') } } });
    expect(refused.error?.issues[0]?.message).toBe('Requests per minute must be a whole number');
  });
});

describe('stored secrets', () => {
  it('go to the same origin only: a new host needs them typed again', () => {
    expect(sameOrigin('https://scim.example.com/scim/v2', 'https://scim.example.com/other')).toBe(true);
    expect(sameOrigin('https://scim.example.com/scim/v2', 'https://evil.example.net/scim/v2')).toBe(false);
    expect(sameOrigin('https://scim.example.com', 'http://scim.example.com')).toBe(false);
    expect(sameOrigin('not a url', 'https://scim.example.com')).toBe(false);
  });
});

describe('platform settings of provisioning', () => {
  it("keep Okta's login choice and Entra ID's verified domain (lower case), and leave a blank one out", () => {
    const okta = updateIntegrationSchema.parse({ ...integrationFormDefaults(undefined, { ...stored, platform: 'okta' }), apiConfig: { provisioning: { oktaLogin: optionalChoice('email') } } });
    expect(toCreateRequest(okta).apiConfig).toEqual({ provisioning: { oktaLogin: 'email' } });
    const entra = updateIntegrationSchema.parse({ ...integrationFormDefaults(undefined, { ...stored, platform: 'active_directory' }), apiConfig: { provisioning: { entraDomain: optionalChoice(' Contoso.COM ') } } });
    expect(toCreateRequest(entra).apiConfig).toEqual({ provisioning: { entraDomain: 'contoso.com' } });
    const blank = updateIntegrationSchema.parse({ ...integrationFormDefaults(undefined, { ...stored, platform: 'active_directory' }), apiConfig: { provisioning: { entraDomain: optionalChoice('') } } });
    expect(toCreateRequest(blank).apiConfig).toEqual({});
  });
});

describe("a platform's group of settings (Salesforce, LDAP)", () => {
  const salesforce = { ...integrationFormDefaults(undefined, { ...stored, platform: 'salesforce' }) };
  const blank = { usernameDomain: undefined, profileId: undefined, timeZoneSidKey: undefined };

  it('left wholly empty is left out and not checked', () => {
    const values = withCompactSettings({ ...salesforce, apiConfig: { testPath: '', provisioning: { salesforce: blank } } });
    const parsed = updateIntegrationSchema.parse(values);
    expect(toCreateRequest(parsed).apiConfig).toEqual({});
  });

  it('begun is checked whole, with the shared messages', () => {
    const values = withCompactSettings({ ...salesforce, apiConfig: { provisioning: { salesforce: { ...blank, usernameDomain: 'Example.com' } } } });
    const result = updateIntegrationSchema.safeParse(values);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['apiConfig.provisioning.salesforce.profileId']);
  });

  it('complete is sent with its values', () => {
    const values = withCompactSettings({ ...salesforce, apiConfig: { provisioning: { salesforce: { ...blank, usernameDomain: 'Example.com', profileId: '00e000000000001' } } } });
    expect(toCreateRequest(updateIntegrationSchema.parse(values)).apiConfig).toEqual({ provisioning: { salesforce: { usernameDomain: 'example.com', profileId: '00e000000000001' } } });
    expect(compactSettings({ a: '', b: { c: undefined } })).toBeUndefined();
  });

  it('an ldap:// address is the same server by protocol and host (it has no origin)', () => {
    expect(sameOrigin('ldaps://dc1.corp.example.com:636', 'ldaps://DC1.corp.example.com:636')).toBe(true);
    expect(sameOrigin('ldaps://dc1.corp.example.com:636', 'ldaps://dc2.corp.example.com:636')).toBe(false);
  });
});

describe('quick setup', () => {
  const ready = template({ id: 'local-scim', name: 'Local SCIM directory', ready: { baseUrl: 'http://127.0.0.1:9250/scim/v2', authConfig: { token: 't0k' } } });

  it('fills every field from a ready template, so it can be created as is', () => {
    expect(integrationFormDefaults(ready)).toMatchObject({ name: 'Local SCIM directory', platform: 'custom', baseUrl: 'http://127.0.0.1:9250/scim/v2', authConfig: { token: 't0k' } });
    expect(integrationFormDefaults(template({}))).toMatchObject({ name: '', baseUrl: '', authConfig: {} });
  });

  it("never takes a ready template's one server as a platform's example", () => {
    expect(templateFor([ready, template({})], 'custom')?.id).toBe('custom');
    expect(templateFor([ready], 'custom')).toBeUndefined();
  });
});
