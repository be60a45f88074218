import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import { PREVIEW_SECRET, SCIM_ENTERPRISE_USER, type AttributePreview } from '../../shared/schemas/attribute-mapping';
import { apiUser, upgradeToPro, type ApiUser } from '../support/api';
import { startSlapd, type Slapd } from '../support/slapd';
import { until } from '../support/until';

/**
 * Extra columns mapped to a platform's attributes (issue 28 item 5): through the API and the
 * workers, to the real local SCIM directory (scimmy, the enterprise extension) and a real slapd;
 * created with the mapped values, updated by 'Update on <platform>' after an Edit; the mapping's
 * preview shows the request the adapter would send, without secrets.
 */
const FILE = ['First Name,Last Name,Email,Department,Title,Phone,Employee ID,Cost Center', 'Ann,Mapped,ann.mapped@example.org,Sales,Rep,+1 555 0100,E-1,C1', 'Bob,Plain,bob.plain@example.org,,,,,'].join('\n');

const scim = () => inject('stack').scim;
type ScimResource = Record<string, unknown> & { id: string; title?: string; phoneNumbers?: { value: string; type: string }[] };
async function scimUser(userName: string): Promise<ScimResource> {
  const response = await fetch(`${scim().url}/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`, { headers: { authorization: `Bearer ${scim().token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { Resources: ScimResource[] }).Resources[0]!;
}

const finished = (user: ApiUser, path: string) =>
  until(path, () => user.json<ProvisioningJob | AccountActionJob>(path), (job) => job.status === 'completed' || job.status === 'failed' || job.status === 'paused', 60_000, 200);

async function createAndProvision(user: ApiUser, integrationId: string, name: string) {
  const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', { body: { projectName: name, csvText: FILE, apiIntegrationId: integrationId, createExternalAccounts: true } });
  expect(created.summary.provisioningJobId).toBeTruthy();
  expect(await finished(user, `/api/provisioning-jobs/${created.summary.provisioningJobId}`)).toMatchObject({ status: 'completed', synced: 2 });
  const accounts = (await user.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=10`)).items;
  return { project: created.project, ann: accounts.find((a) => a.firstName === 'Ann')!, bob: accounts.find((a) => a.firstName === 'Bob')! };
}

/** Edit an account's extra columns, then 'Update on <platform>' for it. */
async function editAndUpdate(user: ApiUser, account: AccountView, attributes: Record<string, string>) {
  const edit = await user.call(`/api/accounts/${account.id}`, { method: 'PUT', body: { firstName: account.firstName, lastName: account.lastName, email: account.email, attributes } });
  expect(edit.status, await edit.clone().text()).toBe(200);
  const started = await user.call(`/api/projects/${account.projectId}/account-actions`, { body: { action: 'update', accountIds: [account.id] } });
  expect(started.status, await started.clone().text()).toBe(202);
  const { job } = (await started.json()) as { job: AccountActionJob };
  expect(await finished(user, `/api/account-actions/${job.id}`)).toMatchObject({ status: 'completed', done: 1, failed: 0 });
}

describe('mapped extra columns on the local SCIM directory (enterprise extension)', () => {
  let user: ApiUser;
  let integration: Integration;
  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
    const response = await user.call('/api/integrations', {
      body: {
        name: 'Local SCIM directory',
        platform: 'custom',
        baseUrl: scim().url,
        authMethod: 'bearer_token',
        authConfig: { token: scim().token },
        // The default mapping, and the cost center to the enterprise extension too.
        apiConfig: { testPath: '/ServiceProviderConfig', provisioning: { attributeMapping: { department: 'enterprise.department', title: 'title', phone: 'phoneNumbers.work', employeeId: 'enterprise.employeeNumber', costCenter: 'enterprise.costCenter' } } },
      },
    });
    expect(response.status, await response.clone().text()).toBe(201);
    integration = (await response.json()) as Integration;
  });

  it('creates the people with their mapped values, and an Edit reaches the directory with Update', async () => {
    const { ann, bob } = await createAndProvision(user, integration.id, 'SCIM columns');
    const onServer = await scimUser(ann.username);
    expect(onServer.title).toBe('Rep');
    expect(onServer.phoneNumbers).toEqual([expect.objectContaining({ value: '+1 555 0100', type: 'work' })]);
    expect(onServer[SCIM_ENTERPRISE_USER]).toMatchObject({ department: 'Sales', employeeNumber: 'E-1', costCenter: 'C1' });
    const plain = await scimUser(bob.username);
    expect(plain.title).toBeUndefined();
    expect(plain[SCIM_ENTERPRISE_USER]).toBeUndefined();

    // Department changed, title and phone removed: replaced and removed on the directory.
    await editAndUpdate(user, ann, { department: 'Marketing', employeeId: 'E-1', costCenter: 'C1' });
    const updated = await scimUser(ann.username);
    expect(updated[SCIM_ENTERPRISE_USER]).toMatchObject({ department: 'Marketing', employeeNumber: 'E-1' });
    expect(updated.title).toBeUndefined();
    expect(updated.phoneNumbers ?? []).toEqual([]);
  }, 120_000);

  it('previews the request the adapter would send for one person, without the password or the token; Pro only; refuses a mapping the platform cannot take', async () => {
    const preview = await user.json<AttributePreview>(`/api/integrations/${integration.id}/attribute-preview`, {
      body: { person: { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', attributes: { Department: 'Sales', costCenter: 'C1' } } },
    });
    expect(preview).toMatchObject({ target: 'scim', isDefault: false, mapped: { 'enterprise.department': 'Sales', 'enterprise.costCenter': 'C1' } });
    expect(preview.request).toMatchObject({ method: 'POST', path: '/Users', body: { password: PREVIEW_SECRET, [SCIM_ENTERPRISE_USER]: { department: 'Sales', costCenter: 'C1' } } });
    expect(JSON.stringify(preview)).not.toContain(scim().token);
    // An unsaved mapping of the form; the sample person when none is given.
    const unsaved = await user.json<AttributePreview>(`/api/integrations/${integration.id}/attribute-preview`, { body: { attributeMapping: { title: 'nickName' } } });
    expect(unsaved.request).toMatchObject({ body: { nickName: 'Analyst' } });
    const refused = await user.call(`/api/integrations/${integration.id}/attribute-preview`, { body: { attributeMapping: { title: 'jobTitle' } } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toBe('Title: "jobTitle" is not an attribute this platform takes');
    // Saving a mapping the platform cannot take is refused the same way.
    const badSave = await user.call(`/api/integrations/${integration.id}`, {
      method: 'PUT',
      body: { name: integration.name, platform: 'custom', baseUrl: integration.baseUrl, authMethod: 'bearer_token', apiConfig: { provisioning: { attributeMapping: { title: 'jobTitle' } } } },
    });
    expect(badSave.status).toBe(400);

    const stranger = await apiUser();
    await upgradeToPro(stranger);
    expect((await stranger.call(`/api/integrations/${integration.id}/attribute-preview`, { body: {} })).status).toBe(404);
    const free = await apiUser();
    expect((await free.call(`/api/integrations/${integration.id}/attribute-preview`, { body: {} })).status).toBe(403);
  });
});

describe('mapped extra columns on an LDAP directory (slapd)', () => {
  let user: ApiUser;
  let slapd: Slapd;
  let admin: Client;
  let integration: Integration;
  const baseDn = () => `ou=People,${slapd.suffix}`;
  beforeAll(async () => {
    user = await apiUser();
    await upgradeToPro(user);
    slapd = await startSlapd({ port: Number(new URL(inject('stack').fakeDirectoryOrigin).port) });
    admin = new Client({ url: slapd.url });
    await admin.bind(slapd.rootDn, slapd.rootPassword);
    integration = await user.json<Integration>('/api/integrations', {
      body: {
        name: 'Corp directory',
        platform: 'active_directory',
        baseUrl: slapd.url,
        authMethod: 'basic_auth',
        authConfig: { username: slapd.rootDn, password: slapd.rootPassword },
        apiConfig: { provisioning: { ldap: { baseDn: baseDn(), directory: 'openldap' } } },
      },
    });
  });
  afterAll(async () => {
    await admin?.unbind();
    await slapd?.stop();
  });

  it("creates the entries with the default mapping's attributes (inetOrgPerson), and an Edit reaches them with Update", async () => {
    const { ann, bob } = await createAndProvision(user, integration.id, 'LDAP columns');
    const entry = async (username: string) =>
      (await admin.search(baseDn(), { scope: 'one', filter: `(uid=${username})`, attributes: ['departmentNumber', 'title', 'telephoneNumber', 'employeeNumber'] })).searchEntries[0]!;
    expect(await entry(ann.username)).toMatchObject({ departmentNumber: 'Sales', title: 'Rep', telephoneNumber: '+1 555 0100', employeeNumber: 'E-1' });
    // ldapts lists an attribute asked for and absent as [].
    expect((await entry(bob.username)).departmentNumber ?? []).toEqual([]);

    await editAndUpdate(user, ann, { department: 'Marketing', employeeId: 'E-1', costCenter: 'C1' });
    const updated = await entry(ann.username);
    expect(updated).toMatchObject({ departmentNumber: 'Marketing', employeeNumber: 'E-1' });
    expect(updated.title ?? []).toEqual([]);
    expect(updated.telephoneNumber ?? []).toEqual([]);

    // The preview of an LDAP integration is the add: its DN and attributes, the password hidden.
    const preview = await user.json<AttributePreview>(`/api/integrations/${integration.id}/attribute-preview`, { body: {} });
    expect(preview).toMatchObject({ target: 'openldap', isDefault: true, request: { operation: 'add', attributes: { departmentNumber: ['Research'], userPassword: [PREVIEW_SECRET] } } });
    expect(JSON.stringify(preview)).not.toContain(slapd.rootPassword);
  }, 120_000);
});
