import { directoryAccessOf } from '../../shared/schemas/provisioning';
import type { IntegrationRecord } from '../integrations/integration-record';
import type { CallFailure } from '../provisioning/platform-client';
import type { GroupOperations, PlatformGroup } from '../provisioning/provisioning-port';

/**
 * Whether Delete takes an account out of its project's groups first, per platform
 * (docs/lifecycle.md, "Groups"): SCIM providers and LDAP directories keep a member value that
 * names nothing once the user is deleted (RFC 7644 lets a provider keep it; OpenLDAP without the
 * refint overlay does), and Salesforce's Delete only deactivates, keeping the permission sets and
 * public groups. Okta and Microsoft Entra ID take a deleted user out of its groups themselves.
 * Deactivate keeps the memberships everywhere (the account cannot sign in; Reactivate brings back
 * the same access).
 */
export const leavesGroupsOnDelete = (integration: Pick<IntegrationRecord, 'platform' | 'baseUrl'>): boolean =>
  integration.platform === 'custom' || integration.platform === 'salesforce' || (integration.platform === 'active_directory' && directoryAccessOf(integration.baseUrl) === 'ldap');

/**
 * Takes an account out of the project's groups on its platform: the groups found once per
 * delivery (a group the platform does not have has no member to remove), then one removal per
 * group (a member not there is done). Undefined when done, else the failure in the platform's
 * words (retryable ones are retried by the caller's pacing, the groups found again).
 */
export function groupLeaver(groups: GroupOperations, names: readonly string[], platform: string): (externalId: string) => Promise<CallFailure | undefined> {
  let found: Promise<PlatformGroup[] | CallFailure> | undefined;
  const resolve = () =>
    (found ??= (async () => {
      const list: PlatformGroup[] = [];
      for (const name of names) {
        const group = await groups.find(name);
        if (group && 'kind' in group) {
          found = undefined;
          return { ...group, message: `Not taken out of the group "${name}" on ${platform}: ${group.message}` };
        }
        if (group) list.push(group);
      }
      return list;
    })());
  return async (externalId) => {
    const list = await resolve();
    if (!Array.isArray(list)) return list;
    for (const group of list) {
      const left = await groups.removeMember(group, externalId);
      if (left.kind === 'failed') return { ...left, message: `Not taken out of the group "${group.name}" on ${platform}: ${left.message}` };
    }
    return undefined;
  };
}
