import path from 'node:path';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnection, type ConnectionTarget } from '../../functions/integrations/connection-test';
import { adapterFactory } from '../../functions/provisioning/adapters';
import { ldapAdapter, sshaPassword, type LdapAdapterSettings } from '../../functions/provisioning/adapters/ldap';
import type { IntegrationRecord } from '../../functions/integrations/integration-record';
import type { ProvisioningPerson } from '../../functions/provisioning/provisioning-port';
import { createIntegrationSchema } from '../../shared/schemas/integrations';
import { openLdapLifecycle } from '../../shared/schemas/lifecycle';
import { provisioningSupport } from '../../shared/schemas/provisioning';
import { startSlapd, type Slapd } from '../support/slapd';

/**
 * LDAP provisioning against a real directory: Debian's slapd on loopback (test/support/slapd.ts),
 * plain ldap:// and ldaps:// with a self-signed certificate. Active Directory mode runs on the
 * same slapd with AD's user attributes (test/support/ad-user.schema): the attribute names, syntaxes
 * and the disable by userAccountControl are checked by a real server, but it is not AD itself.
 */
const PORT = 17389 + Number(process.env.TEST_PORT_SHIFT ?? 0);

let slapd: Slapd;
let admin: Client;
const people = (suffix: string) => `ou=People,${suffix}`;
const staff = (suffix: string) => `ou=Staff,${suffix}`;

beforeAll(async () => {
  slapd = await startSlapd({
    port: PORT,
    tls: true,
    idleTimeoutSeconds: 1,
    schemas: [path.join(import.meta.dirname, '..', 'support', 'ad-user.schema')],
    ldif: [
      'dn: ou=Staff,dc=example,dc=org\nobjectClass: organizationalUnit\nou: Staff\n',
      'dn: uid=reader,dc=example,dc=org\nobjectClass: account\nobjectClass: simpleSecurityObject\nuid: reader\nuserPassword: reader-secret\n',
    ].join('\n'),
  });
  admin = new Client({ url: slapd.url });
  await admin.bind(slapd.rootDn, slapd.rootPassword);
}, 30_000);

afterAll(async () => {
  await admin?.unbind();
  await slapd?.stop();
});

const person = (n: number, overrides: Partial<ProvisioningPerson> = {}): ProvisioningPerson => ({
  accountId: `acc-${n}`,
  username: `jdoe${n}`,
  password: `Gen-Pass-${n}!x`,
  firstName: 'Jane',
  lastName: `Doe ${n}`,
  email: `jane.doe${n}@people.example`,
  ...overrides,
});

const openldap = (credentials = { username: 'cn=admin,dc=example,dc=org', password: 'admin-secret' }, settings: Partial<LdapAdapterSettings> = {}) =>
  ldapAdapter({ baseUrl: slapd.url, credentials }, { baseDn: people(slapd.suffix), ...settings }, { allowedOrigins: [slapd.url] });

/** AD mode on the ldaps:// port, or (plain) on the ldap:// port without TLS, or upgraded with StartTLS when given the CA. */
const activeDirectory = (url = slapd.secureUrl!, tls = url.startsWith('ldaps:')) =>
  ldapAdapter(
    { baseUrl: url, credentials: { username: slapd.rootDn, password: slapd.rootPassword } },
    { baseDn: staff(slapd.suffix), directory: 'active_directory' },
    { allowedOrigins: [url], ...(tls ? { tls: { ca: slapd.certificate } } : {}) },
  );

const read = async (dn: string) => (await admin.search(dn, { scope: 'base', attributes: ['*'] }).catch(() => ({ searchEntries: [] }))).searchEntries[0];

