import { ldapts } from '../../core/ldapts';
import type { LdapSession } from '../../integrations/ldap-connection';
import { ldapFailure } from '../../integrations/ldap-connection';
import type { CallFailure } from '../platform-client';
import type { GroupOperations, MembershipOutcome, PlatformGroup } from '../provisioning-port';
import { escapeRdnValue } from './ldap';

/**
 * Groups in an LDAP directory: OpenLDAP's groupOfNames (and groupOfUniqueNames when found) and
 * Active Directory's group, each with the member's DN in `member`. A group is found by its cn
 * anywhere in the base DN's domain (the dc= part of the base DN, so ou=Groups next to ou=People
 * is searched), and created as cn=<name> under the base DN. groupOfNames requires at least one
 * member (MUST member): a new one is created with the bind DN as its first member, and the last
 * member's removal puts the bind DN back in its place. Adding a member already there
 * (attributeOrValueExists) and removing one not there (noSuchAttribute) are done.
 */
export interface LdapGroupTarget {
  baseDn: string;
  activeDirectory: boolean;
  /** The bind DN: groupOfNames' placeholder member. */
  bindDn: string;
  timeoutMs?: number;
}

/** The dc= components of a DN (its domain), else the DN itself. */
export const domainOf = (dn: string) => {
  const parts = dn.split(/,\s*/).filter((part) => /^dc=/i.test(part));
  return parts.length ? parts.join(',') : dn;
};

export function ldapGroups(connected: () => Promise<LdapSession | CallFailure>, target: LdapGroupTarget): GroupOperations {
  const isFailure = (value: unknown): value is CallFailure => (value as CallFailure).kind === 'failed';
  const classes = target.activeDirectory ? ['group'] : ['groupOfNames'];
  const fail = (error: unknown) => ldapFailure(error, target.timeoutMs);

  const find: GroupOperations['find'] = async (name) => {
    const ldap = await connected();
    if (isFailure(ldap)) return ldap;
    try {
      const { searchEntries } = await ldap.client.search(domainOf(target.baseDn), {
        scope: 'sub',
        filter: new (ldapts().AndFilter)({ filters: [new (ldapts().OrFilter)({ filters: classes.map((value) => new (ldapts().EqualityFilter)({ attribute: 'objectClass', value })) }), new (ldapts().EqualityFilter)({ attribute: 'cn', value: name })] }),
        attributes: ['cn'],
        sizeLimit: 2,
      });
      const entry = searchEntries[0];
      return entry ? { id: entry.dn, name } : undefined;
    } catch (error) {
      if (error instanceof ldapts().NoSuchObjectError) return { kind: 'failed', retryable: false, message: `The base DN ${target.baseDn} does not exist in the directory.` };
      return fail(error);
    }
  };

  const membership = async (group: PlatformGroup, change: (ldap: LdapSession) => Promise<string>): Promise<MembershipOutcome> => {
    const ldap = await connected();
    if (isFailure(ldap)) return ldap;
    try {
      return { kind: 'done', detail: await change(ldap) };
    } catch (error) {
      if (error instanceof ldapts().NoSuchObjectError) return { kind: 'gone', detail: `The directory no longer has the group ${group.id}.` };
      return fail(error);
    }
  };

  return {
    find,
    async create(name) {
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      const dn = `cn=${escapeRdnValue(name)},${target.baseDn}`;
      try {
        await ldap.client.add(
          dn,
          target.activeDirectory
            ? [new (ldapts().Attribute)({ type: 'objectClass', values: ['top', 'group'] }), new (ldapts().Attribute)({ type: 'cn', values: [name] }), new (ldapts().Attribute)({ type: 'sAMAccountName', values: [name.slice(0, 20)] })]
            : [new (ldapts().Attribute)({ type: 'objectClass', values: ['top', 'groupOfNames'] }), new (ldapts().Attribute)({ type: 'cn', values: [name] }), new (ldapts().Attribute)({ type: 'member', values: [target.bindDn] })],
        );
        return { id: dn, name };
      } catch (error) {
        // Made meanwhile by another call: that one is the group.
        if (error instanceof ldapts().AlreadyExistsError) return (await find(name)) ?? { id: dn, name };
        if (error instanceof ldapts().NoSuchObjectError) return { kind: 'failed', retryable: false, message: `The base DN ${target.baseDn} does not exist in the directory.` };
        return fail(error);
      }
    },
    addMember: (group, dn) =>
      membership(group, async (ldap) => {
        try {
          await ldap.client.modify(group.id, [new (ldapts().Change)({ operation: 'add', modification: new (ldapts().Attribute)({ type: 'member', values: [dn] }) })]);
          return `Added to the group ${group.name} in the directory.`;
        } catch (error) {
          if (error instanceof ldapts().TypeOrValueExistsError) return `Already in the group ${group.name} in the directory.`;
          throw error;
        }
      }),
    removeMember: (group, dn) =>
      membership(group, async (ldap) => {
        const remove = new (ldapts().Change)({ operation: 'delete', modification: new (ldapts().Attribute)({ type: 'member', values: [dn] }) });
        try {
          await ldap.client.modify(group.id, [remove]);
        } catch (error) {
          if (error instanceof ldapts().NoSuchAttributeError) return `Not in the group ${group.name} in the directory: nothing to remove.`;
          // The group's last member (groupOfNames must keep one): the bind DN takes its place, in the same change.
          if (!(error instanceof ldapts().ObjectClassViolationError)) throw error;
          await ldap.client.modify(group.id, [new (ldapts().Change)({ operation: 'add', modification: new (ldapts().Attribute)({ type: 'member', values: [target.bindDn] }) }), remove]);
        }
        return `Removed from the group ${group.name} in the directory.`;
      }),
  };
}
