import { isLdapUrl } from '../../../shared/schemas/integrations';
import type { OutboundOptions } from '../../core/outbound';
import type { IntegrationRecord } from '../../integrations/integration-record';
import type { Pacing } from '../provision-accounts';
import type { ProvisioningAdapter } from '../provisioning-port';
import { platformClient } from '../platform-client';
import { ldapAdapter } from './ldap';
import { salesforceAdapter } from './salesforce';
import { scimAdapter } from './scim';

/**
 * The adapter for an integration's platform (one file per platform in this folder). Only
 * platforms that provisioningSupport() (shared/schemas/provisioning.ts) accepts reach here.
 */
export const adapterFactory =
  (outbound: OutboundOptions) =>
  (integration: IntegrationRecord, credentials: Record<string, string>): ProvisioningAdapter => {
    // Active Directory / LDAP: an on-premises directory spoken to over LDAP, not HTTP.
    if (integration.platform === 'active_directory' && isLdapUrl(integration.baseUrl)) {
      const settings = integration.apiConfig?.provisioning?.ldap;
      if (!settings) throw new Error('No provisioning adapter for an LDAP directory without its settings');
      return ldapAdapter({ baseUrl: integration.baseUrl, credentials }, { ...settings, undo: integration.apiConfig?.provisioning?.undo }, outbound);
    }
    const client = platformClient(
      { platform: integration.platform, apiType: integration.apiType, baseUrl: integration.baseUrl, authMethod: integration.authMethod, credentials, apiConfig: integration.apiConfig ?? {} },
      outbound,
    );
    switch (integration.platform) {
      case 'custom':
        return scimAdapter(client, { undo: integration.apiConfig?.provisioning?.undo });
      case 'salesforce': {
        const settings = integration.apiConfig?.provisioning?.salesforce;
        if (!settings) break;
        return salesforceAdapter(client, settings);
      }
      default:
        break;
    }
    client.close();
    throw new Error(`No provisioning adapter for ${integration.platform}`);
  };

/**
 * Documented limits per platform, used when the integration sets none (docs/provisioning.md):
 * Okta's default /api/v1/users limit is 600 requests a minute and 75 concurrent per org; a SCIM
 * service provider documents its own, so a custom one is bounded by calls in flight only.
 */
export const defaultPacing: Record<IntegrationRecord['platform'], Pacing> = {
  custom: { concurrency: 8 },
  okta: { requestsPerMinute: 600, concurrency: 75 },
  active_directory: { requestsPerMinute: 3000, concurrency: 4 },
  salesforce: { requestsPerMinute: 1000, concurrency: 4 },
  workday: { requestsPerMinute: 60, concurrency: 1 },
};

export const pacingOf = (integration: IntegrationRecord): Pacing => {
  const settings = integration.apiConfig?.provisioning;
  const platform = defaultPacing[integration.platform];
  return { requestsPerMinute: settings?.requestsPerMinute ?? platform.requestsPerMinute, concurrency: settings?.concurrency ?? platform.concurrency };
};
