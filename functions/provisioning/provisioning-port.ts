/**
 * The provisioning port: what the use case needs of a platform, whichever it is. One adapter per
 * platform (adapters/); the use case (provision-accounts.ts) never knows which one it talks to.
 */

import type { LifecycleSupport } from '../../shared/schemas/lifecycle';

export type { LifecycleSupport, OperationSupport } from '../../shared/schemas/lifecycle';

/** A person to create on the platform, with the generated credentials. */
export interface ProvisioningPerson {
  /** Our account id: correlates answers (e.g. SCIM bulkId) with accounts. */
  accountId: string;
  username: string;
  password: string;
  firstName: string;
  lastName: string;
  email: string;
  /** The account's extra columns (department, title...), as kept here: shared/schemas/attributes.ts. */
  attributes?: Record<string, string>;
  /**
   * The same mapped to the platform's attributes (attribute name -> value): set by the adapter
   * factory from the integration's mapping (shared/schemas/attribute-mapping.ts), read by the
   * adapters' body builders, which put each where their platform wants it.
   */
  platformAttributes?: Record<string, string>;
}

/** An account that exists on the platform (names when the platform's answer has them). */
export interface ExternalAccount {
  externalId: string;
  userName: string;
  emails: string[];
  active?: boolean;
  firstName?: string;
  lastName?: string;
}

/**
 * What one call did for one account:
 * - created: the platform made the account (its id kept as externalAccountId);
 * - linked: the account already existed there as this person (same e-mail): it is ours now;
 * - conflict: the name is held on the platform by someone else: failed, with the reason;
 * - failed: the platform refused or did not answer; `retryable` for 429 / 5xx / timeouts (the use
 *   case retries them, a 429 (`rateLimited`) after exactly `retryAfterMs`), `authRefused` for 401 / 403.
 */
export type ProvisioningOutcome =
  | { kind: 'created'; externalId: string }
  | { kind: 'linked'; externalId: string }
  | { kind: 'conflict'; message: string }
  | { kind: 'failed'; retryable: boolean; message: string; retryAfterMs?: number; authRefused?: boolean; rateLimited?: boolean };

export type UndoOutcome = { kind: 'undone'; action: 'deactivated' | 'deleted' } | { kind: 'gone' } | Extract<ProvisioningOutcome, { kind: 'failed' }>;

type Failure = Extract<ProvisioningOutcome, { kind: 'failed' }>;

/**
 * An account's values after an Edit: first name, last name and e-mail always (the platform gets
 * all three); `username` only when the user regenerated it (the login changes where the platform
 * allows it: capabilities().lifecycle.userName says).
 */
export interface AccountChanges {
  firstName: string;
  lastName: string;
  email: string;
  username?: string;
  /** The account's extra columns now, and those the edit removed (their keys). */
  attributes?: Record<string, string>;
  removedAttributes?: string[];
  /** The same mapped (set by the adapter factory): the platform attributes to set, and those to clear. */
  platformAttributes?: Record<string, string>;
  clearedPlatformAttributes?: string[];
}

/**
 * Update: done (the platform has the new values; `externalId` when its id for the account changed
 * with them, e.g. an LDAP entry renamed), gone (not on the platform any more), conflict (the new
 * user name or e-mail is held there by someone else, in the platform's words), failed.
 */
export type UpdateOutcome = { kind: 'done'; detail: string; externalId?: string } | { kind: 'gone'; detail: string } | { kind: 'conflict'; message: string } | Failure;

/**
 * Deactivate / reactivate: done, with what the platform did in words. For a deactivation, an
 * account the platform no longer has counts as done (`alreadyGone`, said in the detail); for a
 * reactivation it is gone: there is nothing to bring back.
 */
export type SetActiveOutcome = { kind: 'done'; detail: string; alreadyGone?: true } | { kind: 'gone'; detail: string } | Failure;

/**
 * Remove: done, with what the platform did (`action`: deleted, or deactivated where it keeps its
 * users, e.g. Salesforce); an account already gone there counts as done (`alreadyGone`).
 */
export type RemoveOutcome = { kind: 'done'; action: 'deleted' | 'deactivated'; detail: string; alreadyGone?: true } | Failure;

/**
 * What a lifecycle call says of an account the platform no longer has, the same on every
 * platform: `holder` names the platform ('Okta', 'The directory'), `thing` what it keeps of a
 * person ('user', 'entry'). An update or a reactivation finds it gone; a deactivation or a
 * removal is done already (said so).
 */
export const goneFrom = (holder: string, thing: 'user' | 'entry' = 'user') => ({
  update: { kind: 'gone', detail: `${holder} no longer has this ${thing}.` } satisfies UpdateOutcome,
  reactivate: { kind: 'gone', detail: `${holder} no longer has this ${thing}: there is nothing to reactivate.` } satisfies SetActiveOutcome,
  deactivate: { kind: 'done', alreadyGone: true, detail: `${holder} no longer has this ${thing}: nothing left to deactivate.` } satisfies SetActiveOutcome,
  setActive: (active: boolean): SetActiveOutcome => (active ? goneFrom(holder, thing).reactivate : goneFrom(holder, thing).deactivate),
  remove: { kind: 'done', action: 'deleted', alreadyGone: true, detail: `${holder} no longer had this ${thing}: nothing left to delete.` } satisfies RemoveOutcome,
});

