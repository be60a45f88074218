/**
 * The provisioning port: what the use case needs of a platform, whichever it is. One adapter per
 * platform (adapters/); the use case (provision-accounts.ts) never knows which one it talks to.
 */

/** A person to create on the platform, with the generated credentials. */
export interface ProvisioningPerson {
  /** Our account id: correlates answers (e.g. SCIM bulkId) with accounts. */
  accountId: string;
  username: string;
  password: string;
  firstName: string;
  lastName: string;
  email: string;
}

/** An account that exists on the platform. */
export interface ExternalAccount {
  externalId: string;
  userName: string;
  emails: string[];
  active?: boolean;
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
  /** Frees sockets kept for this invocation. */
  close(): void;
}

export const isFailure = (value: unknown): value is Extract<ProvisioningOutcome, { kind: 'failed' }> =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'failed';