describe('LDAP provisioning against a real slapd (OpenLDAP: inetOrgPerson)', () => {
  it('adds each person under the base DN with a hashed password the person can bind with', async () => {
    const ldap = openldap();
    expect(await ldap.capabilities()).toMatchObject({ batchSize: 1, undo: 'delete' });
    const outcomes = await ldap.create([person(1), person(2, { username: 'o,brien+x' })]);
    ldap.close();
    expect(outcomes).toEqual([
      { kind: 'created', externalId: `uid=jdoe1,${people(slapd.suffix)}` },
      { kind: 'created', externalId: `uid=o\\,brien\\+x,${people(slapd.suffix)}` },
    ]);
    const entry = await read(`uid=jdoe1,${people(slapd.suffix)}`);
    expect(entry).toMatchObject({ uid: 'jdoe1', cn: 'Jane Doe 1', sn: 'Doe 1', givenName: 'Jane', displayName: 'Jane Doe 1', mail: 'jane.doe1@people.example' });
    expect(entry!.objectClass).toEqual(expect.arrayContaining(['inetOrgPerson']));
    expect(String(entry!.userPassword)).toMatch(/^\{SSHA\}/);
    expect(String(entry!.userPassword)).not.toContain('Gen-Pass');
    // The directory checks the generated password itself: the person can sign in with it.
    const asPerson = new Client({ url: slapd.url });
    await expect(asPerson.bind(`uid=jdoe1,${people(slapd.suffix)}`, 'Gen-Pass-1!x')).resolves.toBeUndefined();
    await asPerson.unbind();
    const wrong = new Client({ url: slapd.url });
    await expect(wrong.bind(`uid=jdoe1,${people(slapd.suffix)}`, 'not-it')).rejects.toThrow();
    await wrong.unbind();
  });

  it('an existing uid is looked up: linked when its mail is the person\'s, conflict with the holder otherwise', async () => {
    const ldap = openldap();
    await ldap.create([person(3)]);
    const [same] = await ldap.create([person(3, { email: 'JANE.DOE3@people.example' })]);
    const [other] = await ldap.create([person(3, { email: 'someone@else.example', accountId: 'acc-x' })]);
    ldap.close();
    expect(same).toEqual({ kind: 'linked', externalId: `uid=jdoe3,${people(slapd.suffix)}` });
    expect(other).toEqual({ kind: 'conflict', message: 'The user name "jdoe3" is already taken on the platform by another person (jane.doe3@people.example).' });
    expect(await read(`uid=jdoe3,${people(slapd.suffix)}`)).toMatchObject({ mail: 'jane.doe3@people.example' });
    // The dry run's second lookup, by mail (case-insensitive, as mail's matching rule is).
    const byMail = openldap();
    expect(await byMail.findByEmail!('Jane.Doe3@People.example')).toEqual({ externalId: `uid=jdoe3,${people(slapd.suffix)}`, userName: 'jdoe3', emails: ['jane.doe3@people.example'] });
    expect(await byMail.findByEmail!('nobody@people.example')).toBeUndefined();
    byMail.close();
  });

  it('undo deletes the entry; an entry already gone answers gone', async () => {
    const ldap = openldap();
    const [created] = await ldap.create([person(4)]);
    const dn = (created as { externalId: string }).externalId;
    expect(await ldap.undo(dn)).toEqual({ kind: 'undone', action: 'deleted' });
    expect(await read(dn)).toBeUndefined();
    expect(await ldap.undo(dn)).toEqual({ kind: 'gone' });
    expect(await ldap.find({ username: 'jdoe4', email: '' })).toBeUndefined();
    ldap.close();
  });

  it('refused credentials pause, not fail: a wrong bind password (49) and a bind DN that may not write (50)', async () => {
    const wrong = openldap({ username: slapd.rootDn, password: 'wrong' });
    const [refused] = await wrong.create([person(5)]);
    wrong.close();
    expect(refused).toMatchObject({ kind: 'failed', retryable: false, authRefused: true, message: expect.stringMatching(/^LDAP 49 \(InvalidCredentials\).*the bind DN or its password was refused/) });

    const reader = openldap({ username: `uid=reader,${slapd.suffix}`, password: 'reader-secret' });
    const [forbidden] = await reader.create([person(5)]);
    reader.close();
    expect(forbidden).toMatchObject({ kind: 'failed', retryable: false, authRefused: true, message: expect.stringMatching(/^LDAP 50 \(InsufficientAccess\).*the bind DN may not do this/) });
    expect(await read(`uid=jdoe5,${people(slapd.suffix)}`)).toBeUndefined();
  });

  it('binds again when the directory closed an idle connection (never an anonymous add)', async () => {
    const ldap = openldap();
    expect(await ldap.create([person(14)])).toMatchObject([{ kind: 'created' }]);
    // slapd here closes connections idle for 1 s.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await ldap.create([person(15)])).toEqual([{ kind: 'created', externalId: `uid=jdoe15,${people(slapd.suffix)}` }]);
    ldap.close();
  });

  it('a base DN that does not exist fails with what to fix; a stopped directory is retryable', async () => {
    const ldap = openldap(undefined, { baseDn: `ou=Nowhere,${slapd.suffix}` });
    const [missing] = await ldap.create([person(6)]);
    ldap.close();
    expect(missing).toEqual({ kind: 'failed', retryable: false, message: `The base DN ou=Nowhere,${slapd.suffix} does not exist in the directory.` });

    const closed = ldapAdapter({ baseUrl: 'ldap://127.0.0.1:1', credentials: { username: slapd.rootDn, password: slapd.rootPassword } }, { baseDn: people(slapd.suffix) }, { allowedOrigins: ['ldap://127.0.0.1:1'] });
    const [down] = await closed.create([person(6)]);
    closed.close();
    expect(down).toEqual({ kind: 'failed', retryable: true, message: 'The connection was refused.' });
  });
});

