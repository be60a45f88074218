import { createHash, randomBytes } from 'node:crypto';
import type { Attribute, Entry } from 'ldapts';
import { ldapts } from '../../core/ldapts';
import type { LdapSettings } from '../../../shared/schemas/integrations';
import type { ConnectionTarget } from '../../integrations/connection-test';
import { ldapFailure, openLdap, type LdapOptions, type LdapSession } from '../../integrations/ldap-connection';
import type { CallFailure } from '../platform-client';
import { ACTIVE_DIRECTORY_LIFECYCLE, OPENLDAP_NO_PPOLICY, openLdapLifecycle } from '../../../shared/schemas/lifecycle';
import type {
  AccountChanges,
  AccountPolicy,
  ExternalAccount,
  MustChangeSupport,
  ProvisioningAdapter,
  ProvisioningCapabilities,
  ProvisioningOutcome,
  ProvisioningPerson,
  RemoveOutcome,
  SetActiveOutcome,
  SetPasswordOutcome,
  UndoOutcome,
  UpdateOutcome,
} from '../provisioning-port';
import { goneFrom } from '../provisioning-port';
import { ldapGroups } from './ldap-groups';

/** What a lifecycle call says of an account the directory no longer has. */
const gone = goneFrom('The directory', 'entry');

/**
 * An on-premises directory over LDAP (the `active_directory` platform with an ldap:// or ldaps://
 * URL): one add per person under the configured base DN, bound with the integration's bind DN.
 * - `openldap` (default): inetOrgPerson, RDN uid=<user name>, userPassword as {SSHA} (the
 *   scheme every OpenLDAP understands, never the password in clear); undo deletes the entry (an
 *   inetOrgPerson has no standard "disabled" state).
 * - `active_directory`: user, RDN CN=<user name>, sAMAccountName, userPrincipalName, unicodePwd
 *   (AD takes it only over an encrypted connection) and userAccountControl 512 (an enabled
 *   account); undo disables (userAccountControl | ACCOUNTDISABLE), or deletes when the
 *   integration's undo setting says so.
 * The use case paces the calls; LDAP has no batch add, so one person per call.
 */
export const AD_NORMAL_ACCOUNT = 0x200;
export const AD_ACCOUNTDISABLE = 0x2;
/** Active Directory's limit for sAMAccountName (pre-Windows 2000 logon name). */
export const SAM_ACCOUNT_NAME_MAX = 20;
const SAM_FORBIDDEN = /["/\\[\]:;|=,+*?<>@]/;

export type LdapAdapterSettings = LdapSettings & { undo?: 'deactivate' | 'delete' };

/** An RDN value escaped as RFC 4514 says (special characters, leading space or #, trailing space). */
export const escapeRdnValue = (value: string) =>
  value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^([ #])/, '\\$1')
    .replace(/ $/, '\\ ');

/** userPassword as {SSHA}: SHA-1 of the password and an 8-byte salt, then the salt (RFC 2307 style, OpenLDAP's default scheme). */
export const sshaPassword = (password: string, salt: Buffer = randomBytes(8)) =>
  `{SSHA}${Buffer.concat([createHash('sha1').update(password).update(salt).digest(), salt]).toString('base64')}`;

/** The userPrincipalName suffix: the setting, else the base DN's dc= parts (dc=corp,dc=example,dc=com: corp.example.com). */
export const upnSuffixOf = (settings: LdapSettings) =>
  settings.upnSuffix ??
  settings.baseDn
    .split(/,\s*/)
    .filter((part) => /^dc=/i.test(part))
    .map((part) => part.slice(3))
    .join('.');

const first = (value: Entry[string] | undefined): string | undefined => {
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined ? undefined : Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
};
const all = (value: Entry[string] | undefined): string[] => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v))));

/**
 * OpenLDAP's password policy overlay (ppolicy): pwdAccountLockedTime 000001010000Z locks the
 * account for good, until an administrator removes the attribute (slapo-ppolicy(5)): the bind
 * is refused (invalidCredentials) while it is set.
 */
