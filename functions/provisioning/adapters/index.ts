import type { OutboundOptions } from '../../core/outbound';
import type { IntegrationRecord } from '../../integrations/integration-record';
import type { AccountPolicy, ProvisioningAdapter } from '../provisioning-port';
import { platformClient, type PlatformClient } from '../platform-client';
import { directoryAccessOf, provisioningSupport } from '../../../shared/schemas/provisioning';
import { ldapAdapter } from './ldap';
import { microsoftGraphAdapter } from './microsoft-graph';
import { oktaAdapter } from './okta';
import { salesforceAdapter } from './salesforce';
import { scimAdapter } from './scim';
import { clearedAttributes, mapAttributes, mappingOf, mappingTargetOf } from '../../../shared/schemas/attribute-mapping';

/**
 * The adapter for an integration's platform (one file per platform in this folder). Only
 * platforms that provisioningSupport() (shared/schemas/provisioning.ts) accepts reach here.
 */
export const adapterFactory =
  (outbound: OutboundOptions) =>
  (integration: IntegrationRecord, credentials: Record<string, string>, policy: AccountPolicy = {}): ProvisioningAdapter =>
    withMappedAttributes(integration, platformAdapter(outbound)(integration, credentials, policy));

/**
 * The people's and changes' extra columns mapped to the platform's attributes by the
 * integration's mapping (its own, else the platform's default: shared/schemas/attribute-mapping.ts)
 * before the adapter builds its bodies: the one place a mapping is applied.
 */
export function withMappedAttributes(integration: Pick<IntegrationRecord, 'platform' | 'baseUrl' | 'apiConfig'>, adapter: ProvisioningAdapter): ProvisioningAdapter {
  const target = mappingTargetOf(integration);
  if (!target) return adapter;
  const mapping = mappingOf(target, integration.apiConfig?.provisioning?.attributeMapping);
  return {
    ...adapter,
    create: (people) => adapter.create(people.map((person) => ({ ...person, platformAttributes: mapAttributes(target, mapping, person.attributes) }))),
    update: (externalId, changes) =>
      adapter.update(externalId, {
        ...changes,
        platformAttributes: mapAttributes(target, mapping, changes.attributes),
        clearedPlatformAttributes: clearedAttributes(target, mapping, changes.removedAttributes ?? []),
      }),
  };
}

const platformAdapter =
  (outbound: OutboundOptions) =>
  (integration: IntegrationRecord, credentials: Record<string, string>, policy: AccountPolicy = {}): ProvisioningAdapter => {
    const settings = integration.apiConfig?.provisioning;
    // Settings edited under a running job (a required one removed): each account fails with the
    // reason, which the user can act on and then Retry failed, instead of a crashing chunk.
    const refusal = (client?: PlatformClient) => {
      const support = provisioningSupport(integration);
      return refusingAdapter(client, support.supported ? 'Provisioning to this platform is not available.' : support.reason);
    };
    // Active Directory / LDAP: an on-premises directory spoken to over LDAP, not HTTP.
    if (integration.platform === 'active_directory' && directoryAccessOf(integration.baseUrl) === 'ldap') {
      return settings?.ldap ? ldapAdapter({ baseUrl: integration.baseUrl, credentials }, { ...settings.ldap, undo: settings.undo }, outbound, policy) : refusal();
    }
    const client = platformClient(
      { platform: integration.platform, apiType: integration.apiType, baseUrl: integration.baseUrl, authMethod: integration.authMethod, credentials, apiConfig: integration.apiConfig ?? {} },
      outbound,
    );
    return httpAdapter(integration, client, policy, refusal);
  };

/**
 * The adapter of an HTTP platform over a given client: the platform's own (platformClient), or
 * one that only records the requests (the mapping preview, functions/integrations/attribute-preview.ts).
 */
export function httpAdapter(
  integration: IntegrationRecord,
  client: PlatformClient,
  policy: AccountPolicy = {},
  refusal: (client?: PlatformClient) => ProvisioningAdapter = (c) => refusingAdapter(c, 'Provisioning to this platform is not available.'),
): ProvisioningAdapter {
    const settings = integration.apiConfig?.provisioning;
    switch (integration.platform) {
      case 'custom':
        return scimAdapter(client, { undo: settings?.undo });
      case 'okta':
        return oktaAdapter(client, { undo: settings?.undo, login: settings?.oktaLogin, deactivation: settings?.oktaDeactivation }, policy);
      case 'salesforce':
        return settings?.salesforce ? salesforceAdapter(client, settings.salesforce) : refusal(client);
      case 'active_directory':
        // http(s): Microsoft Graph (Entra ID); ldap(s):// went to the LDAP adapter above.
        if (directoryAccessOf(integration.baseUrl) === 'graph' && settings?.entraDomain) {
          return microsoftGraphAdapter(client, { domain: settings.entraDomain, undo: settings.undo }, policy);
        }
        return refusal(client);
      default:
        client.close();
        throw new Error(`No provisioning adapter for ${integration.platform}`);
    }
}

/** An adapter that creates nobody: every person fails with the reason (not retried). */
const refusingAdapter = (client: PlatformClient | undefined, reason: string): ProvisioningAdapter => {
  const refusal = { kind: 'failed', retryable: false, message: reason } as const;
  return {
    capabilities: async () => {
      const no = { supported: false, reason } as const;
      return { batchSize: 1, undo: 'deactivate', mustChangePassword: no, lifecycle: { update: no, userName: no, setActive: no, remove: no, groups: no } };
    },
    find: async () => refusal,
    create: async (people) => people.map(() => refusal),
    undo: async () => refusal,
    setPassword: async () => refusal,
    findById: async () => refusal,
    update: async () => refusal,
    setActive: async () => refusal,
    remove: async () => refusal,
    groups: { find: async () => refusal, create: async () => refusal, addMember: async () => refusal, removeMember: async () => refusal },
    close: () => client?.close(),
  };
};

export { defaultPacing, microsoftGraphPacing, pacingOf } from './pacing-defaults';
