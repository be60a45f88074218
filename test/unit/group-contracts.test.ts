import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { microsoftGraphAdapter } from '../../functions/provisioning/adapters/microsoft-graph';
import { oktaAdapter } from '../../functions/provisioning/adapters/okta';
import { salesforceAdapter } from '../../functions/provisioning/adapters/salesforce';
import { platformClient } from '../../functions/provisioning/platform-client';
import type { PlatformGroup, ProvisioningAdapter } from '../../functions/provisioning/provisioning-port';
import { GRAPH_LIFECYCLE, oktaLifecycle, SALESFORCE_LIFECYCLE } from '../../shared/schemas/lifecycle';
import { startFakeGraph, type FakeGraph } from '../support/fake-graph';
import { startFakeOkta, type FakeOkta } from '../support/fake-okta';
import { SALESFORCE_TEST_VERSION, startFakeSalesforce, type FakeSalesforce } from '../support/fake-salesforce';
import { person } from '../support/provisioning-people';

/**
 * The group operations of the Okta, Microsoft Graph and Salesforce adapters against the loopback
 * servers that play their documented shapes (test/support/fake-*.ts; contract fakes, not the
 * live services): the requests sent (paths, methods, bodies), find / create / add / remove, a
 * member added twice kept once, a removal of one not there done, and the platform's words for a
 * refusal.
 */
let okta: FakeOkta;
let graph: FakeGraph;
let salesforce: FakeSalesforce;
beforeAll(async () => {
  [okta, graph, salesforce] = await Promise.all([startFakeOkta(), startFakeGraph(), startFakeSalesforce()]);
});
afterAll(async () => {
  await Promise.all([okta?.stop(), graph?.stop(), salesforce?.stop()]);
});
beforeEach(() => {
  okta.reset();
  graph.reset();
  salesforce.reset();
});

const created = async (adapter: ProvisioningAdapter, n: number) => {
  const [outcome] = await adapter.create([person(n)]);
  expect(outcome?.kind).toBe('created');
  return (outcome as { externalId: string }).externalId;
};
const group = (value: PlatformGroup | undefined | { kind: 'failed' }): PlatformGroup => {
  if (!value || 'kind' in value) throw new Error(`no group: ${JSON.stringify(value)}`);
  return value;
};

describe('Okta groups (Groups API)', () => {
  const adapter = () => oktaAdapter(platformClient({ platform: 'okta', apiType: 'REST', baseUrl: okta.origin, authMethod: 'api_key', credentials: { apiKey: okta.token }, apiConfig: {} }, { allowedOrigins: [okta.origin] }));

  it('searches by profile.name, creates an OKTA_GROUP, PUTs and DELETEs the membership', async () => {
    const client = adapter();
    const userId = await created(client, 1);
    expect(await client.groups.find('Sales')).toBeUndefined();
    const sales = group(await client.groups.create('Sales'));
    expect(sales).toMatchObject({ name: 'Sales', type: 'OKTA_GROUP' });
    // Made meanwhile by another worker: Okta's 400 E0000001, then found.
    expect(await client.groups.create('sales')).toEqual(sales);
    expect(await client.groups.find('SALES')).toEqual(sales);
    expect((await client.groups.addMember(sales, userId)).kind).toBe('done');
    expect((await client.groups.addMember(sales, userId)).kind).toBe('done');
    expect([...okta.groups.get(sales.id)!.members]).toEqual([userId]);
    expect((await client.groups.removeMember(sales, userId)).kind).toBe('done');
    expect(okta.groups.get(sales.id)!.members.size).toBe(0);
    const sent = okta.received.filter((r) => r.url.startsWith('/api/v1/groups'));
    expect(sent.map((r) => `${r.method} ${decodeURIComponent(r.url)}`)).toEqual([
      'GET /api/v1/groups?search=profile.name eq "Sales"&limit=10',
      'POST /api/v1/groups',
      'POST /api/v1/groups',
      'GET /api/v1/groups?search=profile.name eq "sales"&limit=10',
      'GET /api/v1/groups?search=profile.name eq "SALES"&limit=10',
      `PUT /api/v1/groups/${sales.id}/users/${userId}`,
      `PUT /api/v1/groups/${sales.id}/users/${userId}`,
      `DELETE /api/v1/groups/${sales.id}/users/${userId}`,
    ]);
    expect(sent[1]!.body).toEqual({ profile: { name: 'Sales', description: "Created by BulkOnboard for a project's accounts." } });
    expect((await client.capabilities()).lifecycle.groups).toEqual(oktaLifecycle().groups);
    client.close();
  });

  it("an app's group is refused in Okta's words; a group gone is gone", async () => {
    const client = adapter();
    const userId = await created(client, 2);
    okta.groups.set('00gapp', { id: '00gapp', type: 'APP_GROUP', profile: { name: 'AD Staff' }, members: new Set() });
    expect(await client.groups.addMember(group(await client.groups.find('AD Staff')), userId)).toMatchObject({ kind: 'failed', retryable: false, message: 'HTTP 400: Unsupported operation.' });
    expect((await client.groups.addMember({ id: '00gnone', name: 'Gone' }, userId)).kind).toBe('gone');
    client.close();
  });
});

