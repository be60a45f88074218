import { OKTA_DEACTIVATION_DEFAULT } from './integrations';
import { directoryAccessOf, provisioningSupport, type ProvisioningTarget } from './provisioning';

/**
 * What each platform can do with an account after it was provisioned (issue 27: Edit, Deactivate /
 * Reactivate, Delete), in the words the UI shows before the user tries: from the integration as
 * the API returns it (platform, base URL, provisioning settings), so the web app reads it without
 * a call. The provisioning adapters give the same words in capabilities().lifecycle, refined with
 * what they read of the platform itself (a SCIM provider without PATCH, an OpenLDAP directory
 * without the password policy overlay). docs/lifecycle.md has the table.
 */
export type OperationSupport = { supported: true; how: string } | { supported: false; reason: string };

export interface LifecycleSupport {
  /** Edit: first name, last name and e-mail on the platform. */
  update: OperationSupport;
  /** Edit with a regenerated username: whether the platform's login name can change. */
  userName: OperationSupport;
  /** Deactivate and Reactivate. */
  setActive: OperationSupport;
  /** Delete (on the platform first, then here). */
  remove: OperationSupport;
  /** The project's groups (issue 28 item 5): how accounts join them, whether missing ones can be created, and what Delete does to the memberships. */
  groups: OperationSupport;
}

const yes = (how: string): OperationSupport => ({ supported: true, how });
const no = (reason: string): OperationSupport => ({ supported: false, reason });

/** The SCIM words, shared with the adapter (which refines them with the provider's ServiceProviderConfig). */
export const SCIM_LIFECYCLE: LifecycleSupport = {
  update: yes('The SCIM provider replaces the name, display name and e-mail (PATCH, RFC 7644 3.5.2).'),
  userName: yes('The SCIM provider replaces the userName in the same PATCH; a name it already holds for someone else is refused.'),
  setActive: yes('The SCIM provider sets the user inactive or active again (PATCH active).'),
  remove: yes('The SCIM provider deletes the user (DELETE).'),
  groups: yes(
    'The SCIM provider adds each account to the project\'s groups (PATCH /Groups/{id}, add members, RFC 7644 3.5.2), found by displayName and created (POST /Groups) when the project allows it; Delete takes the account out of them first. Deactivate keeps the memberships.',
  ),
};

export const SCIM_NO_PATCH = 'The SCIM provider does not support PATCH (its ServiceProviderConfig says so), so it cannot change a user.';

/** Okta: deactivate (DEPROVISIONED) or suspend, per integration (provisioning.oktaDeactivation). */
export const oktaLifecycle = (settings: { oktaLogin?: 'username' | 'email'; oktaDeactivation?: 'deactivate' | 'suspend' } = {}): LifecycleSupport => ({
  update: yes("Okta updates the user's first name, last name and e-mail (a partial profile update)."),
  userName:
    settings.oktaLogin === 'email'
      ? yes("This integration's Okta login is the e-mail address: the login changes with the e-mail, not with the username.")
      : yes('The Okta login changes to the new username; a login Okta already holds is refused.'),
  setActive:
    (settings.oktaDeactivation ?? OKTA_DEACTIVATION_DEFAULT) === 'suspend'
      ? yes('Okta suspends the user (only an active user: one who has not yet signed in and set a password cannot be suspended) and unsuspends them again; their apps stay assigned.')
      : yes("Okta deactivates the user (which also removes their app assignments there) and activates them again without an e-mail: a user who had no password must then finish Okta's activation."),
  remove: yes('Okta deactivates the user, then deletes them for good.'),
  groups: yes(
    'Okta adds each user to the project\'s groups (PUT /api/v1/groups/{groupId}/users/{userId}), found by name and created as Okta groups when the project allows it. Okta removes a deleted user from its groups itself; a deactivated or suspended user keeps them.',
  ),
});

export const GRAPH_LIFECYCLE: LifecycleSupport = {
  update: yes('Microsoft Entra ID updates the given name, surname, display name and mail (PATCH /users).'),
  userName: yes('The user principal name changes to the new username at the verified domain; one already taken is refused.'),
  setActive: yes('Microsoft Entra ID blocks or allows sign-in (accountEnabled).'),
  remove: yes('Microsoft Entra ID deletes the user; it keeps deleted users for 30 days, restorable there, then deletes them for good.'),
  groups: yes(
    'Microsoft Entra ID adds each user to the project\'s groups (POST /groups/{id}/members/$ref), found by displayName and created as security groups when the project allows it. A deleted user leaves its groups with it (and gets them back if restored); a blocked user keeps them.',
  ),
};