export const PPOLICY_LOCKED_FOR_GOOD = '000001010000Z';

/** The DN's parent: everything after the first comma that is not escaped. */
const parentOf = (dn: string) => {
  const at = dn.search(/[^\\],/);
  return at < 0 ? '' : dn.slice(at + 2);
};

/** AD's "user must change password at next logon": pwdLastSet 0 (the only value besides -1 a client may write). */
export const AD_MUST_CHANGE_PWD_LAST_SET = '0';

/**
 * The entry an LDAP add creates for a person (OpenLDAP inetOrgPerson, or an Active Directory
 * user), with its mapped extra columns: what the adapter sends, and what the mapping preview shows.
 */
export function ldapEntryOf(person: ProvisioningPerson, settings: LdapAdapterSettings, secure: boolean): { dn: string; attributes: Attribute[] } | CallFailure {
  const ad = settings.directory === 'active_directory';
  const text = (type: string, ...values: string[]) => new (ldapts().Attribute)({ type, values: values.filter((v) => v !== '') });
  const displayName = `${person.firstName} ${person.lastName}`.trim() || person.username;
  // The mapped extra columns are attributes of the entry by their type (title, departmentNumber...).
  const mapped = Object.entries(person.platformAttributes ?? {}).map(([type, value]) => text(type, value));
  const common = [text('givenName', person.firstName), text('sn', person.lastName || person.username), text('displayName', displayName), text('mail', person.email), ...mapped];
  if (!ad) {
    return {
      dn: `uid=${escapeRdnValue(person.username)},${settings.baseDn}`,
      attributes: [text('objectClass', 'top', 'person', 'organizationalPerson', 'inetOrgPerson'), text('uid', person.username), text('cn', displayName), ...common, text('userPassword', sshaPassword(person.password))],
    };
  }
  if (person.username.length > SAM_ACCOUNT_NAME_MAX || SAM_FORBIDDEN.test(person.username)) {
    return { kind: 'failed', retryable: false, message: `The user name "${person.username}" cannot be an Active Directory sAMAccountName (at most ${SAM_ACCOUNT_NAME_MAX} characters, none of " / \\ [ ] : ; | = , + * ? < > @).` };
  }
  if (!secure) return { kind: 'failed', retryable: false, message: 'Active Directory takes a password (unicodePwd) only over an encrypted connection: use an ldaps:// URL.' };
  return {
    dn: `CN=${escapeRdnValue(person.username)},${settings.baseDn}`,
    attributes: [
      text('objectClass', 'top', 'person', 'organizationalPerson', 'user'),
      text('cn', person.username),
      text('sAMAccountName', person.username),
      text('userPrincipalName', `${person.username}@${upnSuffixOf(settings)}`),
      ...common.filter((a) => a.type !== 'displayName'),
      text('displayName', displayName),
      // AD's password attribute: the password in double quotes, UTF-16LE.
      new (ldapts().Attribute)({ type: 'unicodePwd', values: [Buffer.from(`"${person.password}"`, 'utf16le')] }),
      text('userAccountControl', String(AD_NORMAL_ACCOUNT)),
    ],
  };
}