describe('Microsoft Graph groups', () => {
  const adapter = () =>
    microsoftGraphAdapter(
      platformClient(
        { platform: 'active_directory', apiType: 'REST', baseUrl: `${graph.origin}/v1.0`, authMethod: 'oauth2', credentials: { clientId: graph.oauth.clientId, clientSecret: graph.oauth.clientSecret, tokenUrl: graph.oauth.tokenUrl }, apiConfig: {} },
        { allowedOrigins: [graph.origin] },
      ),
      { domain: graph.domain },
    );

  it('filters by displayName, creates a security group with a mailNickname, adds by $ref and removes', async () => {
    const client = adapter();
    const userId = await created(client, 3);
    expect(await client.groups.find("O'Brien Team")).toBeUndefined();
    const team = group(await client.groups.create("O'Brien Team"));
    const posted = graph.received.find((r) => r.method === 'POST' && r.url === '/v1.0/groups')!.body as Record<string, unknown>;
    expect(posted).toMatchObject({ displayName: "O'Brien Team", mailEnabled: false, securityEnabled: true });
    expect(String(posted.mailNickname)).toMatch(/^OBrienTeam[0-9a-f]{8}$/);
    expect(await client.groups.find("o'brien team")).toEqual({ id: team.id, name: "O'Brien Team" });
    expect(graph.received.some((r) => decodeURIComponent(r.url).includes("$filter=displayName eq 'O''Brien Team'"))).toBe(true);
    expect(await client.groups.addMember(team, userId)).toEqual({ kind: 'done', detail: `Added to the group "O'Brien Team" in Microsoft Entra ID.` });
    const ref = graph.received.find((r) => r.url.endsWith('/members/$ref'))!;
    expect(ref.body).toEqual({ '@odata.id': `https://graph.microsoft.com/v1.0/directoryObjects/${userId}` });
    // Graph's 400 "One or more added object references already exist": done, one membership.
    expect((await client.groups.addMember(team, userId)).kind).toBe('done');
    expect([...graph.groups.get(team.id)!.members]).toEqual([userId]);
    expect((await client.groups.removeMember(team, userId)).kind).toBe('done');
    expect(graph.received.some((r) => r.method === 'DELETE' && r.url === `/v1.0/groups/${team.id}/members/${userId}/$ref`)).toBe(true);
    expect((await client.groups.removeMember(team, userId)).kind).toBe('done');
    expect((await client.groups.addMember({ id: 'no-such-group', name: 'Gone' }, userId)).kind).toBe('gone');
    expect((await client.capabilities()).lifecycle.groups).toEqual(GRAPH_LIFECYCLE.groups);
    client.close();
  });
});

describe('Salesforce permission sets and public groups', () => {
  const adapter = () =>
    salesforceAdapter(
      platformClient(
        { platform: 'salesforce', apiType: 'REST', baseUrl: salesforce.origin, authMethod: 'oauth2', credentials: { clientId: 'connected-app', clientSecret: 'right-secret' }, apiConfig: {} },
        { allowedOrigins: [salesforce.origin] },
      ),
      { usernameDomain: 'acme.example', profileId: '00e5g000001AbCdEFG' },
    );

  it('a permission set (by label) is assigned once and taken away', async () => {
    const client = adapter();
    const userId = await created(client, 4);
    salesforce.state.permissionSets.set('0PS1', { Id: '0PS1', Name: 'Sales_Console', Label: 'Sales Console' });
    const set = group(await client.groups.find('Sales Console'));
    expect(set).toEqual({ id: '0PS1', name: 'Sales Console', type: 'permissionSet' });
    expect(await client.groups.addMember(set, userId)).toEqual({ kind: 'done', detail: 'Given the permission set "Sales Console" in Salesforce.' });
    expect(salesforce.state.received.find((r) => r.method === 'POST' && r.path === `${SALESFORCE_TEST_VERSION}/sobjects/PermissionSetAssignment`)?.body).toEqual({ AssigneeId: userId, PermissionSetId: '0PS1' });
    // DUPLICATE_VALUE: done, one assignment.
    expect(await client.groups.addMember(set, userId)).toEqual({ kind: 'done', detail: 'Already had the permission set "Sales Console" in Salesforce.' });
    expect(salesforce.state.assignments.size).toBe(1);
    expect((await client.groups.removeMember(set, userId)).kind).toBe('done');
    expect(salesforce.state.assignments.size).toBe(0);
    expect(await client.groups.removeMember(set, userId)).toEqual({ kind: 'done', detail: 'Did not have the permission set "Sales Console" in Salesforce: nothing to remove.' });
    client.close();
  });

  it('a missing name is created as a public group (DeveloperName), joined by GroupMember and left', async () => {
    const client = adapter();
    const userId = await created(client, 5);
    expect(await client.groups.find('Field Team 2026')).toBeUndefined();
    const team = group(await client.groups.create('Field Team 2026'));
    expect(team).toMatchObject({ name: 'Field Team 2026', type: 'publicGroup' });
    expect(salesforce.state.groups.get(team.id)).toMatchObject({ Name: 'Field Team 2026', DeveloperName: 'Field_Team_2026', Type: 'Regular' });
    // DUPLICATE_DEVELOPER_NAME: made meanwhile, found.
    expect(await client.groups.create('Field Team 2026')).toEqual(team);
    expect((await client.groups.addMember(team, userId)).kind).toBe('done');
    expect((await client.groups.addMember(team, userId)).kind).toBe('done');
    expect([...salesforce.state.members.values()]).toEqual([{ Id: expect.any(String), GroupId: team.id, UserOrGroupId: userId }]);
    expect((await client.groups.removeMember(team, userId)).kind).toBe('done');
    expect(salesforce.state.members.size).toBe(0);
    expect((await client.groups.addMember({ id: '00Gnone', name: 'Gone', type: 'publicGroup' }, userId)).kind).toBe('gone');
    expect((await client.capabilities()).lifecycle.groups).toEqual(SALESFORCE_LIFECYCLE.groups);
    client.close();
  });
});