describe('Reset Passwords and Require password change on a real slapd', () => {
  it('OpenLDAP: setPassword replaces userPassword ({SSHA}): the new password binds, the old one no longer; a gone entry answers gone', async () => {
    const ldap = openldap();
    const [created] = await ldap.create([person(30)]);
    const dn = (created as { externalId: string }).externalId;
    expect(await ldap.setPassword(dn, { username: 'jdoe30', password: 'Reset-Pass-30!y' })).toEqual({ kind: 'updated' });
    expect(String((await read(dn))?.userPassword)).toMatch(/^\{SSHA\}/);
    const asPerson = new Client({ url: slapd.url });
    await expect(asPerson.bind(dn, 'Reset-Pass-30!y')).resolves.toBeUndefined();
    await asPerson.unbind();
    const old = new Client({ url: slapd.url });
    await expect(old.bind(dn, 'Gen-Pass-30!x')).rejects.toThrow();
    expect(await ldap.setPassword(`uid=nobody,${people(slapd.suffix)}`, { username: 'nobody', password: 'Reset-Pass-30!y' })).toEqual({ kind: 'gone' });
    // No password policy overlay here: the flag is asked for but cannot be applied, and nothing else is written.
    const asked = ldapAdapter({ baseUrl: slapd.url, credentials: { username: slapd.rootDn, password: slapd.rootPassword } }, { baseDn: people(slapd.suffix) }, { allowedOrigins: [slapd.url] }, { requirePasswordChange: true });
    expect((await asked.capabilities()).mustChangePassword).toEqual({ supported: false, reason: expect.stringContaining('no password policy overlay (ppolicy)') });
    expect(await asked.create([person(31)])).toEqual([{ kind: 'created', externalId: `uid=jdoe31,${people(slapd.suffix)}` }]);
    asked.close();
    ldap.close();
  });

  it('Active Directory: Require password change adds pwdLastSet 0; setPassword replaces unicodePwd (and sets pwdLastSet 0 again)', async () => {
    const url = slapd.secureUrl!;
    const ad = ldapAdapter(
      { baseUrl: url, credentials: { username: slapd.rootDn, password: slapd.rootPassword } },
      { baseDn: staff(slapd.suffix), directory: 'active_directory' },
      { allowedOrigins: [url], tls: { ca: slapd.certificate } },
      { requirePasswordChange: true },
    );
    expect((await ad.capabilities()).mustChangePassword).toEqual({ supported: true, how: expect.stringContaining('pwdLastSet 0') });
    const [created] = await ad.create([person(32)]);
    const dn = (created as { externalId: string }).externalId;
    expect((await read(dn))?.pwdLastSet).toBe('0');
    expect(await ad.setPassword(dn, { username: 'jdoe32', password: 'Reset-Pass-32!y' })).toEqual({ kind: 'updated' });
    const { searchEntries } = await admin.search(dn, { scope: 'base', attributes: ['unicodePwd', 'pwdLastSet'], explicitBufferAttributes: ['unicodePwd'] });
    expect((searchEntries[0]!.unicodePwd as Buffer).equals(Buffer.from('"Reset-Pass-32!y"', 'utf16le'))).toBe(true);
    expect(searchEntries[0]!.pwdLastSet).toBe('0');
    ad.close();

    // Setting off (the default): no pwdLastSet written.
    const plain = activeDirectory();
    const [other] = await plain.create([person(33)]);
    expect((await read((other as { externalId: string }).externalId))?.pwdLastSet).toBeUndefined();
    plain.close();
  });
});