export const ACTIVE_DIRECTORY_LIFECYCLE: LifecycleSupport = {
  update: yes('The directory replaces givenName, sn, displayName and mail (LDAP modify).'),
  userName: yes('sAMAccountName and userPrincipalName change and the entry is renamed (CN=new username); Active Directory allows at most 20 characters.'),
  setActive: yes('Active Directory disables or enables the account (userAccountControl ACCOUNTDISABLE, 0x2).'),
  remove: yes('The directory deletes the entry (LDAP delete).'),
  groups: yes(
    "The directory adds the entry's DN to the member attribute of each of the project's groups (objectClass group, found by cn in the base DN's domain), created under the base DN when the project allows it. Delete takes the entry out of them first; a disabled account keeps them.",
  ),
};

export const OPENLDAP_NO_PPOLICY =
  'This OpenLDAP directory has no password policy overlay (ppolicy): an inetOrgPerson has no disabled state, so an account cannot be deactivated there (Delete removes the entry).';

export const openLdapLifecycle = (ppolicy: boolean | undefined): LifecycleSupport => ({
  update: yes('The directory replaces givenName, sn, cn, displayName and mail (LDAP modify).'),
  userName: yes('The entry is renamed to uid=new username (LDAP modify DN); a uid already held is refused.'),
  setActive:
    ppolicy === false
      ? no(OPENLDAP_NO_PPOLICY)
      : yes(
          `The directory's password policy overlay (ppolicy) locks the account (pwdAccountLockedTime) and unlocks it again${ppolicy === undefined ? '; a directory without ppolicy cannot, and says so' : ''}.`,
        ),
  remove: yes('The directory deletes the entry (LDAP delete).'),
  groups: yes(
    "The directory adds the entry's DN to the member attribute of each of the project's groups (groupOfNames, found by cn in the base DN's domain), created under the base DN when the project allows it (with the bind DN as its first member: groupOfNames needs one). Delete takes the entry out of them first (the directory would keep a member that names nothing); a locked account keeps them.",
  ),
});

export const SALESFORCE_LIFECYCLE: LifecycleSupport = {
  update: yes('Salesforce updates the first and last name; a new e-mail takes effect once its owner confirms the message Salesforce sends to it (within 72 hours).'),
  userName: yes('The Salesforce username changes to the new username at the integration\'s domain; Salesforce usernames are unique across every Salesforce org, so one taken anywhere is refused.'),
  setActive: yes('Salesforce deactivates the user (IsActive false: no sign-in, the license is freed) and activates them again.'),
  remove: yes('Salesforce keeps users: Delete deactivates them there (IsActive false).'),
  groups: yes(
    'Salesforce assigns the permission set of each group\'s name or label (PermissionSetAssignment), or else adds the user to the public group of that name (GroupMember); a missing one is created as a public group when the project allows it. Delete (a deactivation there) takes the user out of them; Deactivate keeps them.',
  ),
};

/** Per platform and integration settings: what Edit, Deactivate / Reactivate and Delete do there, or why not. */
export function lifecycleSupport(integration: ProvisioningTarget): LifecycleSupport {
  const support = provisioningSupport(integration);
  if (!support.supported) return { update: no(support.reason), userName: no(support.reason), setActive: no(support.reason), remove: no(support.reason), groups: no(support.reason) };
  const settings = integration.apiConfig?.provisioning ?? {};
  switch (integration.platform) {
    case 'custom':
      return SCIM_LIFECYCLE;
    case 'okta':
      return oktaLifecycle(settings);
    case 'salesforce':
      return SALESFORCE_LIFECYCLE;
    case 'active_directory':
      if (directoryAccessOf(integration.baseUrl) === 'graph') return GRAPH_LIFECYCLE;
      return settings.ldap?.directory === 'active_directory' ? ACTIVE_DIRECTORY_LIFECYCLE : openLdapLifecycle(undefined);
    default: {
      const reason = 'This platform is not a provisioning target.';
      return { update: no(reason), userName: no(reason), setActive: no(reason), remove: no(reason), groups: no(reason) };
    }
  }
}
