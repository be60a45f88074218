import { keys } from '../core/keys';

/**
 * Where account deletion finds every item a user owns: the one list (issue 26: the one-time links
 * were never registered, and a deleted user's links outlived the user).
 *
 * 1. Items under the user's own partitions: `USER#<id>` itself, the partitions that follow from it
 *    (`keys.userSidePartitions`) and from each project item (`keys.projectPartitions`). Every key
 *    builder of keys.ts whose key is one of these is found by reading them.
 * 2. Global items (a key not under `USER#<id>`): each key builder of that kind is listed in
 *    `globalItemKinds` with how its items are found. `test/unit/user-items.test.ts` calls every key
 *    builder of keys.ts and fails for one whose key is neither under the user's partitions nor
 *    listed here, so a new kind of item cannot be left out of the erasure unnoticed.
 */
export const globalItemKinds = {
  /** A one-time credential link, by its token's hash: written with a reference (issue-credential-link.ts). */
  credentialLink: 'reference',
  /** A sign-in guard, by the e-mail's hash: written with a reference when the e-mail is the user's (sign-in-guard.ts). */
  signInGuard: 'reference',
  /** An SES message's account: whoever writes one writes its reference. */
  mailMessage: 'reference',
  /** The weekly digest's subscriber item: its key follows from the user id (`globalKeysOfUser`). */
  digestSubscriber: 'user id',
  /** The Stripe customer link: named by the user item's `stripeCustomerId` (delete-account.ts). */
  stripeCustomer: 'user item',
  /** A processed Stripe event id: holds no user id or data, and expires by TTL. */
  stripeEvent: 'holds no user data',
  /** A one-time job's progress over the whole table (the expiry index backfill): holds no user id or data. */
  migration: 'holds no user data',
  /** A window of the shared SES rate (send-share.ts): holds a digest per customer, never an id. */
  mailRateWindow: 'names its customers by a digest of their ids only (windowNameOf), and expires by TTL',
} as const satisfies Partial<Record<keyof typeof keys, string>>;

/**
 * The item to write beside a global item of a user (same transaction or right after it): account
 * deletion reads the user's GLOBALREF# items and deletes the items they name (delete-account.ts).
 */
export const globalReferenceItem = (userId: string, target: { PK: string; SK: string }) => ({
  ...keys.globalReference(userId, target),
  entityType: 'GlobalReference' as const,
  targetPK: target.PK,
  targetSK: target.SK,
});

/** The global items whose keys follow from the user id alone (`globalItemKinds` 'user id'). */
export const globalKeysOfUser = (userId: string): { PK: string; SK: string }[] => [keys.digestSubscriber(userId)];

/**
 * The global items an item of the user's partition names: a reference's target; and, for a link's
 * issue record, the link itself (links issued before they were written with a reference).
 */
export function globalKeysNamedBy(item: Record<string, unknown>): { PK: string; SK: string }[] {
  const sk = String(item.SK);
  if (sk.startsWith('GLOBALREF#') && typeof item.targetPK === 'string' && typeof item.targetSK === 'string') return [{ PK: item.targetPK, SK: item.targetSK }];
  if (sk.startsWith('CREDLINKISSUE#') && typeof item.tokenHash === 'string') return [keys.credentialLink(item.tokenHash)];
  return [];
}
