import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearedAttributes,
  defaultAttributeMapping,
  mapAttributes,
  mappingOf,
  mappingProblems,
  mappingTargetOf,
  mappingTargets,
  SCIM_ENTERPRISE_USER,
} from '../../shared/schemas/attribute-mapping';
import { createIntegrationSchema } from '../../shared/schemas/integrations';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import { adapterFactory, withMappedAttributes } from '../../functions/provisioning/adapters';
import { scimChanges, scimUser } from '../../functions/provisioning/adapters/scim';
import { oktaProfileChanges, oktaUser } from '../../functions/provisioning/adapters/okta';
import { graphChanges, graphUser } from '../../functions/provisioning/adapters/microsoft-graph';
import { ldapEntryOf } from '../../functions/provisioning/adapters/ldap';
import { attributePreview } from '../../functions/integrations/attribute-preview';
import { ValidationError } from '../../functions/core/errors';
import type { ProvisioningAdapter, ProvisioningPerson } from '../../functions/provisioning/provisioning-port';
import { person } from '../support/provisioning-people';
import { startFakeOkta, type FakeOkta } from '../support/fake-okta';
import { startFakeGraph, type FakeGraph } from '../support/fake-graph';
import { startFakeSalesforce, type FakeSalesforce } from '../support/fake-salesforce';