/**
 * A group on the platform that a project's accounts join (issue 28 item 5): its id there, the name
 * it was found or created by, and `type` where a platform has more than one kind of group
 * (Salesforce: a permission set or a public group; Okta: OKTA_GROUP or APP_GROUP).
 */
export interface PlatformGroup {
  id: string;
  name: string;
  type?: string;
}

/**
 * Adding or removing a member: done, with what the platform did in words (a member already in the
 * group, or already out of it, is done too: redelivery adds nobody twice); gone when the group or
 * the account is not there any more.
 */
export type MembershipOutcome = { kind: 'done'; detail: string } | { kind: 'gone'; detail: string } | Failure;

/** The port's group operations (every adapter has them; capabilities().lifecycle.groups says how, or why not). */
export interface GroupOperations {
  /** The group with exactly this name (case-insensitive where the platform is), if the platform has one. */
  find(name: string): Promise<PlatformGroup | undefined | Failure>;
  /** Creates the group; one made meanwhile by another call under the same name is found and returned instead. */
  create(name: string): Promise<PlatformGroup | Failure>;
  addMember(group: PlatformGroup, externalId: string): Promise<MembershipOutcome>;
  removeMember(group: PlatformGroup, externalId: string): Promise<MembershipOutcome>;
}

export interface ProvisioningCapabilities {
  /** Accounts one request may create (1: no batch endpoint). */
  batchSize: number;
  /** What undo does on this platform. */
  undo: 'deactivate' | 'delete';
  /**
   * Whether accounts can be created as "must change the password at first sign-in" (the user's
   * Require password change setting): how, or why not, in words the run shows.
   */
  mustChangePassword: MustChangeSupport;
  /**
   * Whether the platform can update, deactivate / reactivate and remove an account, and how, or
   * why not, in words the UI shows before the user tries (shared/schemas/lifecycle.ts gives the
   * same words from the integration's settings alone; an adapter refines them with what it reads
   * of the platform, e.g. a SCIM provider's ServiceProviderConfig, an OpenLDAP subschema).
   */
  lifecycle: LifecycleSupport;
}

/** Whether a platform can mark an account "must change the password at first sign-in", and how, or why not. */
export type MustChangeSupport = { supported: true; how: string } | { supported: false; reason: string };

/** One account's password set anew on the platform (Reset Passwords): done, gone there, or failed with the platform's words. */
export type SetPasswordOutcome = { kind: 'updated' } | { kind: 'gone' } | Extract<ProvisioningOutcome, { kind: 'failed' }>;

/** Options an adapter is made with that come from the user, not the integration. */
export interface AccountPolicy {
  /** Create accounts (and set reset passwords) as "must change at first sign-in" where the platform can. */
  requirePasswordChange?: boolean;
}

export interface ProvisioningAdapter {
  capabilities(): Promise<ProvisioningCapabilities>;
  /** The account with this user name (or login), if the platform has one. */
  find(person: Pick<ProvisioningPerson, 'username' | 'email'>): Promise<ExternalAccount | undefined | Extract<ProvisioningOutcome, { kind: 'failed' }>>;
  /**
   * Creates the people (at most capabilities().batchSize): one outcome per person, in order.
   * A name the platform already holds is looked up: linked when its e-mail is the person's,
   * conflict otherwise.
   */
  create(people: readonly ProvisioningPerson[]): Promise<ProvisioningOutcome[]>;
  /** The account with this e-mail, if the platform can search by e-mail (the dry run's second lookup). */
  findByEmail?(email: string): Promise<ExternalAccount | undefined | Extract<ProvisioningOutcome, { kind: 'failed' }>>;
  /** Deactivates or deletes (capabilities().undo) the account created earlier. */
  undo(externalId: string): Promise<UndoOutcome>;
  /**
   * Gives the account created earlier a new password (Reset Passwords), as an administrator
   * would: no old password needed. Setting the same password again is harmless (redelivery).
   */
  setPassword(externalId: string, person: Pick<ProvisioningPerson, 'username' | 'password'>): Promise<SetPasswordOutcome>;
  /** The account as the platform has it now; undefined when it is gone. */
  findById(externalId: string): Promise<ExternalAccount | undefined | Failure>;
  /** Gives the account its edited names and e-mail (and the regenerated user name, when given). */
  update(externalId: string, changes: AccountChanges): Promise<UpdateOutcome>;
  /** Deactivates (false) or reactivates (true) the account, as the platform and integration settings say. */
  setActive(externalId: string, active: boolean): Promise<SetActiveOutcome>;
  /** Deletes the account where the platform allows it; deactivates it where the platform keeps its users. */
  remove(externalId: string): Promise<RemoveOutcome>;
  /** The groups a project's accounts join: find, create, add and remove a member. */
  groups: GroupOperations;
  /** Frees sockets kept for this invocation. */
  close(): void;
}

export const isFailure = (value: unknown): value is Extract<ProvisioningOutcome, { kind: 'failed' }> =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'failed';
