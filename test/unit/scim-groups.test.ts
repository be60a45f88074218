import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScimServer, type ScimServer } from '../../bin/local/scim-server';
import { scimAdapter } from '../../functions/provisioning/adapters/scim';
import { platformClient } from '../../functions/provisioning/platform-client';
import { person } from '../support/provisioning-people';

/**
 * The SCIM adapter's group operations against the real local SCIM directory (scimmy's Groups):
 * find by displayName, create (a second create under the same name finds the first), add a
 * member (twice: one membership), remove it (twice: done), and a group gone.
 */
const TOKEN = 'scim-groups-token';
let server: ScimServer;
beforeAll(async () => {
  server = await startScimServer({ port: 0, token: TOKEN, maxOperations: 1 });
});
afterAll(async () => server?.stop());
beforeEach(() => server.reset());

const adapter = () =>
  scimAdapter(platformClient({ platform: 'custom', apiType: 'REST', baseUrl: server.url, authMethod: 'bearer_token', credentials: { token: TOKEN }, apiConfig: {} }, { allowedOrigins: [new URL(server.url).origin] }));

describe('SCIM groups against the local SCIM directory', () => {
  it('finds, creates, adds and removes members; redelivery adds nobody twice', async () => {
    const scim = adapter();
    const [outcome] = await scim.create([person(1)]);
    const userId = (outcome as { externalId: string }).externalId;
    expect(await scim.groups.find('Sales Team')).toBeUndefined();
    const group = await scim.groups.create('Sales Team');
    expect(group).toEqual({ id: expect.any(String), name: 'Sales Team' });
    if ('kind' in group) throw new Error('not created');
    // Another worker creating it meanwhile gets the same group (409 uniqueness, then found).
    expect(await scim.groups.create('sales team')).toEqual(group);
    expect(await scim.groups.find('SALES TEAM')).toEqual(group);
    expect(server.groups()).toEqual([{ id: group.id, displayName: 'Sales Team', members: [] }]);

    expect(await scim.groups.addMember(group, userId)).toEqual({ kind: 'done', detail: 'Added to the group "Sales Team" on the SCIM provider.' });
    expect((await scim.groups.addMember(group, userId)).kind).toBe('done');
    expect(server.groups()[0]!.members).toEqual([userId]);

    expect(await scim.groups.removeMember(group, userId)).toEqual({ kind: 'done', detail: 'Removed from the group "Sales Team" on the SCIM provider.' });
    expect((await scim.groups.removeMember(group, userId)).kind).toBe('done');
    expect(server.groups()[0]!.members).toEqual([]);

    expect((await scim.groups.addMember({ id: 'no-such-group', name: 'Gone' }, userId)).kind).toBe('gone');
    expect((await scim.capabilities()).lifecycle.groups.supported).toBe(true);
    scim.close();
  });
});
