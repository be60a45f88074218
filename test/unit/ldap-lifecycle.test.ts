import path from 'node:path';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ldapAdapter, PPOLICY_LOCKED_FOR_GOOD, type LdapAdapterSettings } from '../../functions/provisioning/adapters/ldap';
import type { ProvisioningPerson } from '../../functions/provisioning/provisioning-port';
import { ACTIVE_DIRECTORY_LIFECYCLE, OPENLDAP_NO_PPOLICY, openLdapLifecycle } from '../../shared/schemas/lifecycle';
import { startSlapd, type Slapd } from '../support/slapd';

/**
 * The LDAP adapter's lifecycle operations (findById, update, setActive, remove) against real
 * directories: Debian's slapd with the password policy overlay (ppolicy: a locked account's bind
 * is refused) and Active Directory's user attributes (test/support/ad-user.schema; not AD
 * itself), and a slapd without ppolicy, which cannot deactivate and says so.
 */
const SHIFT = Number(process.env.TEST_PORT_SHIFT ?? 0);
let locking: Slapd;
let plain: Slapd;
let admin: Client;
const people = () => `ou=People,${locking.suffix}`;
const staff = () => `ou=Staff,${locking.suffix}`;

beforeAll(async () => {
  // 17393-17394 (ldap://, ldaps://) and 17395: beside test/unit/ldap-provisioning.test.ts's 17389-17390.
  locking = await startSlapd({
    port: 17393 + SHIFT,
    tls: true,
    ppolicy: true,
    schemas: [path.join(import.meta.dirname, '..', 'support', 'ad-user.schema')],
    ldif: 'dn: ou=Staff,dc=example,dc=org\nobjectClass: organizationalUnit\nou: Staff\n',
  });
  plain = await startSlapd({ port: 17395 + SHIFT });
  admin = new Client({ url: locking.url });
  await admin.bind(locking.rootDn, locking.rootPassword);
}, 30_000);