describe('LDAP provisioning in Active Directory mode (AD attributes on slapd over ldaps://)', () => {
  it('adds a user with sAMAccountName, userPrincipalName, unicodePwd (UTF-16LE, quoted) and an enabled userAccountControl', async () => {
    const ad = activeDirectory();
    expect(await ad.capabilities()).toMatchObject({ batchSize: 1, undo: 'deactivate' });
    const [created] = await ad.create([person(7)]);
    expect(created).toEqual({ kind: 'created', externalId: `CN=jdoe7,${staff(slapd.suffix)}` });
    const { searchEntries } = await admin.search(`cn=jdoe7,${staff(slapd.suffix)}`, { scope: 'base', attributes: ['*'], explicitBufferAttributes: ['unicodePwd'] });
    const entry = searchEntries[0]!;
    expect(entry).toMatchObject({ sAMAccountName: 'jdoe7', userPrincipalName: 'jdoe7@example.org', userAccountControl: '512', mail: 'jane.doe7@people.example', displayName: 'Jane Doe 7' });
    expect((entry.unicodePwd as Buffer).equals(Buffer.from('"Gen-Pass-7!x"', 'utf16le'))).toBe(true);
    expect(await ad.find({ username: 'JDOE7', email: '' })).toEqual({ externalId: `cn=jdoe7,${staff(slapd.suffix)}`, userName: 'jdoe7', emails: ['jane.doe7@people.example'], active: true });

    // The same person again (a redelivered chunk): linked, nobody added twice.
    expect(await ad.create([person(7)])).toEqual([{ kind: 'linked', externalId: `cn=jdoe7,${staff(slapd.suffix)}` }]);
    ad.close();
  });

  it('undo disables (userAccountControl | ACCOUNTDISABLE), keeping the entry', async () => {
    const ad = activeDirectory();
    const [created] = await ad.create([person(8)]);
    const dn = (created as { externalId: string }).externalId;
    expect(await ad.undo(dn)).toEqual({ kind: 'undone', action: 'deactivated' });
    expect(await read(dn)).toMatchObject({ userAccountControl: '514', sAMAccountName: 'jdoe8' });
    expect(await ad.find({ username: 'jdoe8', email: '' })).toMatchObject({ active: false });
    // Provisioned again after the undo: linked and enabled again.
    expect(await ad.create([person(8)])).toEqual([{ kind: 'linked', externalId: `cn=jdoe8,${staff(slapd.suffix)}` }]);
    expect(await read(dn)).toMatchObject({ userAccountControl: '512' });
    expect(await ad.undo(`CN=nobody,${staff(slapd.suffix)}`)).toEqual({ kind: 'gone' });
    ad.close();
  });

  it('refuses to send a password in clear, and names that AD cannot hold', async () => {
    const plain = activeDirectory(slapd.url);
    const [clear] = await plain.create([person(9)]);
    plain.close();
    expect(clear).toEqual({ kind: 'failed', retryable: false, message: 'Active Directory takes a password (unicodePwd) only over an encrypted connection: use an ldaps:// URL.' });
    const ad = activeDirectory();
    const [long] = await ad.create([person(10, { username: 'a-very-long-user-name-indeed' })]);
    ad.close();
    expect(long).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('cannot be an Active Directory sAMAccountName (at most 20 characters') });
    expect(await read(`cn=jdoe9,${staff(slapd.suffix)}`)).toBeUndefined();
  });

  it('ldap:// upgraded with StartTLS before the bind is an encrypted connection too', async () => {
    const ad = activeDirectory(slapd.url, true);
    const [created] = await ad.create([person(13)]);
    ad.close();
    expect(created).toEqual({ kind: 'created', externalId: `CN=jdoe13,${staff(slapd.suffix)}` });
    expect(await read(`cn=jdoe13,${staff(slapd.suffix)}`)).toMatchObject({ sAMAccountName: 'jdoe13', userAccountControl: '512' });
  });

  it('an untrusted certificate is refused (the CA is not skipped)', async () => {
    const ad = ldapAdapter({ baseUrl: slapd.secureUrl!, credentials: { username: slapd.rootDn, password: slapd.rootPassword } }, { baseDn: staff(slapd.suffix), directory: 'active_directory' }, { allowedOrigins: [slapd.secureUrl!] });
    const [outcome] = await ad.create([person(11)]);
    ad.close();
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('TLS certificate was not accepted') });
  });
});

