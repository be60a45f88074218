import * as z from 'zod';
import { isLdapUrl, type IntegrationPlatform, type ProvisioningSettings } from './integrations';

/**
 * Provisioning: creating a project's accounts on the platform of one of the user's integrations,
 * as a job (functions/provisioning). An account's externalStatus says where it stands there:
 * pending (not yet, or not this time), success (Synced), failed (Sync Failed, with externalError).
 * A project counts them: synced + failed + pending = accounts, always.
 */
export const provisioningModes = ['provision', 'retry'] as const;
export type ProvisioningMode = (typeof provisioningModes)[number];
export const provisioningModeLabels: Record<ProvisioningMode, string> = { provision: 'Provision', retry: 'Retry failed' };

/** Which accounts a run takes: every pending one, or the failed ones again. */
export const sourceStatusOf: Record<ProvisioningMode, 'pending' | 'failed'> = { provision: 'pending', retry: 'failed' };

export const provisioningStatuses = ['waiting', 'queued', 'running', 'paused', 'completed', 'failed'] as const;
export type ProvisioningStatus = (typeof provisioningStatuses)[number];

/** POST /api/projects/{id}/provision */
export const startProvisioningSchema = z.object({
  integrationId: z.string('Choose an integration').trim().min(1, 'Choose an integration').max(100, 'Integration not found'),
  mode: z.enum(provisioningModes, 'Mode must be provision or retry').optional().default('provision'),
});
export type StartProvisioningInput = z.input<typeof startProvisioningSchema>;

/** GET /api/provisioning-jobs/{id}: synced + failed + pending = total. */
export interface ProvisioningJob {
  id: string;
  projectId: string;
  projectName: string;
  integrationId: string;
  integrationName: string;
  platform: IntegrationPlatform;
  mode: ProvisioningMode;
  status: ProvisioningStatus;
  total: number;
  synced: number;
  failed: number;
  pending: number;
  /** Why it waits, paused or failed, in words a user can act on. */
  reason?: string;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
}

export const PAUSED_CREDENTIALS = "Paused: the integration's credentials were refused. Edit the integration and test it; provisioning resumes when the test succeeds.";
export const WAITING_FOR_ACCOUNTS = 'Waiting for the accounts to be created.';

/**
 * Platforms accounts can be provisioned to today, and why not for the others. Workday is a source
 * of people (hiring creates workers), never a target.
 */
export function provisioningSupport(integration: {
  platform: IntegrationPlatform;
  apiType?: string;
  baseUrl?: string;
  apiConfig?: { provisioning?: ProvisioningSettings };
}): { supported: true } | { supported: false; reason: string } {
  switch (integration.platform) {
    case 'salesforce':
      // A User cannot be created without a profile, and its user name needs a domain.
      return integration.apiConfig?.provisioning?.salesforce
        ? { supported: true }
        : { supported: false, reason: "Provisioning to Salesforce needs the integration's Salesforce settings: the profile id for new users and the domain of their user names." };
    case 'custom':
      return integration.apiType && integration.apiType !== 'REST'
        ? { supported: false, reason: 'Provisioning to a custom API needs a SCIM 2.0 (REST) service provider.' }
        : { supported: true };
    case 'active_directory':
      // An ldap(s):// URL is an on-premises directory (functions/provisioning/adapters/ldap.ts).
      if (integration.baseUrl && isLdapUrl(integration.baseUrl)) {
        return integration.apiConfig?.provisioning?.ldap
          ? { supported: true }
          : { supported: false, reason: "Provisioning to an LDAP directory needs the integration's LDAP settings: the base DN where people are added, and whether it is Active Directory or OpenLDAP." };
      }
      return { supported: false, reason: 'Provisioning to this platform is not available yet: use a SCIM 2.0 integration (Custom API).' };
    case 'workday':
      return { supported: false, reason: 'Workday creates workers through hiring, not accounts through an API: it cannot be a provisioning target.' };
    default:
      return { supported: false, reason: 'Provisioning to this platform is not available yet: use a SCIM 2.0 integration (Custom API).' };
  }
}