const ATTRIBUTES = { department: 'Sales', title: 'Rep', managerEmail: 'boss@example.com', phone: '+1 555 0100', employeeId: 'E-1', costCenter: 'C1' };
const changes = { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com' };

describe('mapping extra columns to a platform', () => {
  it('has a default per platform that names only attributes the platform takes', () => {
    for (const target of mappingTargets) expect(mappingProblems(target, defaultAttributeMapping[target]), target).toEqual([]);
    expect(mapAttributes('scim', defaultAttributeMapping.scim, ATTRIBUTES)).toEqual({ 'enterprise.department': 'Sales', title: 'Rep', 'phoneNumbers.work': '+1 555 0100', 'enterprise.employeeNumber': 'E-1' });
    expect(mapAttributes('okta', defaultAttributeMapping.okta, ATTRIBUTES)).toEqual({ department: 'Sales', title: 'Rep', mobilePhone: '+1 555 0100', employeeNumber: 'E-1', managerId: 'boss@example.com' });
    expect(mapAttributes('graph', defaultAttributeMapping.graph, ATTRIBUTES)).toEqual({ department: 'Sales', jobTitle: 'Rep', mobilePhone: '+1 555 0100', employeeId: 'E-1' });
    expect(mapAttributes('openldap', defaultAttributeMapping.openldap, ATTRIBUTES)).toEqual({ departmentNumber: 'Sales', title: 'Rep', telephoneNumber: '+1 555 0100', employeeNumber: 'E-1' });
    expect(mapAttributes('active_directory_ldap', defaultAttributeMapping.active_directory_ldap, ATTRIBUTES)).toEqual({ department: 'Sales', title: 'Rep', telephoneNumber: '+1 555 0100', employeeID: 'E-1' });
    expect(mapAttributes('salesforce', defaultAttributeMapping.salesforce, ATTRIBUTES)).toEqual({ Department: 'Sales', Title: 'Rep', Phone: '+1 555 0100', EmployeeNumber: 'E-1' });
  });

  it('takes a mapping of the user: custom attributes where the platform has them, refusals in words otherwise', () => {
    expect(mapAttributes('salesforce', { costCenter: 'Cost_Center__c', department: '' }, ATTRIBUTES)).toEqual({ Cost_Center__c: 'C1' });
    expect(mappingProblems('scim', { costCenter: 'costCentre' })).toEqual(['Cost Center: "costCentre" is not an attribute this platform takes']);
    expect(mappingProblems('graph', { title: 'jobTitle', department: 'jobTitle' })).toEqual(['Department and Title both go to jobTitle: map each attribute once']);
    expect(mappingProblems('okta', { 'not a key': 'title' })).toEqual(['"not a key" is not a column name (letters and digits)']);
    expect(mappingOf('okta', undefined)).toBe(defaultAttributeMapping.okta);
    expect(mappingOf('okta', {})).toEqual({});
    expect(clearedAttributes('okta', defaultAttributeMapping.okta, ['department', 'costCenter'])).toEqual(['department']);
  });

  it('knows where an integration sends them', () => {
    expect(mappingTargetOf({ platform: 'custom', baseUrl: 'https://scim.example.com' })).toBe('scim');
    expect(mappingTargetOf({ platform: 'active_directory', baseUrl: 'https://graph.microsoft.com/v1.0' })).toBe('graph');
    expect(mappingTargetOf({ platform: 'active_directory', baseUrl: 'ldaps://dc1.example.com' })).toBe('openldap');
    expect(mappingTargetOf({ platform: 'active_directory', baseUrl: 'ldaps://dc1.example.com', apiConfig: { provisioning: { ldap: { directory: 'active_directory' } } } })).toBe('active_directory_ldap');
    expect(mappingTargetOf({ platform: 'workday', baseUrl: 'https://wd.example.com' })).toBeUndefined();
  });

  it('is checked with the integration: a mapping the platform cannot take is a 400 with the reason', () => {
    const base = { name: 'Okta', platform: 'okta', baseUrl: 'https://acme.okta.com', authMethod: 'api_key', authConfig: { apiKey: 'k' } };
    expect(createIntegrationSchema.safeParse({ ...base, apiConfig: { provisioning: { attributeMapping: { costCenter: 'Cost_Center' } } } }).success).toBe(true);
    const scim = createIntegrationSchema.safeParse({ ...base, platform: 'custom', apiConfig: { provisioning: { attributeMapping: { costCenter: 'costCentre' } } } });
    expect(scim.error?.issues.map((i) => i.message)).toEqual(['Cost Center: "costCentre" is not an attribute this platform takes']);
  });
});

describe("each platform's body builders place the mapped values where the platform documents them", () => {
  const mapped = (target: Parameters<typeof mapAttributes>[0]): ProvisioningPerson => ({ ...person(1), platformAttributes: mapAttributes(target, { ...defaultAttributeMapping[target], ...(target === 'scim' ? { managerEmail: 'enterprise.manager', costCenter: 'enterprise.costCenter' } : {}) }, ATTRIBUTES) });

  it('SCIM: core title, phoneNumbers, the enterprise extension (RFC 7643 4.3) with its schema URN; PATCH by path, remove when cleared', () => {
    const body = scimUser(mapped('scim'));
    expect(body.schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User', SCIM_ENTERPRISE_USER]);
    expect(body).toMatchObject({ title: 'Rep', phoneNumbers: [{ value: '+1 555 0100', type: 'work' }], [SCIM_ENTERPRISE_USER]: { department: 'Sales', employeeNumber: 'E-1', costCenter: 'C1', manager: { value: 'boss@example.com' } } });
    // Without mapped values: the body as before (core schema only).
    expect(scimUser(person(1)).schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User']);
    const patch = scimChanges({ ...changes, platformAttributes: { title: 'Lead', 'enterprise.department': 'Ops' }, clearedPlatformAttributes: ['phoneNumbers.work', 'enterprise.employeeNumber'] });
    expect(patch.Operations.slice(5)).toEqual([
      { op: 'replace', path: 'title', value: 'Lead' },
      { op: 'replace', path: `${SCIM_ENTERPRISE_USER}:department`, value: 'Ops' },
      { op: 'remove', path: 'phoneNumbers' },
      { op: 'remove', path: `${SCIM_ENTERPRISE_USER}:employeeNumber` },
    ]);
  });

  it('Okta: profile properties by name; a partial update sets them and clears with null; the login and names stay ours', () => {
    expect(oktaUser({ ...mapped('okta'), platformAttributes: { ...mapped('okta').platformAttributes, login: 'evil' } }, {}).profile).toEqual({
      department: 'Sales', title: 'Rep', mobilePhone: '+1 555 0100', employeeNumber: 'E-1', managerId: 'boss@example.com', login: 'janedoe2026-1', email: 'jane.doe1@example.com', firstName: 'Jane', lastName: 'Doe1',
    });
    expect(oktaProfileChanges({ ...changes, platformAttributes: { title: 'Lead' }, clearedPlatformAttributes: ['department'] }, {}).profile).toEqual({ department: null, title: 'Lead', firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com' });
  });

  it('Graph: user properties (jobTitle, department, employeeId, mobilePhone; businessPhones a list); PATCH clears with null', () => {
    expect(graphUser({ ...mapped('graph'), platformAttributes: { ...mapped('graph').platformAttributes, businessPhones: '+1 555 0199' } }, { domain: 'contoso.com' })).toMatchObject({ department: 'Sales', jobTitle: 'Rep', employeeId: 'E-1', mobilePhone: '+1 555 0100', businessPhones: ['+1 555 0199'], userPrincipalName: 'janedoe2026-1@contoso.com' });
    expect(graphChanges({ ...changes, platformAttributes: { jobTitle: 'Lead' }, clearedPlatformAttributes: ['department', 'businessPhones'] }, { domain: 'contoso.com' })).toMatchObject({ department: null, businessPhones: [], jobTitle: 'Lead', givenName: 'Jane' });
  });

  it('LDAP: attributes of the new entry, inetOrgPerson or Active Directory', () => {
    const openldap = ldapEntryOf(mapped('openldap'), { baseDn: 'ou=people,dc=example,dc=com' }, false);
    expect('attributes' in openldap && Object.fromEntries(openldap.attributes.map((a) => [a.type, a.values]))).toMatchObject({ departmentNumber: ['Sales'], title: ['Rep'], telephoneNumber: ['+1 555 0100'], employeeNumber: ['E-1'] });
    const ad = ldapEntryOf({ ...mapped('active_directory_ldap'), username: 'jdoe' }, { baseDn: 'OU=People,DC=corp,DC=example', directory: 'active_directory' }, true);
    expect('attributes' in ad && Object.fromEntries(ad.attributes.map((a) => [a.type, a.values]))).toMatchObject({ department: ['Sales'], employeeID: ['E-1'], telephoneNumber: ['+1 555 0100'] });
  });
});

describe('contract servers get the documented bodies through the adapter factory (the mapping applied in one place)', () => {
  let okta: FakeOkta;
  let graph: FakeGraph;
  let salesforce: FakeSalesforce;
  beforeAll(async () => {
    [okta, graph, salesforce] = await Promise.all([startFakeOkta(), startFakeGraph(), startFakeSalesforce()]);
  });
  afterAll(async () => {
    await Promise.all([okta.stop(), graph.stop(), salesforce.stop()]);
  });

  const record = (platform: IntegrationRecord['platform'], baseUrl: string, provisioning: Record<string, unknown>, authMethod: IntegrationRecord['authMethod']): IntegrationRecord =>
    ({ id: 'int-1', userId: 'user-1', name: 'x', description: '', platform, apiType: 'REST', baseUrl, authMethod, authConfigEncrypted: '', authFieldsSet: [], apiConfig: { provisioning }, isActive: true, createdAt: '', updatedAt: '' }) as unknown as IntegrationRecord;
  const withAttributes = { ...person(1), attributes: ATTRIBUTES };
  const run = async (adapter: ProvisioningAdapter, act: (a: ProvisioningAdapter) => Promise<unknown>) => {
    try {
      return await act(adapter);
    } finally {
      adapter.close();
    }
  };

  it('Okta: POST /api/v1/users with the mapped profile; the update POSTs the changed profile', async () => {
    const factory = adapterFactory({ allowedOrigins: [okta.origin] });
    const integration = record('okta', okta.origin, {}, 'api_key');
    const [created] = (await run(factory(integration, { apiKey: okta.token }), (a) => a.create([withAttributes]))) as { externalId: string }[];
    expect(okta.received.at(-1)!.body).toMatchObject({ profile: { department: 'Sales', title: 'Rep', employeeNumber: 'E-1', mobilePhone: '+1 555 0100', managerId: 'boss@example.com' } });
    expect(okta.users.get(created!.externalId)!.profile).toMatchObject({ department: 'Sales' });
    await run(factory(integration, { apiKey: okta.token }), (a) => a.update(created!.externalId, { ...changes, attributes: { title: 'Lead' }, removedAttributes: ['department'] }));
    expect(okta.received.at(-1)!.body).toMatchObject({ profile: { title: 'Lead', department: null } });
  });

  it('Graph: POST /users with department, jobTitle, employeeId and mobilePhone; a mapping of the integration replaces the default', async () => {
    const factory = adapterFactory({ allowedOrigins: [graph.origin] });
    const credentials = { clientId: graph.oauth.clientId, clientSecret: graph.oauth.clientSecret, tokenUrl: graph.oauth.tokenUrl };
    await run(factory(record('active_directory', `${graph.origin}/v1.0`, { entraDomain: graph.domain }, 'oauth2'), credentials), (a) => a.create([withAttributes]));
    expect(graph.received.at(-1)).toMatchObject({ method: 'POST', url: '/v1.0/users', body: { department: 'Sales', jobTitle: 'Rep', employeeId: 'E-1', mobilePhone: '+1 555 0100' } });
    await run(factory(record('active_directory', `${graph.origin}/v1.0`, { entraDomain: graph.domain, attributeMapping: { costCenter: 'officeLocation' } }, 'oauth2'), credentials), (a) => a.create([{ ...person(2), attributes: ATTRIBUTES }]));
    const body = graph.received.at(-1)!.body as Record<string, unknown>;
    expect(body.officeLocation).toBe('C1');
    expect(body).not.toHaveProperty('department');
  });

  it('Salesforce: the composite create carries Department, Title, Phone and EmployeeNumber', async () => {
    const factory = adapterFactory({ allowedOrigins: [salesforce.origin] });
    const integration = record('salesforce', salesforce.origin, { salesforce: { usernameDomain: 'acme.example', profileId: '00e5g000001AbCdEFG' } }, 'oauth2');
    await run(factory(integration, { clientId: 'connected-app', clientSecret: 'right-secret' }), (a) => a.create([withAttributes]));
    const create = salesforce.state.received.find((r) => r.method === 'POST' && r.path.endsWith('/composite/sobjects'));
    expect((create!.body as { records: Record<string, unknown>[] }).records[0]).toMatchObject({ Department: 'Sales', Title: 'Rep', Phone: '+1 555 0100', EmployeeNumber: 'E-1' });
  });

  it("Graph's preview: a hire date mapped to employeeHireDate shows as a DateTimeOffset; an employeeId Graph would refuse is a 400 in words, not a request", async () => {
    const integration = record('active_directory', `${graph.origin}/v1.0`, { entraDomain: graph.domain, attributeMapping: { employeeId: 'employeeId', hireDate: 'employeeHireDate' } }, 'oauth2');
    const preview = attributePreview({ integration: async () => integration });
    const calls = graph.received.length;
    const ada = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };
    const shown = await preview('user-1', 'int-1', { person: { ...ada, attributes: { employeeId: 'E-1815', hireDate: '2026-03-01' } } });
    expect(shown.request).toMatchObject({ method: 'POST', path: '/users', body: { employeeId: 'E-1815', employeeHireDate: '2026-03-01T00:00:00Z' } });
    const refused = preview('user-1', 'int-1', { person: { ...ada, attributes: { employeeId: 'E-18151815181518151815' } } });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toThrow('employeeId "E-18151815181518151815" has 22 characters; Microsoft Entra ID takes at most 16.');
    // The preview sends nothing.
    expect(graph.received.length).toBe(calls);
  });

  it('an integration without a mapping target (none today besides Workday) keeps the adapter as it is', () => {
    const adapter = { create: async () => [] } as unknown as ProvisioningAdapter;
    expect(withMappedAttributes({ platform: 'workday', baseUrl: 'https://x.example', apiConfig: {} }, adapter)).toBe(adapter);
  });
});