describe('the SSRF guard applies to LDAP hosts', () => {
  const attempt = async (baseUrl: string, lookup?: (host: string, options: object, callback: (error: Error | null, addresses: { address: string; family: number }[]) => void) => void) => {
    const ldap = ldapAdapter({ baseUrl, credentials: { username: slapd.rootDn, password: slapd.rootPassword } }, { baseDn: people(slapd.suffix) }, lookup ? { lookup: lookup as never } : {});
    const [outcome] = await ldap.create([person(12)]);
    ldap.close();
    return outcome;
  };

  it('refuses private and loopback addresses, by literal or by what the name resolves to', async () => {
    expect(await attempt('ldap://10.1.2.3')).toEqual({ kind: 'failed', retryable: false, message: 'Refused: 10.1.2.3 is a private or reserved address. Integrations may only call public https addresses.' });
    expect(await attempt(slapd.url)).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('Refused: 127.0.0.1') });
    expect(await attempt(`ldaps://localhost:${PORT + 1}`)).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('Refused: localhost') });
    // A public-looking name that resolves to loopback is refused on the socket's own lookup.
    const toLoopback = (_host: string, _options: object, callback: (error: Error | null, addresses: { address: string; family: number }[]) => void) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
    expect(await attempt(`ldap://directory.example.com:${PORT}`, toLoopback)).toMatchObject({ kind: 'failed', retryable: false, message: expect.stringContaining('Refused: directory.example.com is a private or reserved address') });
    expect(await read(`uid=jdoe12,${people(slapd.suffix)}`)).toBeUndefined();
  });
});

