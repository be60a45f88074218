import type { GroupOperations, MembershipOutcome, PlatformGroup } from '../provisioning-port';
import { failureOf, isCallFailure, platformMessage, type CallFailure, type PlatformClient } from '../platform-client';

/**
 * SCIM 2.0 Groups (RFC 7643 4.2, RFC 7644): a group is found by `displayName eq "<name>"`,
 * created with POST /Groups, and its members changed with PATCH /Groups/{id} (RFC 7644 3.5.2):
 * `add` of `members` with the user's id, and `remove` with the path `members[value eq "<id>"]`.
 * Adding a member already there changes nothing (3.5.2.1: a value already present is not added
 * again); removing one not there is an error on some providers (400 noTarget), read as done.
 */
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SCIM_JSON = 'application/scim+json';

const groupPath = (id: string) => `/Groups/${encodeURIComponent(id)}`;
const quoted = (value: string) => JSON.stringify(value);

const groupOf = (resource: unknown, name: string): PlatformGroup | undefined => {
  const r = resource as { id?: unknown; displayName?: unknown } | undefined;
  return r && typeof r.id === 'string' ? { id: r.id, name: typeof r.displayName === 'string' ? r.displayName : name } : undefined;
};

export function scimGroups(client: PlatformClient): GroupOperations {
  const find: GroupOperations['find'] = async (name) => {
    const answer = await client.call({ method: 'GET', path: `/Groups?filter=${encodeURIComponent(`displayName eq ${quoted(name)}`)}&excludedAttributes=members&count=2` });
    if (isCallFailure(answer)) return answer;
    if (answer.status === 404) return { kind: 'failed', retryable: false, message: `The SCIM provider has no Groups endpoint (${platformMessage(answer)}): it does not support groups.` };
    if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
    const wanted = name.toLowerCase();
    const resources = (answer.json as { Resources?: unknown[] } | undefined)?.Resources ?? [];
    return resources.map((r) => groupOf(r, name)).find((g) => g && g.name.toLowerCase() === wanted);
  };

  const membership = async (group: PlatformGroup, operation: object, words: { done: string; noTarget?: string }): Promise<MembershipOutcome> => {
    const answer = await client.call({ method: 'PATCH', path: groupPath(group.id), body: { schemas: [PATCH_OP], Operations: [operation] }, contentType: SCIM_JSON });
    if (isCallFailure(answer)) return answer;
    if (answer.status >= 200 && answer.status < 300) return { kind: 'done', detail: words.done };
    if (answer.status === 404) return { kind: 'gone', detail: `The SCIM provider no longer has the group "${group.name}" (or the user).` };
    const scimType = (answer.json as { scimType?: unknown } | undefined)?.scimType;
    if (words.noTarget && answer.status === 400 && scimType === 'noTarget') return { kind: 'done', detail: words.noTarget };
    return failureOf(answer);
  };

  return {
    find,
    async create(name) {
      const answer = await client.call({ method: 'POST', path: '/Groups', body: { schemas: [GROUP_SCHEMA], displayName: name, members: [] }, contentType: SCIM_JSON });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 409 || (answer.json as { scimType?: unknown } | undefined)?.scimType === 'uniqueness') {
        // Made meanwhile (another worker of the same run): that one is the group.
        const found = await find(name);
        if (found) return found;
        return failureOf(answer);
      }
      if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
      return groupOf(answer.json, name) ?? ((await find(name)) || ({ kind: 'failed', retryable: true, message: `HTTP ${answer.status} without the created group.` } as CallFailure));
    },
    addMember: (group, externalId) =>
      membership(group, { op: 'add', path: 'members', value: [{ value: externalId }] }, { done: `Added to the group "${group.name}" on the SCIM provider.` }),
    removeMember: (group, externalId) =>
      membership(
        group,
        { op: 'remove', path: `members[value eq ${quoted(externalId)}]` },
        { done: `Removed from the group "${group.name}" on the SCIM provider.`, noTarget: `Not in the group "${group.name}" on the SCIM provider: nothing to remove.` },
      ),
  };
}
