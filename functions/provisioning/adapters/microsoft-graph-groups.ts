import { randomBytes } from 'node:crypto';
import type { GroupOperations, MembershipOutcome, PlatformGroup } from '../provisioning-port';
import { failureOf, isCallFailure, platformMessage, type PlatformClient } from '../platform-client';

/**
 * Microsoft Graph groups (Entra ID): found with `$filter=displayName eq '<name>'`, created as a
 * security group (POST /groups: displayName, mailEnabled false, securityEnabled true and a
 * mailNickname, which Graph requires even then), a member added with POST
 * /groups/{id}/members/$ref (`@odata.id` naming the user as a directory object) and removed with
 * DELETE /groups/{id}/members/{userId}/$ref. Graph answers a member already there with 400 "One or
 * more added object references already exist": done; a member not there (404) on removal: done.
 */
export const GRAPH_DIRECTORY_OBJECTS = 'https://graph.microsoft.com/v1.0/directoryObjects';

/** An OData string literal: a quote doubled. */
const odataString = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** mailNickname: ASCII letters, digits and a few marks, at most 64 characters (Graph refuses spaces and @ ( ) \ [ ] " ; : < > ,), with a random tail: two groups of one name must not share one. */
export const graphMailNickname = (name: string) => (name.normalize('NFKD').replace(/[^A-Za-z0-9._-]/g, '').slice(0, 56) || 'group') + randomBytes(4).toString('hex');

const groupOf = (group: unknown, name: string): PlatformGroup | undefined => {
  const g = group as { id?: unknown; displayName?: unknown } | undefined;
  return g && typeof g.id === 'string' ? { id: g.id, name: typeof g.displayName === 'string' ? g.displayName : name } : undefined;
};

export function microsoftGraphGroups(client: PlatformClient): GroupOperations {
  const path = (group: PlatformGroup) => `/groups/${encodeURIComponent(group.id)}`;
  return {
    async find(name) {
      const answer = await client.call({ method: 'GET', path: `/groups?$filter=${encodeURIComponent(`displayName eq ${odataString(name)}`)}&$select=id,displayName&$top=2` });
      if (isCallFailure(answer)) return answer;
      if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
      const wanted = name.toLowerCase();
      const groups = ((answer.json as { value?: unknown[] } | undefined)?.value ?? []).map((g) => groupOf(g, name));
      return groups.find((g) => g && g.name.toLowerCase() === wanted);
    },
    async create(name) {
      const answer = await client.call({ method: 'POST', path: '/groups', body: { displayName: name, description: "Created by BulkOnboard for a project's accounts.", mailEnabled: false, mailNickname: graphMailNickname(name), securityEnabled: true } });
      if (isCallFailure(answer)) return answer;
      if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
      return groupOf(answer.json, name) ?? { kind: 'failed', retryable: true, message: `HTTP ${answer.status} without the created group.` };
    },
    async addMember(group, userId): Promise<MembershipOutcome> {
      const answer = await client.call({ method: 'POST', path: `${path(group)}/members/$ref`, body: { '@odata.id': `${GRAPH_DIRECTORY_OBJECTS}/${encodeURIComponent(userId)}` } });
      if (isCallFailure(answer)) return answer;
      if (answer.status >= 200 && answer.status < 300) return { kind: 'done', detail: `Added to the group "${group.name}" in Microsoft Entra ID.` };
      if (answer.status === 400 && /already exist/i.test(platformMessage(answer))) return { kind: 'done', detail: `Already in the group "${group.name}" in Microsoft Entra ID.` };
      if (answer.status === 404) return { kind: 'gone', detail: `Microsoft Entra ID no longer has the group "${group.name}" (or the user).` };
      return failureOf(answer);
    },
    async removeMember(group, userId): Promise<MembershipOutcome> {
      const answer = await client.call({ method: 'DELETE', path: `${path(group)}/members/${encodeURIComponent(userId)}/$ref` });
      if (isCallFailure(answer)) return answer;
      if (answer.status >= 200 && answer.status < 300) return { kind: 'done', detail: `Removed from the group "${group.name}" in Microsoft Entra ID.` };
      if (answer.status === 404) return { kind: 'done', detail: `Not in the group "${group.name}" in Microsoft Entra ID: nothing to remove.` };
      return failureOf(answer);
    },
  };
}