describe('an LDAP integration: schema, support and connection test', () => {
  const base = { name: 'Corp directory', platform: 'active_directory', authMethod: 'basic_auth', authConfig: { username: 'cn=admin,dc=example,dc=org', password: 'x' } };

  it('accepts ldap(s):// for Active Directory only, the server alone, with a bind DN', () => {
    const ok = createIntegrationSchema.parse({ ...base, baseUrl: 'ldaps://dc1.corp.example.com:636', apiConfig: { provisioning: { ldap: { baseDn: 'OU=Staff,DC=corp,DC=example,DC=com', directory: 'active_directory' } } } });
    expect(ok.apiConfig.provisioning?.ldap).toEqual({ baseDn: 'OU=Staff,DC=corp,DC=example,DC=com', directory: 'active_directory' });
    const messages = (input: object) => createIntegrationSchema.safeParse({ ...base, ...input }).error?.issues.map((i) => i.message);
    expect(messages({ platform: 'okta', baseUrl: 'ldap://dc1.corp.example.com' })).toContain('ldap:// and ldaps:// URLs are for Active Directory (LDAP) integrations; this platform needs an https URL');
    expect(messages({ baseUrl: 'ldap://dc1.corp.example.com/dc=corp' })).toContain('An LDAP URL names the server only, e.g. ldaps://dc1.corp.example.com:636 (the base DN is a provisioning setting)');
    expect(messages({ baseUrl: 'ldaps://dc1.corp.example.com', authMethod: 'bearer_token', authConfig: { token: 't' } })).toContain('An LDAP directory signs in with Basic Auth: the bind DN as the username and its password');
    expect(messages({ baseUrl: 'ldaps://dc1.corp.example.com', apiConfig: { provisioning: { ldap: { baseDn: 'People' } } } })).toContain('The base DN must be a distinguished name such as ou=People,dc=example,dc=org');
  });

  it('is a provisioning target once its base DN is set; the adapter factory picks LDAP by the URL', () => {
    expect(provisioningSupport({ platform: 'active_directory', baseUrl: 'ldaps://dc1.corp.example.com' })).toEqual({ supported: false, reason: expect.stringContaining('the base DN where people are added') });
    const record = { platform: 'active_directory', apiType: 'REST', baseUrl: slapd.url, authMethod: 'basic_auth', apiConfig: { provisioning: { ldap: { baseDn: people(slapd.suffix) } } } } as IntegrationRecord;
    expect(provisioningSupport(record)).toEqual({ supported: true });
    const adapter = adapterFactory({ allowedOrigins: [slapd.url] })(record, { username: slapd.rootDn, password: slapd.rootPassword });
    return adapter.capabilities().then((c) => {
      adapter.close();
      // This slapd has no password policy overlay: it cannot mark an entry "must change", nor lock one.
      expect(c).toEqual({
        batchSize: 1,
        undo: 'delete',
        mustChangePassword: { supported: false, reason: expect.stringContaining('no password policy overlay (ppolicy)') },
        lifecycle: openLdapLifecycle(false),
      });
    });
  });

  it('the connection test binds and reads the base DN', async () => {
    const target = (password: string, baseDn = people(slapd.suffix)): ConnectionTarget => ({
      platform: 'active_directory',
      apiType: 'REST',
      baseUrl: slapd.url,
      authMethod: 'basic_auth',
      credentials: { username: slapd.rootDn, password },
      apiConfig: { provisioning: { ldap: { baseDn } } },
    });
    expect(await testConnection(target(slapd.rootPassword), { allowedOrigins: [slapd.url] })).toEqual({ status: 'success', message: `Connected: the bind was accepted and ${people(slapd.suffix)} exists (unencrypted: a local directory).` });
    expect(await testConnection(target('wrong'), { allowedOrigins: [slapd.url] })).toMatchObject({ status: 'failed', message: expect.stringContaining('the bind DN or its password was refused') });
    expect(await testConnection(target(slapd.rootPassword, `ou=Nowhere,${slapd.suffix}`), { allowedOrigins: [slapd.url] })).toMatchObject({ status: 'failed', message: expect.stringContaining('LDAP 32') });
    expect(await testConnection(target(slapd.rootPassword))).toMatchObject({ status: 'failed', message: expect.stringContaining('Refused: 127.0.0.1') });
  });

  it('{SSHA} is SHA-1 of password and salt, then the salt', () => {
    const salt = Buffer.from('12345678');
    const value = sshaPassword('secret', salt);
    const raw = Buffer.from(value.slice(6), 'base64');
    expect(raw.subarray(20).equals(salt)).toBe(true);
    expect(value).toBe(sshaPassword('secret', salt));
    expect(value).not.toBe(sshaPassword('secret'));
  });
});
