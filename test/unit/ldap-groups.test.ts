import { Attribute, Change, Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ldapAdapter } from '../../functions/provisioning/adapters/ldap';
import { person } from '../support/provisioning-people';
import { startSlapd, type Slapd } from '../support/slapd';

/**
 * The LDAP adapter's group operations against real slapd: a groupOfNames in ou=Groups (beside
 * ou=People: found in the base DN's domain), one created under the base DN with the bind DN as
 * its first member, a member added twice (one value), removed twice (done), and the last
 * member's removal keeping the group valid.
 */
const SHIFT = Number(process.env.TEST_PORT_SHIFT ?? 0);
let slapd: Slapd;
let admin: Client;

beforeAll(async () => {
  // 17397: beside test/unit/ldap-lifecycle.test.ts's 17393-17395.
  slapd = await startSlapd({
    port: 17397 + SHIFT,
    ldif: 'dn: ou=Groups,dc=example,dc=org\nobjectClass: organizationalUnit\nou: Groups\n\ndn: cn=Engineering,ou=Groups,dc=example,dc=org\nobjectClass: groupOfNames\ncn: Engineering\nmember: cn=admin,dc=example,dc=org\n',
  });
  admin = new Client({ url: slapd.url });
  await admin.bind(slapd.rootDn, slapd.rootPassword);
}, 30_000);

afterAll(async () => {
  await admin?.unbind();
  await slapd?.stop();
});

const adapter = () => ldapAdapter({ baseUrl: slapd.url, credentials: { username: slapd.rootDn, password: slapd.rootPassword } }, { baseDn: `ou=People,${slapd.suffix}` }, { allowedOrigins: [slapd.url] });

const membersOf = async (dn: string) => {
  const { searchEntries } = await admin.search(dn, { scope: 'base', attributes: ['member'] });
  const member = searchEntries[0]?.member;
  return (Array.isArray(member) ? member : [member]).map(String);
};

describe('LDAP groups (groupOfNames) against slapd', () => {
  it('finds a group elsewhere in the domain, adds and removes a member once', async () => {
    const ldap = adapter();
    const [created] = await ldap.create([person(41)]);
    const dn = (created as { externalId: string }).externalId;
    const group = await ldap.groups.find('Engineering');
    expect(group).toEqual({ id: 'cn=Engineering,ou=Groups,dc=example,dc=org', name: 'Engineering' });
    if (!group || 'kind' in group) throw new Error('not found');
    expect((await ldap.groups.addMember(group, dn)).kind).toBe('done');
    expect(await ldap.groups.addMember(group, dn)).toEqual({ kind: 'done', detail: 'Already in the group Engineering in the directory.' });
    expect(await membersOf(group.id)).toEqual([slapd.rootDn, dn]);
    expect(await ldap.groups.removeMember(group, dn)).toEqual({ kind: 'done', detail: 'Removed from the group Engineering in the directory.' });
    expect((await ldap.groups.removeMember(group, dn)).kind).toBe('done');
    expect(await membersOf(group.id)).toEqual([slapd.rootDn]);
    ldap.close();
  });

  it('creates a missing group under the base DN with the bind DN as first member; the last member removed leaves it valid', async () => {
    const ldap = adapter();
    const [created] = await ldap.create([person(42)]);
    const dn = (created as { externalId: string }).externalId;
    expect(await ldap.groups.find('Interns')).toBeUndefined();
    const group = await ldap.groups.create('Interns');
    expect(group).toEqual({ id: `cn=Interns,ou=People,${slapd.suffix}`, name: 'Interns' });
    if ('kind' in group) throw new Error('not created');
    // Created meanwhile by another worker: found.
    expect(await ldap.groups.create('Interns')).toEqual({ id: `cn=Interns,ou=People,${slapd.suffix}`, name: 'Interns' });
    await ldap.groups.addMember(group, dn);
    // The bind DN out of it by hand: the account is the only member.
    await admin.modify(group.id, [new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [slapd.rootDn] }) })]);
    expect(await membersOf(group.id)).toEqual([dn]);
    expect((await ldap.groups.removeMember(group, dn)).kind).toBe('done');
    expect(await membersOf(group.id)).toEqual([slapd.rootDn]);
    expect((await ldap.groups.addMember({ id: `cn=Gone,${slapd.suffix}`, name: 'Gone' }, dn)).kind).toBe('gone');
    ldap.close();
  });
});
