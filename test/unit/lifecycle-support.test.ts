import { describe, expect, it } from 'vitest';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import { adapterFactory } from '../../functions/provisioning/adapters';
import { createIntegrationSchema, provisioningSettingsSchema } from '../../shared/schemas/integrations';
import { ACTIVE_DIRECTORY_LIFECYCLE, GRAPH_LIFECYCLE, lifecycleSupport, oktaLifecycle, openLdapLifecycle, SALESFORCE_LIFECYCLE, SCIM_LIFECYCLE } from '../../shared/schemas/lifecycle';

/**
 * What the web app can say before the user tries Edit, Deactivate / Reactivate or Delete on an
 * account's platform: shared/schemas/lifecycle.ts, from the integration as the API returns it;
 * the adapters answer the same words in capabilities().lifecycle.
 */
describe('lifecycleSupport: per platform and integration settings', () => {
  it('names what each platform does, including what Salesforce cannot (it keeps users)', () => {
    expect(lifecycleSupport({ platform: 'custom', apiType: 'REST', baseUrl: 'https://scim.example.com/scim/v2' })).toEqual(SCIM_LIFECYCLE);
    expect(lifecycleSupport({ platform: 'okta', baseUrl: 'https://acme.okta.com' })).toEqual(oktaLifecycle({}));
    expect(lifecycleSupport({ platform: 'active_directory', baseUrl: 'https://graph.microsoft.com/v1.0', apiConfig: { provisioning: { entraDomain: 'contoso.com' } } })).toEqual(GRAPH_LIFECYCLE);
    expect(lifecycleSupport({ platform: 'active_directory', baseUrl: 'ldaps://dc1.corp.example.com', apiConfig: { provisioning: { ldap: { baseDn: 'ou=People,dc=corp', directory: 'active_directory' } } } })).toEqual(
      ACTIVE_DIRECTORY_LIFECYCLE,
    );
    // OpenLDAP: whether it can lock depends on the directory (ppolicy): said before, refined by the adapter.
    expect(lifecycleSupport({ platform: 'active_directory', baseUrl: 'ldap://ldap.example.com', apiConfig: { provisioning: { ldap: { baseDn: 'ou=People,dc=example' } } } }).setActive).toEqual({
      supported: true,
      how: expect.stringContaining('a directory without ppolicy cannot, and says so'),
    });
    expect(openLdapLifecycle(false).setActive.supported).toBe(false);
    const salesforce = lifecycleSupport({ platform: 'salesforce', baseUrl: 'https://acme.my.salesforce.com', apiConfig: { provisioning: { salesforce: { usernameDomain: 'acme.example', profileId: '00e5g000001AbCdEFG' } } } });
    expect(salesforce).toEqual(SALESFORCE_LIFECYCLE);
    expect(salesforce.remove).toEqual({ supported: true, how: 'Salesforce keeps users: Delete deactivates them there (IsActive false).' });
  });

  it('follows the Okta settings: suspend or deactivate, and a login that is the e-mail', () => {
    expect(lifecycleSupport({ platform: 'okta', apiConfig: { provisioning: { oktaDeactivation: 'suspend' } } }).setActive).toEqual({ supported: true, how: expect.stringMatching(/^Okta suspends the user/) });
    expect(lifecycleSupport({ platform: 'okta', apiConfig: { provisioning: {} } }).setActive).toEqual({ supported: true, how: expect.stringMatching(/^Okta deactivates the user/) });
    expect(lifecycleSupport({ platform: 'okta', apiConfig: { provisioning: { oktaLogin: 'email' } } }).userName).toEqual({ supported: true, how: expect.stringContaining('the login changes with the e-mail') });
  });

  it("a platform that is no provisioning target says why for every operation", () => {
    const workday = lifecycleSupport({ platform: 'workday', baseUrl: 'https://wd.example.com' });
    for (const operation of Object.values(workday)) expect(operation).toEqual({ supported: false, reason: expect.stringContaining('Workday creates workers through hiring') });
    const graphWithoutDomain = lifecycleSupport({ platform: 'active_directory', baseUrl: 'https://graph.microsoft.com/v1.0' });
    expect(graphWithoutDomain.update).toEqual({ supported: false, reason: expect.stringContaining("the tenant's verified domain") });
  });
});

describe('the Okta deactivation setting', () => {
  it('is deactivate or suspend, optional (the default deactivates), anything else refused with words', () => {
    expect(provisioningSettingsSchema.parse({ oktaDeactivation: 'suspend' })).toEqual({ oktaDeactivation: 'suspend' });
    expect(provisioningSettingsSchema.parse({})).toEqual({});
    const refused = createIntegrationSchema.safeParse({
      name: 'Okta',
      platform: 'okta',
      baseUrl: 'https://acme.okta.com',
      authMethod: 'api_key',
      authConfig: { apiKey: 'k' },
      apiConfig: { provisioning: { oktaDeactivation: 'delete' } },
    });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['apiConfig.provisioning.oktaDeactivation', 'Okta deactivation must be deactivate or suspend']]);
  });

  it('reaches the Okta adapter the factory builds', async () => {
    const record = { platform: 'okta', apiType: 'REST', baseUrl: 'https://acme.okta.example', authMethod: 'api_key', apiConfig: { provisioning: { oktaDeactivation: 'suspend' } } } as IntegrationRecord;
    const adapter = adapterFactory({})(record, { apiKey: 'k' });
    expect((await adapter.capabilities()).lifecycle).toEqual(oktaLifecycle({ oktaDeactivation: 'suspend' }));
    adapter.close();
  });
});
