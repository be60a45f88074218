import { createHash, randomBytes } from 'node:crypto';
import { CREDENTIAL_LINK_MAX_DAYS, CREDENTIAL_LINK_MIN_DAYS, type CredentialLinkStatus } from '../../shared/schemas/credential-links';

/**
 * The token of a one-time credential link: 32 random bytes (256 bits), base64url, 43 characters.
 * It is the only secret the holder has, so nothing else about a link is guessable from it, and
 * it is stored only as its SHA-256: a table read (a backup, a leaked export) reveals no link.
 * A hash without a salt is enough here: the input is 256 random bits, not a password.
 */
export const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const newLinkToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');

/** Whether a string could be a token at all: anything else is refused without a table read. */
export const isLinkTokenShaped = (token: string): boolean => TOKEN_SHAPE.test(token);

/** The SHA-256 of a token, hex: the link item's key. */
export const linkTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** What logs may say about a link: the start of its hash, never the token. */
export const loggableLinkId = (tokenHash: string): string => tokenHash.slice(0, 12);

/**
 * After a link expires its item stays this long (the table's TTL removes it then), so a holder
 * who comes late is told 'expired, ask the sender' rather than 'not valid'.
 */
export const EXPIRED_LINK_KEPT_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface LinkExpiry {
  /** When the link stops working, ISO 8601. */
  expiresAt: string;
  /** The item's TTL (epoch seconds): the expiry plus EXPIRED_LINK_KEPT_DAYS. */
  ttl: number;
}

/** A link issued at `now` for `days` whole days (CREDENTIAL_LINK_MIN_DAYS..CREDENTIAL_LINK_MAX_DAYS). */
export function linkExpiry(now: Date, days: number): LinkExpiry {
  if (!Number.isInteger(days) || days < CREDENTIAL_LINK_MIN_DAYS || days > CREDENTIAL_LINK_MAX_DAYS) {
    throw new RangeError(`A credential link lasts ${CREDENTIAL_LINK_MIN_DAYS} to ${CREDENTIAL_LINK_MAX_DAYS} whole days, not ${days}`);
  }
  const expires = now.getTime() + days * DAY_MS;
  return { expiresAt: new Date(expires).toISOString(), ttl: Math.ceil((expires + EXPIRED_LINK_KEPT_DAYS * DAY_MS) / 1000) };
}

/** A stored link's state at `now`: used wins over expired (it was spent while it was valid). */
export function linkStatus(link: { usedAt?: string; linkExpiresAt: string }, now: Date): Exclude<CredentialLinkStatus, 'removed' | 'deactivated'> {
  if (link.usedAt) return 'used';
  return now.getTime() >= Date.parse(link.linkExpiresAt) ? 'expired' : 'ready';
}

/**
 * The page a link opens: APP_URL/credentials#<token> (the web app's public route). The token is
 * the fragment: browsers never send it to a server, so no CloudFront or API Gateway access log,
 * proxy or referrer holds it; the page POSTs it to the API in the body.
 */
export const linkUrl = (appUrl: string, token: string): string => `${appUrl.replace(/\/+$/, '')}/credentials#${token}`;
