import { shardsOf } from '../accounts/account-partitions';
import { RetryLaterError } from '../core/retry-later';
import { DELETION_REQUESTED_AT } from '../core/account-gate';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { BillingProvider } from '../billing/billing-port';
import type { DeletionMessage } from './deletion-message';
import type { ErasureStore, ItemKey } from './erasure-store';
import type { IdentityAdmin } from './identity-admin';
import type { UserFiles } from './user-files';
import { userObjectPrefixes } from './user-objects';
import { globalKeysNamedBy, globalKeysOfUser } from './global-reference';

export interface DeleteAccountDeps {
  store: ErasureStore;
  files: UserFiles;
  identity: IdentityAdmin;
  /** Only asked for when the user has a billing customer. */
  billing: () => Promise<Pick<BillingProvider, 'deleteCustomer'>>;
  now: () => Date;
}

/**
 * A bulk creation still holds the user's lock, or a provisioning run, credential send or password
 * reset still has a chunk in the hands of a worker (its lease): that worker would go on writing
 * after the partitions were emptied. The delivery fails and SQS brings it back after the
 * visibility timeout (the gate already stops new work; a lease lapses even if its worker died).
 */
export class AccountBusyError extends RetryLaterError {
  constructor(
    readonly until: number,
    readonly by: 'bulk creation' | 'delivery' = 'bulk creation',
  ) {
    super(`A ${by === 'bulk creation' ? 'bulk creation' : 'provisioning run, credential send or password reset'} holds the account until ${new Date(until).toISOString()}; the deletion waits for it`);
    this.name = 'AccountBusyError';
  }
}

/** Why the user's unfinished delivery jobs stopped (what their pages would say, were they still read). */
export const STOPPED_FOR_DELETION = 'Stopped: the account is being deleted.';

/**
 * A job's item (not one of its chunks) that a worker may be carrying out: a provisioning run, a
 * credential send, a password reset, a project's deletion, an export (whose worker, stopped, deletes the file it wrote).
 */
const deliveryJob = /^(PROVJOB|MAILSEND|PWRESET|PROJDEL|EXPORT)#[^#]+$/;
const finished = new Set(['completed', 'failed']);

/**
 * Before anything is erased: every unfinished delivery job is marked failed, so no worker takes
 * another of its chunks (each reads its job first); then a chunk a worker holds now (a
 * provisioning or reset lease, a mail chunk's `until`) is waited for. Answers the latest lease end
 * still ahead (0: none).
 */
async function stopDeliveries(store: ErasureStore, userId: string, now: Date): Promise<number> {
  let busyUntil = 0;
  for await (const page of store.items(keys.user(userId).PK)) {
    for (const item of page) {
      const sk = String(item.SK);
      if (deliveryJob.test(sk) && typeof item.status === 'string' && !finished.has(item.status)) {
        await store.stopJob({ PK: String(item.PK), SK: sk }, item.status, STOPPED_FOR_DELETION, now);
      }
      const leased = sk.startsWith('PROVLEASE#') || (sk.startsWith('MAILSEND#') && sk.includes('#CHUNK#') && item.doneAt === undefined);
      const until = Number(item.until ?? 0);
      if (leased && until > now.getTime()) busyUntil = Math.max(busyUntil, until);
    }
  }
  return busyUntil;
}

/** Passes over the table until one finds nothing left (a worker that was still writing is outlasted). */
const MAX_PASSES = 5;

export type DeletionOutcome = 'deleted' | 'already-deleted' | 'not-requested';

