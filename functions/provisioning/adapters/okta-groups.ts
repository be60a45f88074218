import type { GroupOperations, MembershipOutcome, PlatformGroup } from '../provisioning-port';
import { failureOf, isCallFailure, type PlatformAnswer, type PlatformClient } from '../platform-client';

/**
 * Okta groups (Groups API, /api/v1/groups): found with `search=profile.name eq "<name>"` (the
 * exact name, compared again here without regard to case), created as an OKTA_GROUP (POST with
 * `profile.name`), a member added with PUT /api/v1/groups/{groupId}/users/{userId} and removed
 * with DELETE on the same path (204 both; adding a member twice changes nothing). Okta lets
 * only OKTA_GROUP memberships be changed: a group imported from an app (APP_GROUP) is refused in
 * Okta's words.
 */
const quoted = (value: string) => JSON.stringify(value);

interface OktaGroup {
  id?: unknown;
  type?: unknown;
  profile?: { name?: unknown };
}

const groupOf = (group: OktaGroup | undefined, name: string): PlatformGroup | undefined =>
  group && typeof group.id === 'string' ? { id: group.id, name: typeof group.profile?.name === 'string' ? group.profile.name : name, ...(typeof group.type === 'string' ? { type: group.type } : {}) } : undefined;

/** Okta's 400 E0000001 for a name it holds already ("name: An object with this field already exists"). */
const nameTaken = (answer: PlatformAnswer) => answer.status === 400 && (answer.json as { errorCode?: unknown } | undefined)?.errorCode === 'E0000001';

export function oktaGroups(client: PlatformClient): GroupOperations {
  const find: GroupOperations['find'] = async (name) => {
    const answer = await client.call({ method: 'GET', path: `/api/v1/groups?search=${encodeURIComponent(`profile.name eq ${quoted(name)}`)}&limit=10` });
    if (isCallFailure(answer)) return answer;
    if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
    const wanted = name.toLowerCase();
    const groups = Array.isArray(answer.json) ? (answer.json as OktaGroup[]) : [];
    return groups.map((g) => groupOf(g, name)).find((g) => g && g.name.toLowerCase() === wanted);
  };

  const membership = async (method: 'PUT' | 'DELETE', group: PlatformGroup, userId: string, done: string): Promise<MembershipOutcome> => {
    const answer = await client.call({ method, path: `/api/v1/groups/${encodeURIComponent(group.id)}/users/${encodeURIComponent(userId)}` });
    if (isCallFailure(answer)) return answer;
    if (answer.status >= 200 && answer.status < 300) return { kind: 'done', detail: done };
    if (answer.status === 404) return { kind: 'gone', detail: `Okta no longer has the group "${group.name}" (or the user).` };
    return failureOf(answer);
  };

  return {
    find,
    async create(name) {
      const answer = await client.call({ method: 'POST', path: '/api/v1/groups', body: { profile: { name, description: 'Created by BulkOnboard for a project\'s accounts.' } } });
      if (isCallFailure(answer)) return answer;
      if (nameTaken(answer)) {
        const found = await find(name);
        if (found) return found;
      }
      if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
      return groupOf(answer.json as OktaGroup, name) ?? { kind: 'failed', retryable: true, message: `HTTP ${answer.status} without the created group.` };
    },
    addMember: (group, userId) => membership('PUT', group, userId, `Added to the Okta group "${group.name}".`),
    removeMember: (group, userId) => membership('DELETE', group, userId, `Removed from the Okta group "${group.name}".`),
  };
}