afterAll(async () => {
  await admin?.unbind();
  await locking?.stop();
  await plain?.stop();
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
const changes = { firstName: 'Janet', lastName: 'Smith', email: 'janet.smith@people.example' };

const openldap = (server = locking, password = locking.rootPassword, settings: Partial<LdapAdapterSettings> = {}) =>
  ldapAdapter({ baseUrl: server.url, credentials: { username: server.rootDn, password } }, { baseDn: `ou=People,${server.suffix}`, ...settings }, { allowedOrigins: [server.url] });
const activeDirectory = () =>
  ldapAdapter(
    { baseUrl: locking.secureUrl!, credentials: { username: locking.rootDn, password: locking.rootPassword } },
    { baseDn: staff(), directory: 'active_directory' },
    { allowedOrigins: [locking.secureUrl!], tls: { ca: locking.certificate } },
  );

const read = async (dn: string) => (await admin.search(dn, { scope: 'base', attributes: ['*', 'pwdAccountLockedTime'] }).catch(() => ({ searchEntries: [] }))).searchEntries[0];
/** ppolicy's lock on the entry (an operational attribute, read when asked for; ldapts answers [] when absent). */
const lockedTime = async (dn: string) => [(await read(dn))?.pwdAccountLockedTime ?? []].flat()[0];
const binds = async (dn: string, password: string, url = locking.url) => {
  const client = new Client({ url });
  try {
    await client.bind(dn, password);
    return true;
  } catch {
    return false;
  } finally {
    await client.unbind().catch(() => undefined);
  }
};

async function created(ldap: ReturnType<typeof openldap>, p: ProvisioningPerson): Promise<string> {
  const [outcome] = await ldap.create([p]);
  expect(outcome?.kind).toBe('created');
  return (outcome as { externalId: string }).externalId;
}

describe('OpenLDAP with the password policy overlay (ppolicy)', () => {
  it('says what it can do: update, rename, lock and unlock, delete', async () => {
    const ldap = openldap();
    expect((await ldap.capabilities()).lifecycle).toEqual(openLdapLifecycle(true));
    ldap.close();
  });

  it('findById reads the entry by its DN (uid, mail, names, not locked); an entry not there is undefined', async () => {
    const ldap = openldap();
    const dn = await created(ldap, person(1));
    expect(await ldap.findById(dn)).toEqual({ externalId: dn, userName: 'jdoe1', emails: ['jane.doe1@people.example'], active: true, firstName: 'Jane', lastName: 'Doe 1' });
    expect(await ldap.findById(`uid=nobody,${people()}`)).toBeUndefined();
    ldap.close();
  });

  it('update replaces givenName, sn, cn, displayName and mail; a regenerated username renames the entry (the new DN is the id), whose password still binds', async () => {
    const ldap = openldap();
    const dn = await created(ldap, person(2));
    expect(await ldap.update(dn, changes)).toEqual({ kind: 'done', detail: 'Updated in the directory.' });
    expect(await read(dn)).toMatchObject({ uid: 'jdoe2', givenName: 'Janet', sn: 'Smith', cn: 'Janet Smith', displayName: 'Janet Smith', mail: 'janet.smith@people.example' });

    const renamed = `uid=jsmith2,${people()}`;
    expect(await ldap.update(dn, { ...changes, username: 'jsmith2' })).toEqual({ kind: 'done', detail: `Updated in the directory, renamed to ${renamed}.`, externalId: renamed });
    expect(await read(dn)).toBeUndefined();
    // The old RDN value is dropped: the entry has the new uid only.
    expect(await read(renamed)).toMatchObject({ uid: 'jsmith2', mail: 'janet.smith@people.example' });
    expect(await binds(renamed, 'Gen-Pass-2!x')).toBe(true);
    // Redelivered: the same values again, already renamed: done, nothing else happens.
    expect(await ldap.update(renamed, { ...changes, username: 'jsmith2' })).toEqual({ kind: 'done', detail: 'Updated in the directory.' });
    ldap.close();
  });

  it('a uid already held: a conflict that says the names and mail were updated and the name was not; an entry gone is gone', async () => {
    const ldap = openldap();
    const dn = await created(ldap, person(3));
    await created(ldap, person(4));
    expect(await ldap.update(dn, { ...changes, username: 'jdoe4' })).toEqual({
      kind: 'conflict',
      message: `The entry uid=jdoe4,${people()} already exists in the directory: the names and e-mail were updated, the user name was not changed.`,
    });
    expect(await read(dn)).toMatchObject({ uid: 'jdoe3', mail: 'janet.smith@people.example' });
    expect(await read(`uid=jdoe4,${people()}`)).toMatchObject({ mail: 'jane.doe4@people.example' });
    expect(await ldap.update(`uid=nobody,${people()}`, changes)).toEqual({ kind: 'gone', detail: 'The directory no longer has this entry.' });
    ldap.close();
  });

  it('setActive false locks the account (pwdAccountLockedTime): its bind is refused; true unlocks it; both harmless twice; an entry gone', async () => {
    const ldap = openldap();
    const dn = await created(ldap, person(5));
    expect(await binds(dn, 'Gen-Pass-5!x')).toBe(true);
    expect(await ldap.setActive(dn, false)).toEqual({ kind: 'done', detail: 'Locked in the directory (ppolicy pwdAccountLockedTime).' });
    expect(await lockedTime(dn)).toBe(PPOLICY_LOCKED_FOR_GOOD);
    expect(await binds(dn, 'Gen-Pass-5!x')).toBe(false);
    expect(await ldap.findById(dn)).toMatchObject({ active: false });
    expect(await ldap.setActive(dn, false)).toMatchObject({ kind: 'done' });

    expect(await ldap.setActive(dn, true)).toEqual({ kind: 'done', detail: 'Unlocked in the directory (ppolicy).' });
    expect(await lockedTime(dn)).toBeUndefined();
    expect(await binds(dn, 'Gen-Pass-5!x')).toBe(true);
    expect(await ldap.findById(dn)).toMatchObject({ active: true });
    expect(await ldap.setActive(dn, true)).toMatchObject({ kind: 'done' });

    const gone = `uid=nobody,${people()}`;
    expect(await ldap.setActive(gone, false)).toEqual({ kind: 'done', alreadyGone: true, detail: 'The directory no longer has this entry: nothing left to deactivate.' });
    expect(await ldap.setActive(gone, true)).toEqual({ kind: 'gone', detail: 'The directory no longer has this entry: there is nothing to reactivate.' });
    ldap.close();
  });

  it('remove deletes the entry; again: already gone, which counts as done', async () => {
    const ldap = openldap();
    const dn = await created(ldap, person(6));
    expect(await ldap.remove(dn)).toEqual({ kind: 'done', action: 'deleted', detail: 'Deleted from the directory.' });
    expect(await read(dn)).toBeUndefined();
    expect(await ldap.remove(dn)).toEqual({ kind: 'done', action: 'deleted', alreadyGone: true, detail: 'The directory no longer had this entry: nothing left to delete.' });
    ldap.close();
  });

  it('a wrong bind password is refused credentials (49) for every operation; a directory that does not answer is retryable', async () => {
    const setup = openldap();
    const dn = await created(setup, person(7));
    setup.close();
    const wrong = openldap(locking, 'wrong');
    for (const outcome of [await wrong.findById(dn), await wrong.update(dn, changes), await wrong.setActive(dn, false), await wrong.setActive(dn, true), await wrong.remove(dn)]) {
      expect(outcome).toMatchObject({ kind: 'failed', retryable: false, authRefused: true, message: expect.stringMatching(/^LDAP 49 \(InvalidCredentials\)/) });
    }
    wrong.close();
    expect(await read(dn)).toMatchObject({ mail: 'jane.doe7@people.example' });
    expect(await lockedTime(dn)).toBeUndefined();

    const down = ldapAdapter({ baseUrl: 'ldap://127.0.0.1:1', credentials: { username: locking.rootDn, password: locking.rootPassword } }, { baseDn: people() }, { allowedOrigins: ['ldap://127.0.0.1:1'] });
    for (const outcome of [await down.findById(dn), await down.update(dn, changes), await down.setActive(dn, true), await down.remove(dn)]) {
      expect(outcome).toEqual({ kind: 'failed', retryable: true, message: 'The connection was refused.' });
    }
    down.close();
  });
});

describe('OpenLDAP without ppolicy', () => {
  it('cannot deactivate: says so before anyone tries, and refuses without touching the entry; update and remove work', async () => {
    const ldap = openldap(plain, plain.rootPassword);
    const lifecycle = (await ldap.capabilities()).lifecycle;
    expect(lifecycle).toEqual(openLdapLifecycle(false));
    expect(lifecycle.setActive).toEqual({ supported: false, reason: OPENLDAP_NO_PPOLICY });
    const dn = await created(ldap, person(8));
    expect(await ldap.setActive(dn, false)).toEqual({ kind: 'failed', retryable: false, message: OPENLDAP_NO_PPOLICY });
    expect(await ldap.update(dn, changes)).toMatchObject({ kind: 'done' });
    expect(await ldap.findById(dn)).toMatchObject({ active: true, firstName: 'Janet', lastName: 'Smith' });
    expect(await ldap.remove(dn)).toMatchObject({ kind: 'done', action: 'deleted' });
    ldap.close();
  });
});

describe('Active Directory mode (AD attributes on slapd over ldaps://)', () => {
  it('findById and update: names and mail; a regenerated username changes sAMAccountName and userPrincipalName and renames the entry', async () => {
    const ad = activeDirectory();
    expect((await ad.capabilities()).lifecycle).toEqual(ACTIVE_DIRECTORY_LIFECYCLE);
    const dn = await created(ad, person(9));
    expect(await ad.findById(dn)).toEqual({ externalId: `cn=jdoe9,${staff()}`, userName: 'jdoe9', emails: ['jane.doe9@people.example'], active: true, firstName: 'Jane', lastName: 'Doe 9' });
    const renamed = `CN=jsmith9,${staff()}`;
    expect(await ad.update(dn, { ...changes, username: 'jsmith9' })).toEqual({ kind: 'done', detail: `Updated in the directory, renamed to ${renamed}.`, externalId: renamed });
    expect(await read(renamed)).toMatchObject({ cn: 'jsmith9', sAMAccountName: 'jsmith9', userPrincipalName: 'jsmith9@example.org', givenName: 'Janet', sn: 'Smith', displayName: 'Janet Smith', mail: 'janet.smith@people.example', userAccountControl: '512' });
    expect(await read(dn)).toBeUndefined();
    // A name AD cannot hold is refused before anything changes.
    expect(await ad.update(renamed, { ...changes, username: 'a-name-far-too-long-for-sam' })).toEqual({ kind: 'failed', retryable: false, message: expect.stringContaining('cannot be an Active Directory sAMAccountName') });
    expect(await read(renamed)).toMatchObject({ sAMAccountName: 'jsmith9' });
    ad.close();
  });

  it('setActive sets and clears ACCOUNTDISABLE in userAccountControl, keeping the other flags; remove deletes the entry', async () => {
    const ad = activeDirectory();
    const dn = await created(ad, person(10));
    expect(await ad.setActive(dn, false)).toEqual({ kind: 'done', detail: 'Disabled in Active Directory (userAccountControl ACCOUNTDISABLE).' });
    expect(await read(dn)).toMatchObject({ userAccountControl: '514' });
    expect(await ad.findById(dn)).toMatchObject({ active: false });
    expect(await ad.setActive(dn, false)).toMatchObject({ kind: 'done' });
    expect(await read(dn)).toMatchObject({ userAccountControl: '514' });
    expect(await ad.setActive(dn, true)).toEqual({ kind: 'done', detail: 'Enabled in Active Directory.' });
    expect(await read(dn)).toMatchObject({ userAccountControl: '512' });
    expect(await ad.setActive(`CN=nobody,${staff()}`, false)).toMatchObject({ kind: 'done', alreadyGone: true });
    expect(await ad.remove(dn)).toEqual({ kind: 'done', action: 'deleted', detail: 'Deleted from the directory.' });
    expect(await read(dn)).toBeUndefined();
    ad.close();
  });
});
