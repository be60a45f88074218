import type { GroupOperations, MembershipOutcome, PlatformGroup } from '../provisioning-port';
import { isCallFailure, type PlatformAnswer, type PlatformClient } from '../platform-client';
import { salesforceFailure } from './salesforce';

/**
 * Salesforce has two things a project's "group" can be: a permission set (what access is granted
 * by: PermissionSetAssignment, AssigneeId + PermissionSetId) and a public group (Group of Type
 * 'Regular': GroupMember, GroupId + UserOrGroupId). A name is looked up as a permission set (its
 * API Name or its Label) first, then as a public group (its Name or DeveloperName). A missing one
 * is created as a public group (a permission set's permissions are set up in Salesforce, not
 * here). Salesforce answers a second assignment or membership with DUPLICATE_VALUE: done.
 * Removal reads the assignment's or membership's Id, then deletes it.
 */
const soqlString = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export const PERMISSION_SET = 'permissionSet';
export const PUBLIC_GROUP = 'publicGroup';

/** A DeveloperName: letters, digits and single underscores, starting with a letter, at most 40 characters. */
export const salesforceDeveloperName = (name: string) => {
  const plain = name.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').replace(/_+/g, '_');
  return (/^[A-Za-z]/.test(plain) ? plain : `G_${plain}`).slice(0, 40).replace(/_+$/, '') || 'Group';
};

const errorCodes = (answer: PlatformAnswer) => (Array.isArray(answer.json) ? (answer.json as { errorCode?: unknown }[]).map((e) => e?.errorCode) : []);

export function salesforceGroups(client: PlatformClient, base: string): GroupOperations {
  const query = async <T>(soql: string): Promise<T[] | ReturnType<typeof salesforceFailure>> => {
    const answer = await client.call({ method: 'GET', path: `${base}/query?q=${encodeURIComponent(soql)}` });
    if (isCallFailure(answer)) return answer;
    if (answer.status < 200 || answer.status >= 300) return salesforceFailure(answer);
    return ((answer.json as { records?: T[] } | undefined)?.records ?? []) as T[];
  };
  const find: GroupOperations['find'] = async (name) => {
    const sets = await query<{ Id?: string; Name?: string; Label?: string }>(
      `SELECT Id, Name, Label FROM PermissionSet WHERE (Name = ${soqlString(name)} OR Label = ${soqlString(name)}) AND IsOwnedByProfile = false LIMIT 2`,
    );
    if (!Array.isArray(sets)) return sets;
    const set = sets.find((s) => typeof s.Id === 'string');
    if (set) return { id: String(set.Id), name, type: PERMISSION_SET };
    const groups = await query<{ Id?: string }>(`SELECT Id, Name, DeveloperName FROM Group WHERE Type = 'Regular' AND (Name = ${soqlString(name)} OR DeveloperName = ${soqlString(salesforceDeveloperName(name))}) LIMIT 2`);
    if (!Array.isArray(groups)) return groups;
    const group = groups.find((g) => typeof g.Id === 'string');
    return group ? { id: String(group.Id), name, type: PUBLIC_GROUP } : undefined;
  };
  const member = (group: PlatformGroup) =>
    group.type === PERMISSION_SET
      ? { object: 'PermissionSetAssignment', body: (userId: string) => ({ AssigneeId: userId, PermissionSetId: group.id }), where: (userId: string) => `AssigneeId = ${soqlString(userId)} AND PermissionSetId = ${soqlString(group.id)}`, what: `the permission set "${group.name}"` }
      : { object: 'GroupMember', body: (userId: string) => ({ GroupId: group.id, UserOrGroupId: userId }), where: (userId: string) => `UserOrGroupId = ${soqlString(userId)} AND GroupId = ${soqlString(group.id)}`, what: `the public group "${group.name}"` };

  return {
    find,
    async create(name) {
      const answer = await client.call({ method: 'POST', path: `${base}/sobjects/Group`, body: { Name: name.slice(0, 40), DeveloperName: salesforceDeveloperName(name), Type: 'Regular' } });
      if (isCallFailure(answer)) return answer;
      if (answer.status >= 200 && answer.status < 300) {
        const id = (answer.json as { id?: unknown } | undefined)?.id;
        if (typeof id === 'string') return { id, name, type: PUBLIC_GROUP };
      }
      if (errorCodes(answer).includes('DUPLICATE_DEVELOPER_NAME') || errorCodes(answer).includes('DUPLICATE_VALUE')) {
        const found = await find(name);
        if (found) return found;
      }
      return salesforceFailure(answer);
    },
    async addMember(group, userId): Promise<MembershipOutcome> {
      const { object, body, what } = member(group);
      const answer = await client.call({ method: 'POST', path: `${base}/sobjects/${object}`, body: body(userId) });
      if (isCallFailure(answer)) return answer;
      if (answer.status >= 200 && answer.status < 300) return { kind: 'done', detail: `Given ${what} in Salesforce.` };
      if (errorCodes(answer).includes('DUPLICATE_VALUE')) return { kind: 'done', detail: `Already had ${what} in Salesforce.` };
      if (answer.status === 404 || errorCodes(answer).includes('INVALID_CROSS_REFERENCE_KEY')) return { kind: 'gone', detail: `Salesforce no longer has ${what} (or the user).` };
      return salesforceFailure(answer);
    },
    async removeMember(group, userId): Promise<MembershipOutcome> {
      const { object, where, what } = member(group);
      const rows = await query<{ Id?: string }>(`SELECT Id FROM ${object} WHERE ${where(userId)} LIMIT 1`);
      if (!Array.isArray(rows)) return rows;
      const id = rows.find((r) => typeof r.Id === 'string')?.Id;
      if (!id) return { kind: 'done', detail: `Did not have ${what} in Salesforce: nothing to remove.` };
      const answer = await client.call({ method: 'DELETE', path: `${base}/sobjects/${object}/${encodeURIComponent(id)}` });
      if (isCallFailure(answer)) return answer;
      if ((answer.status >= 200 && answer.status < 300) || answer.status === 404) return { kind: 'done', detail: `${what.charAt(0).toUpperCase()}${what.slice(1)} taken away in Salesforce.` };
      return salesforceFailure(answer);
    },
  };
}
