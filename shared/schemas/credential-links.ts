/**
 * One-time credential links (functions/credential-links, docs/credential-links.md): a link in a
 * credentials e-mail that shows an account's username and password once, to whoever presses
 * 'Show my credentials' first, until it expires.
 */

/** Days a link stays valid, as the sender chooses them (whole days). */
export const CREDENTIAL_LINK_MIN_DAYS = 1;
export const CREDENTIAL_LINK_MAX_DAYS = 30;
export const CREDENTIAL_LINK_DEFAULT_DAYS = 7;

/**
 * ready: can be revealed; expired: its days are over; used: somebody revealed it already;
 * removed: the account it was for no longer exists; deactivated: the account was deactivated (it
 * works again once reactivated, until the link expires).
 */
export type CredentialLinkStatus = 'ready' | 'expired' | 'used' | 'removed' | 'deactivated';

/**
 * The body of both public link routes. The token travels in the body, never in a URL: the link
 * is APP_URL/credentials#<token> (a fragment never reaches a server, so no CloudFront or API
 * Gateway access log records it) and the page POSTs it.
 */
export interface CredentialLinkRequest {
  token: string;
}

/** POST /api/credential-links/state: what the page may say before anybody presses the button (spends nothing). */
export interface CredentialLinkState {
  status: CredentialLinkStatus;
  /** Who sent it, as the e-mail names the sender: the user's company (absent when they gave none). */
  companyName?: string;
  /** What it is for: the project the account belongs to. */
  projectName?: string;
  /** When the link stops working (ISO 8601). */
  expiresAt?: string;
}

/** POST /api/credential-links/reveal: the credentials, once. */
export interface RevealedCredentials {
  username: string;
  password: string;
  projectName: string;
  /** Who sent it, as the e-mail names the sender (absent when the user gave no company). */
  companyName?: string;
  /** Where the account is used, when the project names it. */
  platformUrl?: string;
}

/** The one answer to a token that names no link (made up, mistyped, deleted): no hint which. */
export const INVALID_LINK_MESSAGE = 'This link is not valid';
