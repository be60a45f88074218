import { describe, expect, it } from 'vitest';
import { groupLeaver, groupMover, leavesGroupsOnDelete } from '../../functions/account-actions/leave-groups';
import { groupsLeftAfter } from '../../functions/projects/project-changes';
import type { GroupOperations } from '../../functions/provisioning/provisioning-port';
import { lifecycleSupport } from '../../shared/schemas/lifecycle';

/**
 * What Delete does to a project's groups per platform (docs/lifecycle.md, "Groups"): the platforms
 * that keep a deleted user's memberships are taken out of them first, with the groups found once
 * per delivery; the words before the user tries say the same.
 */
describe('leaving the groups on Delete', () => {
  it('SCIM, LDAP and Salesforce leave them first; Okta and Entra ID do it themselves; the words agree', () => {
    const targets = [
      { platform: 'custom', baseUrl: 'https://scim.example.com/scim/v2', leaves: true },
      { platform: 'salesforce', baseUrl: 'https://acme.my.salesforce.com', leaves: true },
      { platform: 'active_directory', baseUrl: 'ldaps://dc1.corp.example.com', leaves: true },
      { platform: 'okta', baseUrl: 'https://acme.okta.com', leaves: false },
      { platform: 'active_directory', baseUrl: 'https://graph.microsoft.com/v1.0', leaves: false },
    ] as const;
    for (const { leaves, ...target } of targets) expect(leavesGroupsOnDelete(target), target.baseUrl).toBe(leaves);
    expect(lifecycleSupport({ platform: 'okta', baseUrl: 'https://acme.okta.com' }).groups).toEqual({ supported: true, how: expect.stringContaining('Okta removes a deleted user from its groups itself') });
    expect(lifecycleSupport({ platform: 'custom', baseUrl: 'https://scim.example.com' }).groups).toEqual({ supported: true, how: expect.stringContaining('Delete takes the account out of them first') });
  });

  it('finds the groups once, skips one the platform does not have, and says which removal failed', async () => {
    const calls: string[] = [];
    const groups: GroupOperations = {
      find: async (name) => (calls.push(`find ${name}`), name === 'Gone' ? undefined : { id: `g-${name}`, name }),
      create: async () => ({ kind: 'failed', retryable: false, message: 'not used' }),
      addMember: async () => ({ kind: 'done', detail: '' }),
      removeMember: async (group, id) => {
        calls.push(`remove ${id} from ${group.name}`);
        return id === 'refused' && group.name === 'Staff' ? { kind: 'failed', retryable: false, message: 'HTTP 403: not allowed' } : { kind: 'done', detail: '' };
      },
    };
    const leave = groupLeaver(groups, ['Staff', 'Gone', 'Interns'], 'Directory');
    expect(await leave('u1')).toBeUndefined();
    expect(await leave('refused')).toEqual({ kind: 'failed', retryable: false, message: 'Not taken out of the group "Staff" on Directory: HTTP 403: not allowed' });
    expect(calls).toEqual(['find Staff', 'find Gone', 'find Interns', 'remove u1 from Staff', 'remove u1 from Interns', 'remove refused from Staff']);
  });

  it('a lookup that fails is tried again by the next account', async () => {
    let finds = 0;
    const groups: GroupOperations = {
      find: async (name) => (++finds === 1 ? { kind: 'failed', retryable: true, message: 'HTTP 503' } : { id: 'g', name }),
      create: async () => ({ kind: 'failed', retryable: false, message: '' }),
      addMember: async () => ({ kind: 'done', detail: '' }),
      removeMember: async () => ({ kind: 'done', detail: '' }),
    };
    const leave = groupLeaver(groups, ['Staff'], 'Okta');
    expect(await leave('u1')).toMatchObject({ retryable: true, message: 'Not taken out of the group "Staff" on Okta: HTTP 503' });
    expect(await leave('u1')).toBeUndefined();
    expect(finds).toBe(2);
  });

  it('a groups action joins each usable group, then leaves the old ones; an unusable group fails the account in words once the rest is done', async () => {
    const calls: string[] = [];
    const groups: GroupOperations = {
      find: async (name) => ({ id: `g-${name}`, name }),
      create: async () => ({ kind: 'failed', retryable: false, message: 'not used' }),
      addMember: async (group, id) => (calls.push(`add ${id} to ${group.name}`), id === 'gone' ? { kind: 'gone', detail: 'No such user.' } : { kind: 'done', detail: '' }),
      removeMember: async (group, id) => (calls.push(`remove ${id} from ${group.name}`), { kind: 'done', detail: '' }),
    };
    const move = groupMover(groups, [{ name: 'Staff', group: { id: 'g-Staff', name: 'Staff' } }], ['Interns'], 'Directory');
    expect(await move('u1')).toEqual({ kind: 'done', detail: 'In the groups "Staff", out of "Interns" on Directory.' });
    expect(await move('gone')).toEqual({ kind: 'gone', detail: 'Not added to the group "Staff" on Directory: No such user.' });
    const partial = groupMover(groups, [{ name: 'Staff', group: { id: 'g-Staff', name: 'Staff' } }, { name: 'Missing', error: 'The group "Missing" does not exist.' }], [], 'Directory');
    expect(await partial('u2')).toEqual({ kind: 'failed', retryable: false, message: 'The group "Missing" does not exist.' });
    expect(calls).toEqual(['add u1 to Staff', 'remove u1 from Interns', 'add gone to Staff', 'add u2 to Staff']);
  });

  it('the Edit keeps the groups no longer named (case-insensitive; named again: out of the list)', () => {
    expect(groupsLeftAfter({ groups: ['Staff', 'Interns'] }, ['Staff', 'Volunteers'])).toEqual(['Interns']);
    expect(groupsLeftAfter({ groups: ['Staff', 'Volunteers'], groupsLeft: ['Interns'] }, ['interns'])).toEqual(['Staff', 'Volunteers']);
    expect(groupsLeftAfter({ groups: ['Staff'] }, ['STAFF'])).toEqual([]);
  });
});
