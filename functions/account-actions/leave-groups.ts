import { directoryAccessOf } from '../../shared/schemas/provisioning';
import type { IntegrationRecord } from '../integrations/integration-record';
import type { CallFailure } from '../provisioning/platform-client';
import type { GroupOperations, MembershipOutcome, PlatformGroup } from '../provisioning/provisioning-port';
import type { GroupTarget } from '../provisioning/run-groups';

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

/**
 * A groups action's work on one account already on the platform (docs/lifecycle.md, "Groups"):
 * joins each group the project names (`targets`, resolved once per job: run-groups.ts; adding a
 * member already there changes nothing), then leaves the groups it no longer names (groupLeaver:
 * on every platform, as a changed list of groups is the user's wish, unlike Delete). A group the
 * job cannot use (missing without 'Create groups that do not exist', or refused) fails the account
 * with its words once the rest is done. Done: the platform's words of what changed.
 */
export function groupMover(groups: GroupOperations, targets: readonly GroupTarget[], leave: readonly string[], platform: string): (externalId: string) => Promise<MembershipOutcome> {
  const leaver = leave.length ? groupLeaver(groups, leave, platform) : undefined;
  const unusable = targets.flatMap((t) => (t.error ? [t.error] : []));
  const joined = targets.flatMap((t) => (t.group ? [`"${t.name}"`] : []));
  const detail = [joined.length ? `In the groups ${joined.join(', ')}` : '', leave.length ? `out of ${leave.map((name) => `"${name}"`).join(', ')}` : ''].filter(Boolean).join(', ');
  return async (externalId) => {
    for (const { name, group } of targets) {
      if (!group) continue;
      const added = await groups.addMember(group, externalId);
      if (added.kind === 'gone') return { kind: 'gone', detail: `Not added to the group "${name}" on ${platform}: ${added.detail}` };
      if (added.kind === 'failed') return { ...added, message: `Not added to the group "${name}" on ${platform}: ${added.message}` };
    }
    const left = await leaver?.(externalId);
    if (left) return left;
    if (unusable.length) return { kind: 'failed', retryable: false, message: unusable.join(' ') };
    return { kind: 'done', detail: `${detail} on ${platform}.` };
  };
}