/**
 * The account-deletion worker, one user. Every step finds its work anew from what is left, so an
 * interrupted run resumes by running again (SQS delivers the message again) and a redelivered
 * message after the end finds nothing to do:
 * 1. The user item must say the deletion was requested (a live account is never touched); no
 *    user item means an earlier run finished. A bulk creation that still holds the user's lock
 *    is waited for (AccountBusyError: SQS delivers again later). Unfinished provisioning runs,
 *    credential sends, password resets and exports are stopped (failed, with the reason) and a
 *    chunk a worker still holds is waited for the same way. An export's worker is not waited for:
 *    finding its export stopped or erased when it ends, it deletes the file it wrote.
 * 2. Billing ends: the customer's subscriptions are canceled now and the customer deleted.
 * 3. The user's objects in the export bucket are deleted (every prefix of user-objects.ts).
 * 4. The table, until a pass finds nothing: each project's partitions (every account shard, the
 *    rejected rows) and then its item; the username and notification partitions; the global
 *    items the user's items name or its id gives (global-reference.ts, the one list of them), and
 *    the Stripe customer link; every other item of USER#<id> but the user item.
 * 5. The Cognito user. 6. The user item, last: while it exists, the gate refuses every request.
 */
export const deleteAccount =
  (deps: DeleteAccountDeps) =>
  async ({ userId }: DeletionMessage): Promise<DeletionOutcome> => {
    const profile = await deps.store.profile(userId);
    if (!profile) return 'already-deleted';
    if (profile[DELETION_REQUESTED_AT] === undefined) {
      logger.error('Account deletion message for an account whose deletion was not requested: ignored', { userId });
      return 'not-requested';
    }

    const lockUntil = Number((profile.bulkLock as { until?: unknown } | undefined)?.until ?? 0);
    if (lockUntil > deps.now().getTime()) throw new AccountBusyError(lockUntil);

    const leasedUntil = await stopDeliveries(deps.store, userId, deps.now());
    if (leasedUntil > 0) throw new AccountBusyError(leasedUntil, 'delivery');

    const customerId = typeof profile.stripeCustomerId === 'string' ? profile.stripeCustomerId : undefined;
    if (customerId) await (await deps.billing()).deleteCustomer(customerId);

    for (const prefix of userObjectPrefixes(userId)) await deps.files.deleteUnder(prefix);

    let pass = 0;
    for (;;) {
      const deleted = await deleteTableItems(deps.store, userId, customerId);
      if (deleted === 0) break;
      if (++pass >= MAX_PASSES) throw new Error(`Items of user ${userId} kept appearing after ${MAX_PASSES} passes`);
    }

    await deps.identity.deleteUser(userId);
    await deps.store.deleteItem(keys.user(userId));
    return 'deleted';
  };

/** One pass over every partition of the user; answers how many items it deleted. */
async function deleteTableItems(store: ErasureStore, userId: string, customerId: string | undefined): Promise<number> {
  const own = keys.user(userId);
  let deleted = 0;
  const rest: ItemKey[] = [];
  for await (const page of store.items(own.PK)) {
    for (const item of page) {
      const key = { PK: String(item.PK), SK: String(item.SK) };
      if (key.SK === own.SK) continue;
      if (key.SK.startsWith('PROJECT#')) {
        // A project's partitions before its item: an interruption leaves the item, and so the way to them.
        const projectId = key.SK.slice('PROJECT#'.length);
        for (const pk of keys.projectPartitions(userId, projectId, shardsOf(item))) deleted += await store.deletePartition(pk);
        deleted += await store.deleteKeys([key]);
      } else if (globalKeysNamedBy(item).length) {
        // The global items it names (a reference's target, a link of an issue record) before it: an interruption leaves the way to them.
        deleted += await store.deleteKeys([...globalKeysNamedBy(item), key]);
      } else {
        rest.push(key);
      }
    }
  }
  for (const pk of keys.userSidePartitions(userId)) deleted += await store.deletePartition(pk);
  for (const key of globalKeysOfUser(userId)) {
    if (await store.item(key)) deleted += await store.deleteKeys([key]);
  }
  if (customerId) {
    const link = keys.stripeCustomer(customerId);
    const linked = await firstItem(store, link.PK);
    if (linked?.userId === userId) deleted += await store.deleteKeys([link]);
  }
  deleted += await store.deleteKeys(rest);
  return deleted;
}

async function firstItem(store: ErasureStore, pk: string): Promise<Record<string, unknown> | undefined> {
  for await (const page of store.items(pk)) return page[0];
  return undefined;
}