export function ldapAdapter(target: Pick<ConnectionTarget, 'baseUrl' | 'credentials'>, settings: LdapAdapterSettings, options: LdapOptions = {}, policy: AccountPolicy = {}): ProvisioningAdapter {
  const ad = settings.directory === 'active_directory';
  const nameAttribute = ad ? 'sAMAccountName' : 'uid';
  const undoAction: ProvisioningCapabilities['undo'] = ad && settings.undo !== 'delete' ? 'deactivate' : 'delete';
  let session: Promise<LdapSession> | undefined;

  /**
   * The bound session (one connection per invocation); a failed bind is tried again on the next
   * call. A connection the directory closed (idle timeout, restart) is opened and bound again:
   * ldapts would reconnect unauthenticated, and an anonymous add's "insufficient access" would
   * read as refused credentials.
   */
  const connected = async (): Promise<LdapSession | CallFailure> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const current = (session ??= openLdap(target, options));
      try {
        const open = await current;
        if (open.client.isBound) return open;
        if (session === current) session = undefined;
        void open.close();
      } catch (error) {
        if (session === current) session = undefined;
        return ldapFailure(error, options.timeoutMs);
      }
    }
    return { kind: 'failed', retryable: true, message: 'The directory closed the connection.' };
  };
  const isFailure = (value: unknown): value is CallFailure => (value as CallFailure).kind === 'failed';

  /** The first entry under the base DN whose attribute equals the value (the filter encoded, never parsed from text). */
  const lookup = async (attribute: string, value: string): Promise<ExternalAccount | undefined | CallFailure> => {
    const ldap = await connected();
    if (isFailure(ldap)) return ldap;
    try {
      const { searchEntries } = await ldap.client.search(settings.baseDn, {
        scope: 'sub',
        filter: new (ldapts().EqualityFilter)({ attribute, value }),
        attributes: [nameAttribute, 'mail', ...(ad ? ['userAccountControl'] : [])],
        sizeLimit: 2,
      });
      const entry = searchEntries[0];
      if (!entry) return undefined;
      const control = Number(first(entry.userAccountControl));
      const account: ExternalAccount = { externalId: entry.dn, userName: first(entry[nameAttribute]) ?? '', emails: all(entry.mail).map((m) => m.toLowerCase()) };
      return ad && Number.isFinite(control) ? { ...account, active: (control & AD_ACCOUNTDISABLE) === 0 } : account;
    } catch (error) {
      if (error instanceof ldapts().NoSuchObjectError) return { kind: 'failed', retryable: false, message: `The base DN ${settings.baseDn} does not exist in the directory.` };
      return ldapFailure(error, options.timeoutMs);
    }
  };

  const find: ProvisioningAdapter['find'] = ({ username }) => lookup(nameAttribute, username);

  /**
   * The attribute types the directory's subschema defines (read once per invocation): the
   * password policy overlay (ppolicy) adds pwdReset and pwdAccountLockedTime. Undefined when the
   * subschema could not be read.
   */
  let subschema: Promise<string[] | undefined> | undefined;
  const attributeTypes = () =>
    (subschema ??= (async () => {
      const ldap = await connected();
      if (isFailure(ldap)) {
        subschema = undefined;
        return undefined;
      }
      try {
        const { searchEntries } = await ldap.client.search('cn=Subschema', { scope: 'base', filter: '(objectClass=subschema)', attributes: ['attributeTypes'] });
        return all(searchEntries[0]?.attributeTypes);
      } catch {
        return [];
      }
    })());
  const defines = async (name: string) => (await attributeTypes())?.some((t) => new RegExp(`NAME\\s+'${name}'`, 'i').test(t));

  /**
   * Whether the directory can mark an account "must change the password": AD always (pwdLastSet
   * 0); OpenLDAP only with the password policy overlay (ppolicy), which defines the operational
   * attribute pwdReset.
   */
  let mustChange: Promise<MustChangeSupport> | undefined;
  const mustChangeSupport = () =>
    (mustChange ??= (async (): Promise<MustChangeSupport> => {
      if (ad) return { supported: true, how: 'Active Directory asks for a new password at the first logon (pwdLastSet 0).' };
      return (await defines('pwdReset'))
        ? { supported: true, how: "The directory's password policy (ppolicy) asks for a new password at the first sign-in (pwdReset TRUE)." }
        : { supported: false, reason: 'This OpenLDAP directory has no password policy overlay (ppolicy), so it cannot require a password change at first sign-in.' };
    })());

  /** OpenLDAP: deactivation needs ppolicy's pwdAccountLockedTime (undefined: the directory did not answer). */
  const canLock = async (): Promise<boolean | undefined> => (ad ? true : defines('pwdAccountLockedTime'));
  /** The attributes that mark an entry "must change", when the policy asks and the directory can. */
  const mustChangeAttributes = async (): Promise<Attribute[]> => {
    if (!policy.requirePasswordChange || !(await mustChangeSupport()).supported) return [];
    return [ad ? new (ldapts().Attribute)({ type: 'pwdLastSet', values: [AD_MUST_CHANGE_PWD_LAST_SET] }) : new (ldapts().Attribute)({ type: 'pwdReset', values: ['TRUE'] })];
  };

  const entryOf = (person: ProvisioningPerson, secure: boolean) => ldapEntryOf(person, settings, secure);

  /** AD: sets or clears ACCOUNTDISABLE in the entry's userAccountControl, keeping its other flags. */
  const setDisabled = async (ldap: LdapSession, dn: string, disabled: boolean) => {
    const { searchEntries } = await ldap.client.search(dn, { scope: 'base', attributes: ['userAccountControl'] });
    const control = Number(first(searchEntries[0]?.userAccountControl));
    const current = Number.isFinite(control) ? control : AD_NORMAL_ACCOUNT;
    const next = disabled ? current | AD_ACCOUNTDISABLE : current & ~AD_ACCOUNTDISABLE;
    await ldap.client.modify(dn, new (ldapts().Change)({ operation: 'replace', modification: new (ldapts().Attribute)({ type: 'userAccountControl', values: [String(next)] }) }));
  };

  /**
   * A name the directory already holds: ours when its mail is this person's (an AD account an
   * earlier undo disabled is enabled again: provisioning the person means an account that works),
   * someone else's otherwise.
   */
  const resolveExisting = async (person: ProvisioningPerson, dn: string): Promise<ProvisioningOutcome> => {
    const existing = await find(person);
    if (existing && 'kind' in existing) return existing;
    if (!existing) return { kind: 'conflict', message: `The entry ${dn} already exists in the directory, for another ${nameAttribute} than "${person.username}".` };
    if (!existing.emails.includes(person.email.toLowerCase())) {
      return { kind: 'conflict', message: `The user name "${person.username}" is already taken on the platform by another person (${existing.emails[0] ?? 'no e-mail'}).` };
    }
    if (existing.active === false) {
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      try {
        await setDisabled(ldap, existing.externalId, false);
      } catch (error) {
        const failure = ldapFailure(error, options.timeoutMs);
        return failure.authRefused ? failure : { ...failure, message: `The account ${existing.externalId} exists but is disabled and was not enabled again: ${failure.message}` };
      }
    }
    return { kind: 'linked', externalId: existing.externalId };
  };

  const createOne = async (person: ProvisioningPerson): Promise<ProvisioningOutcome> => {
    const ldap = await connected();
    if (isFailure(ldap)) return ldap;
    const entry = entryOf(person, ldap.secure);
    if ('kind' in entry) return entry;
    try {
      await ldap.client.add(entry.dn, [...entry.attributes, ...(await mustChangeAttributes())]);
      return { kind: 'created', externalId: entry.dn };
    } catch (error) {
      if (error instanceof ldapts().AlreadyExistsError) return resolveExisting(person, entry.dn);
      if (error instanceof ldapts().NoSuchObjectError) return { kind: 'failed', retryable: false, message: `The base DN ${settings.baseDn} does not exist in the directory.` };
      return ldapFailure(error, options.timeoutMs);
    }
  };

  return {
    capabilities: async () => ({
      batchSize: 1,
      undo: undoAction,
      mustChangePassword: await mustChangeSupport(),
      lifecycle: ad ? ACTIVE_DIRECTORY_LIFECYCLE : openLdapLifecycle(await canLock()),
    }),

    find,

    /** The dry run's second lookup: an entry with the person's mail under another name. */
    findByEmail: (email) => lookup('mail', email),

    create: (people) => Promise.all(people.map(createOne)),

    async undo(externalId): Promise<UndoOutcome> {
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      try {
        if (undoAction === 'delete') {
          await ldap.client.del(externalId);
          return { kind: 'undone', action: 'deleted' };
        }
        await setDisabled(ldap, externalId, true);
        return { kind: 'undone', action: 'deactivated' };
      } catch (error) {
        if (error instanceof ldapts().NoSuchObjectError) return { kind: 'gone' };
        return ldapFailure(error, options.timeoutMs);
      }
    },

    /** An administrator's password reset: userPassword ({SSHA}) on OpenLDAP, unicodePwd on AD (encrypted connections only). */
    async setPassword(externalId, person): Promise<SetPasswordOutcome> {
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      if (ad && !ldap.secure) return { kind: 'failed', retryable: false, message: 'Active Directory takes a password (unicodePwd) only over an encrypted connection: use an ldaps:// URL.' };
      const password = ad
        ? new (ldapts().Attribute)({ type: 'unicodePwd', values: [Buffer.from(`"${person.password}"`, 'utf16le')] })
        : new (ldapts().Attribute)({ type: 'userPassword', values: [sshaPassword(person.password)] });
      try {
        const changes = [password, ...(await mustChangeAttributes())].map((modification) => new (ldapts().Change)({ operation: 'replace', modification }));
        await ldap.client.modify(externalId, changes);
        return { kind: 'updated' };
      } catch (error) {
        if (error instanceof ldapts().NoSuchObjectError) return { kind: 'gone' };
        return ldapFailure(error, options.timeoutMs);
      }
    },

    async findById(externalId) {
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      try {
        const { searchEntries } = await ldap.client.search(externalId, {
          scope: 'base',
          attributes: [nameAttribute, 'mail', 'givenName', 'sn', ad ? 'userAccountControl' : 'pwdAccountLockedTime'],
        });
        const entry = searchEntries[0];
        if (!entry) return undefined;
        const control = Number(first(entry.userAccountControl));
        const firstName = first(entry.givenName);
        const lastName = first(entry.sn);
        return {
          externalId: entry.dn,
          userName: first(entry[nameAttribute]) ?? '',
          emails: all(entry.mail).map((m) => m.toLowerCase()),
          ...(ad ? (Number.isFinite(control) ? { active: (control & AD_ACCOUNTDISABLE) === 0 } : {}) : { active: first(entry.pwdAccountLockedTime) === undefined }),
          ...(firstName !== undefined ? { firstName } : {}),
          ...(lastName !== undefined ? { lastName } : {}),
        };
      } catch (error) {
        if (error instanceof ldapts().NoSuchObjectError) return undefined;
        return ldapFailure(error, options.timeoutMs);
      }
    },

    /**
     * LDAP modify of the names and mail; with a regenerated username, AD's sAMAccountName and
     * userPrincipalName too, then the entry renamed (modify DN: uid=<new> on OpenLDAP, CN=<new> on
     * AD, the old RDN value dropped): the outcome carries the new DN, the account's id from then on.
     * The attributes first: a rename the directory refuses (the name is held) leaves the names and
     * mail updated, and says so.
     */
    async update(externalId, changes: AccountChanges): Promise<UpdateOutcome> {
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      const username = changes.username;
      if (ad && username !== undefined && (username.length > SAM_ACCOUNT_NAME_MAX || SAM_FORBIDDEN.test(username))) {
        return { kind: 'failed', retryable: false, message: `The user name "${username}" cannot be an Active Directory sAMAccountName (at most ${SAM_ACCOUNT_NAME_MAX} characters, none of " / \\ [ ] : ; | = , + * ? < > @).` };
      }
      const displayName = `${changes.firstName} ${changes.lastName}`.trim() || username || changes.email;
      const replace = (type: string, value: string) => new (ldapts().Change)({ operation: 'replace', modification: new (ldapts().Attribute)({ type, values: value === '' ? [] : [value] }) });
      const modifications = [
        replace('givenName', changes.firstName),
        // sn is required by person: an empty last name keeps the one there.
        ...(changes.lastName ? [replace('sn', changes.lastName)] : []),
        replace('displayName', displayName),
        replace('mail', changes.email),
        ...(ad ? [] : [replace('cn', displayName)]),
        ...(ad && username !== undefined ? [replace('sAMAccountName', username), replace('userPrincipalName', `${username}@${upnSuffixOf(settings)}`)] : []),
        // Mapped extra columns replaced; a cleared one replaced by no value (deleted, and no error when absent).
        ...Object.entries(changes.platformAttributes ?? {}).map(([type, value]) => replace(type, value)),
        ...(changes.clearedPlatformAttributes ?? []).filter((type) => !(type in (changes.platformAttributes ?? {}))).map((type) => replace(type, '')),
      ];
      try {
        await ldap.client.modify(externalId, modifications);
      } catch (error) {
        if (error instanceof ldapts().NoSuchObjectError) return gone.update;
        return ldapFailure(error, options.timeoutMs);
      }
      if (username === undefined) return { kind: 'done', detail: 'Updated in the directory.' };
      const rdn = `${ad ? 'CN' : 'uid'}=${escapeRdnValue(username)}`;
      const renamed = `${rdn},${parentOf(externalId)}`;
      if (renamed.toLowerCase() === externalId.toLowerCase()) return { kind: 'done', detail: 'Updated in the directory.' };
      try {
        await ldap.client.modifyDN(externalId, rdn);
        return { kind: 'done', detail: `Updated in the directory, renamed to ${renamed}.`, externalId: renamed };
      } catch (error) {
        if (error instanceof ldapts().AlreadyExistsError) {
          return { kind: 'conflict', message: `The entry ${renamed} already exists in the directory: the names and e-mail were updated, the user name was not changed.` };
        }
        const failure = ldapFailure(error, options.timeoutMs);
        return { ...failure, message: `The names and e-mail were updated, but the entry was not renamed to ${renamed}: ${failure.message}` };
      }
    },

    /**
     * AD: userAccountControl's ACCOUNTDISABLE set or cleared. OpenLDAP: ppolicy's
     * pwdAccountLockedTime set to "locked for good" or removed (a replace with no value: nothing
     * to remove is no error); a directory without ppolicy cannot, and says so.
     */
    async setActive(externalId, active): Promise<SetActiveOutcome> {
      const lockable = await canLock();
      if (lockable === false) return { kind: 'failed', retryable: false, message: OPENLDAP_NO_PPOLICY };
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      try {
        if (ad) await setDisabled(ldap, externalId, !active);
        else {
          const values = active ? [] : [PPOLICY_LOCKED_FOR_GOOD];
          await ldap.client.modify(externalId, new (ldapts().Change)({ operation: 'replace', modification: new (ldapts().Attribute)({ type: 'pwdAccountLockedTime', values }) }));
        }
        if (ad) return { kind: 'done', detail: active ? 'Enabled in Active Directory.' : 'Disabled in Active Directory (userAccountControl ACCOUNTDISABLE).' };
        return { kind: 'done', detail: active ? 'Unlocked in the directory (ppolicy).' : 'Locked in the directory (ppolicy pwdAccountLockedTime).' };
      } catch (error) {
        if (error instanceof ldapts().NoSuchObjectError) {
          return gone.setActive(active);
        }
        return ldapFailure(error, options.timeoutMs);
      }
    },

    async remove(externalId): Promise<RemoveOutcome> {
      const ldap = await connected();
      if (isFailure(ldap)) return ldap;
      try {
        await ldap.client.del(externalId);
        return { kind: 'done', action: 'deleted', detail: 'Deleted from the directory.' };
      } catch (error) {
        if (error instanceof ldapts().NoSuchObjectError) return gone.remove;
        return ldapFailure(error, options.timeoutMs);
      }
    },

    groups: ldapGroups(connected, { baseDn: settings.baseDn, activeDirectory: ad, bindDn: target.credentials.username ?? '', timeoutMs: options.timeoutMs }),

    close() {
      const open = session;
      session = undefined;
      void open?.then((s) => s.close()).catch(() => undefined);
    },
  };
}
