import type { IntegrationPlatform, ProvisioningSettings } from './integrations';

/**
 * Provisioning: creating a project's accounts on the platform of one of the user's integrations,
 * as a job (functions/provisioning). An account's externalStatus says where it stands there:
 * pending (not yet, or not this time), success (Synced), failed (Sync Failed, with externalError).
 * A project counts them: synced + failed + pending = accounts, always. Free of zod: the request
 * schemas are in ./provisioning-requests.ts.
 */
export const provisioningModes = ['provision', 'retry', 'undo'] as const;
export type ProvisioningMode = (typeof provisioningModes)[number];
export const provisioningModeLabels: Record<ProvisioningMode, string> = { provision: 'Provision', retry: 'Retry failed', undo: 'Undo on platform' };

/**
 * Which accounts a run takes: every pending one, the failed ones again, or (undo) the synced ones,
 * which are then deactivated or deleted on the platform and kept here marked 'removed'.
 */
export const sourceStatusOf: Record<ProvisioningMode, 'pending' | 'failed' | 'success'> = { provision: 'pending', retry: 'failed', undo: 'success' };
/** What an account's externalStatus becomes when a run's call for it succeeds. */
export const doneStatusOf: Record<ProvisioningMode, 'success' | 'removed'> = { provision: 'success', retry: 'success', undo: 'removed' };

export const provisioningStatuses = ['waiting', 'queued', 'running', 'paused', 'completed', 'failed'] as const;
export type ProvisioningStatus = (typeof provisioningStatuses)[number];

/** People one 'Check against platform' request looks up (the web app sends a larger file in parts). */
export const CHECK_PEOPLE_MAX = 200;


/**
 * What provisioning would do with a person, looked up by the user name they would get and by
 * their e-mail: new (created), linked (that user name is there with this e-mail: it becomes this
 * account), conflict (that user name is someone else's: this account would fail), duplicate (this
 * e-mail is there under another user name: a second account would be made for them), error (the
 * lookup failed).
 */
export const checkOutcomes = ['new', 'linked', 'conflict', 'duplicate', 'error'] as const;
export type CheckOutcome = (typeof checkOutcomes)[number];
export interface CheckResult {
  row: number;
  email: string;
  username: string;
  outcome: CheckOutcome;
  /** The account found on the platform (user name and e-mail), or why the lookup failed. */
  detail?: string;
}
export interface CheckAnswer {
  results: CheckResult[];
  summary: Record<CheckOutcome, number>;
}

/** GET /api/provisioning-jobs/{id}: synced + failed + pending = total (for an undo, synced counts the accounts removed from the platform). */
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
  /** A run over listed accounts (an action over the Account Database), once completed: those no longer in the mode's status when reached. */
  skipped?: number;
  /** Why it waits, paused or failed, in words a user can act on. */
  reason?: string;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /**
   * Present when the user's Require password change setting was on at the start: whether the
   * platform was asked to make the accounts change their password at first sign-in, and how, or
   * why not (a platform that has no such flag).
   */
  passwordChange?: { applied: boolean; detail: string };
  /**
   * While no worker has picked the run up yet (queued, or planned with none of its chunks
   * started): other runs' chunks ahead of it on the shared provisioning queue (approximate), and
   * the sentence saying so (functions/provisioning/run-wait.ts).
   */
  chunksAhead?: number;
  waitReason?: string;
}

export const PAUSED_CREDENTIALS = "Paused: the integration's credentials were refused. Edit the integration and test it; provisioning resumes when the test succeeds.";
export const WAITING_FOR_ACCOUNTS = 'Waiting for the accounts to be created.';

/**
 * How an `active_directory` integration reaches the directory, by its base URL's protocol:
 * Microsoft Graph for Entra ID (http(s), e.g. https://graph.microsoft.com/v1.0) or LDAP for an
 * on-premises directory (ldap:// or ldaps://).
 */
export function directoryAccessOf(baseUrl: string | undefined): 'graph' | 'ldap' | undefined {
  const protocol = baseUrl && URL.canParse(baseUrl) ? new URL(baseUrl).protocol : '';
  if (protocol === 'https:' || protocol === 'http:') return 'graph';
  if (protocol === 'ldap:' || protocol === 'ldaps:') return 'ldap';
  return undefined;
}

/** What provisioningSupport reads of an integration. */
export interface ProvisioningTarget {
  platform: IntegrationPlatform;
  apiType?: string;
  baseUrl?: string;
  apiConfig?: { provisioning?: ProvisioningSettings };
}

/**
 * Platforms accounts can be provisioned to today, and why not for the others. Workday is a source
 * of people (hiring creates workers), never a target.
 */
export function provisioningSupport(integration: ProvisioningTarget): { supported: true } | { supported: false; reason: string } {
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
    case 'okta':
      return { supported: true };
    case 'active_directory':
      switch (directoryAccessOf(integration.baseUrl)) {
        case 'graph':
          // Without it every userPrincipalName would be refused: say so before any account is tried.
          return integration.apiConfig?.provisioning?.entraDomain
            ? { supported: true }
            : { supported: false, reason: "Provisioning to Microsoft Entra ID needs the tenant's verified domain (e.g. contoso.com) in the integration's provisioning settings: user principal names are username@domain." };
        case 'ldap':
          // An on-premises directory (functions/provisioning/adapters/ldap.ts): people go under its base DN.
          return integration.apiConfig?.provisioning?.ldap
            ? { supported: true }
            : { supported: false, reason: "Provisioning to an LDAP directory needs the integration's LDAP settings: the base DN where people are added, and whether it is Active Directory or OpenLDAP." };
        default:
          return { supported: false, reason: 'The integration\'s base URL must be Microsoft Graph (https://graph.microsoft.com/v1.0) or an ldap:// or ldaps:// directory.' };
      }
    case 'workday':
      return { supported: false, reason: 'Workday creates workers through hiring, not accounts through an API: it cannot be a provisioning target.' };
    default:
      return { supported: false, reason: 'Provisioning to this platform is not available yet: use a SCIM 2.0 integration (Custom API).' };
  }
}
