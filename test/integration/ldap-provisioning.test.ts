import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ldapAdapter } from '../../functions/provisioning/adapters/ldap';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { startSlapd, type Slapd } from '../support/slapd';

/**
 * Provisioning to an LDAP directory through the API and the queue worker, as in use: a real slapd
 * (test/support/slapd.ts) on the stack's allowed ldap:// origin, an `active_directory` integration
 * with that ldap:// URL, its connection test (a bind), a bulk creation that provisions, and the
 * directory read back: every person there once, able to sign in with the generated password.
 */
let user: ApiUser;
let slapd: Slapd;
let admin: Client;
const baseDn = () => `ou=People,${slapd.suffix}`;

beforeAll(async () => {
  user = await apiUser();
  await upgradeToPro(user);
  slapd = await startSlapd({ port: Number(new URL(inject('stack').fakeDirectoryOrigin).port) });
  admin = new Client({ url: slapd.url });
  await admin.bind(slapd.rootDn, slapd.rootPassword);
});
afterAll(async () => {
  await admin?.unbind();
  await slapd?.stop();
});

async function waitForRun(jobId: string): Promise<ProvisioningJob> {
  const deadline = Date.now() + 25_000;
  for (;;) {
    const job = await user.json<ProvisioningJob>(`/api/provisioning-jobs/${jobId}`);
    expect(job.synced + job.failed + job.pending).toBe(job.total);
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'paused') return job;
    if (Date.now() > deadline) throw new Error(`run ${jobId} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a directory without StartTLS (this slapd has no certificate)', () => {
  it('is refused with what to do, and no password is sent in clear', async () => {
    const ldap = ldapAdapter({ baseUrl: slapd.url, credentials: { username: slapd.rootDn, password: slapd.rootPassword } }, { baseDn: baseDn() }, { allowedOrigins: [slapd.url], tls: {} });
    const [outcome] = await ldap.create([{ accountId: 'a', username: 'plain', password: 'Never-In-Clear-1', firstName: 'P', lastName: 'Lain', email: 'plain@example.org' }]);
    ldap.close();
    expect(outcome).toEqual({ kind: 'failed', retryable: false, message: 'The directory does not offer StartTLS on ldap://: use an ldaps:// URL (a password is never sent in clear).' });
  });
});

describe('provisioning to an LDAP directory (slapd) through the API', () => {
  let integration: Integration;

  it('stores an ldap:// Active Directory integration and its connection test binds', async () => {
    const created = await user.call('/api/integrations', {
      body: {
        name: 'Corp directory',
        platform: 'active_directory',
        baseUrl: slapd.url,
        authMethod: 'basic_auth',
        authConfig: { username: slapd.rootDn, password: slapd.rootPassword },
        apiConfig: { provisioning: { ldap: { baseDn: baseDn(), directory: 'openldap' } } },
      },
    });
    expect(created.status).toBe(201);
    integration = (await created.json()) as Integration;
    expect(integration.apiConfig.provisioning?.ldap).toEqual({ baseDn: baseDn(), directory: 'openldap' });
    const tested = await user.json<Integration>(`/api/integrations/${integration.id}/test`, { method: 'POST' });
    expect(tested).toMatchObject({ lastTestStatus: 'success', lastTestMessage: `Connected: the bind was accepted and ${baseDn()} exists (unencrypted: a local directory).` });

    // A private LDAP host that is not the stack's allowed origin is refused, with a clear 400.
    const refused = await user.call('/api/integrations', {
      body: { name: 'Inside', platform: 'active_directory', baseUrl: 'ldap://10.0.0.5', authMethod: 'basic_auth', authConfig: { username: 'cn=x', password: 'y' } },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('Refused: 10.0.0.5 is a private or reserved address');
  });

  it('creates every account in the directory once, with its password; a uid held by someone else fails with the reason', async () => {
    // Someone else already holds the uid the second person will get.
    const created = await user.json<{ project: Project; accounts: AccountView[] }>('/api/bulk-create', { body: { projectName: 'Directory', csvData: people(4, 'Ldap') } });
    const [, taken] = created.accounts;
    await admin.add(`uid=${taken!.username},${baseDn()}`, { objectClass: ['inetOrgPerson'], uid: taken!.username, cn: 'Someone Else', sn: 'Else', mail: 'someone.else@example.org' });

    const started = await user.call(`/api/projects/${created.project.id}/provision`, { body: { integrationId: integration.id } });
    expect(started.status).toBe(202);
    const { id: jobId } = (await started.json()) as ProvisioningJob;
    const run = await waitForRun(jobId);
    expect(run).toMatchObject({ status: 'completed', total: 4, synced: 3, failed: 1, pending: 0 });

    const accounts = (await user.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=10&showPasswords=true`)).items;
    for (const account of accounts) {
      const { searchEntries } = await admin.search(baseDn(), { scope: 'one', filter: `(uid=${account.username})`, attributes: ['mail'] });
      expect(searchEntries).toHaveLength(1);
      if (account.username === taken!.username) {
        expect(account.externalStatus).toBe('failed');
        expect(account.externalError).toBe(`The user name "${account.username}" is already taken on the platform by another person (someone.else@example.org).`);
        continue;
      }
      expect(account.externalStatus).toBe('success');
      expect(account.externalAccountId).toBe(`uid=${account.username},${baseDn()}`);
      expect(searchEntries[0]!.mail).toBe(account.email);
      const asPerson = new Client({ url: slapd.url });
      await expect(asPerson.bind(account.externalAccountId!, account.password!)).resolves.toBeUndefined();
      await asPerson.unbind();
    }

    // Check against platform (dry run) for the same people: found by uid (linked / conflict), writes nothing.
    const entries = async () => (await admin.search(baseDn(), { scope: 'one', attributes: ['1.1'] })).searchEntries.length;
    const before = await entries();
    const check = await user.json<{ results: { outcome: string }[]; summary: Record<string, number> }>(`/api/integrations/${integration.id}/check`, { method: 'POST', body: { people: people(4, 'Ldap') } });
    expect(check.summary).toEqual({ new: 0, linked: 3, conflict: 1, duplicate: 0, error: 0 });
    expect(await entries()).toBe(before);

    // Undo on platform deletes the synced entries (OpenLDAP); the local accounts are kept, marked removed.
    const undo = await user.json<ProvisioningJob>(`/api/projects/${created.project.id}/provision`, { method: 'POST', body: { integrationId: integration.id, mode: 'undo' } });
    expect(await waitForRun(undo.id)).toMatchObject({ status: 'completed', total: 3, synced: 3, failed: 0 });
    const after = (await user.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=10`)).items;
    for (const account of after) {
      const { searchEntries } = await admin.search(baseDn(), { scope: 'one', filter: `(uid=${account.username})`, attributes: ['mail'] });
      if (account.username === taken!.username) {
        expect(account.externalStatus).toBe('failed');
        expect(searchEntries).toHaveLength(1); // someone else's entry is never touched
      } else {
        expect(account.externalStatus).toBe('removed');
        expect(searchEntries).toHaveLength(0);
      }
    }
  });
});
