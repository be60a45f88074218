import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { globalReferenceItem } from '../account-deletion/global-reference';
import { LOCKOUT_MINUTES } from '../../shared/schemas/security';
import { keys } from '../core/keys';
import type { RequestOrigin } from './security-events';

/*
 * The sign-in guard of one e-mail address (keys.signInGuard): failed sign-ins in a row, the lock,
 * the user the address signed in as (so that user's own maxLoginAttempts applies), the last
 * accepted TOTP code, and where the sign-in in progress comes from (for the post-authentication
 * trigger, which has no request of its own). Every change is one conditional UpdateItem: two
 * sign-ins at once never both pass a lock, and never lose a count.
 */
const DAY_SECONDS = 24 * 60 * 60;
/** A guard that names its user keeps it a year after the last sign-in (so the user's limit applies); an unknown address's count a day. */
const KNOWN_GUARD_DAYS = 365;
const UNKNOWN_GUARD_DAYS = 1;
/** A TOTP code is 30 s long and Cognito accepts one step either side: a used code is refused for that long. */
export const TOTP_STEP_SECONDS = 30;
const TOTP_STEPS_ACCEPTED_AROUND = 2;
/** The origin written before Cognito is called is the trigger's only for this long. */
const PENDING_ORIGIN_SECONDS = 60;

export const emailHashOf = (email: string): string => createHash('sha256').update(email.trim().toLowerCase(), 'utf8').digest('hex');
const codeHashOf = (emailHash: string, code: string): string => createHash('sha256').update(`${emailHash}:${code}`, 'utf8').digest('hex');

export interface SignInGuard {
  failures: number;
  /** Epoch seconds; locked while in the future. */
  lockedUntil?: number;
  userId?: string;
  lastTotpCodeHash?: string;
  lastTotpStep?: number;
  pendingOrigin?: RequestOrigin & { at: number };
}

export type GuardCheck = { locked: false; guard: SignInGuard } | { locked: true; lockedUntil: number };

export interface SignInGuardStore {
  /** Refuses a locked address; otherwise notes where this attempt comes from and returns the guard. */
  begin(emailHash: string, origin: RequestOrigin, now: Date): Promise<GuardCheck>;
  /** Counts a failure; at `maxOf(userId)` failures in a row, locks the address. Undefined: it was locked meanwhile. */
  fail(emailHash: string, maxOf: (userId: string | undefined) => Promise<number>, now: Date): Promise<{ failures: number; lockedNow: boolean; userId?: string } | 'locked'>;
  /**
   * A finished sign-in: the count starts again, the address names its user. With a TOTP code, it
   * is remembered; false when that code was accepted for this address meanwhile (a replay).
   */
  succeed(emailHash: string, userId: string, now: Date, totpCode?: string): Promise<boolean>;
  /** Whether this TOTP code was the last one accepted for the address, within its validity. */
  isUsedTotp(guard: SignInGuard, emailHash: string, code: string, now: Date): boolean;
  /** For the trigger: the guard as it is (no write). */
  read(emailHash: string): Promise<SignInGuard | undefined>;
  /**
   * For the trigger: the address belongs to this user (a sign-in succeeded, perhaps straight at
   * Cognito), so the user's own maxLoginAttempts, events and alerts apply to its failures from
   * now on. Leaves the count and any lock as they are.
   */
  nameUser(emailHash: string, userId: string, now: Date): Promise<void>;
}

const epoch = (date: Date) => Math.floor(date.getTime() / 1000);
const stepOf = (date: Date) => Math.floor(epoch(date) / TOTP_STEP_SECONDS);
const notLocked = 'attribute_not_exists(lockedUntil) OR lockedUntil <= :now';

export const isLocked = (guard: SignInGuard | undefined, now: Date): boolean => (guard?.lockedUntil ?? 0) > epoch(now);
/** The pending origin, when it is fresh enough to be this sign-in's. */
export const pendingOriginOf = (guard: SignInGuard | undefined, now: Date): RequestOrigin | undefined =>
  guard?.pendingOrigin && epoch(now) - guard.pendingOrigin.at <= PENDING_ORIGIN_SECONDS ? { ipAddress: guard.pendingOrigin.ipAddress, userAgent: guard.pendingOrigin.userAgent } : undefined;

/** Whether `code` is the last code accepted for the address and could still be valid (Cognito accepts a step either side). */
export function isUsedTotpCode(guard: SignInGuard, emailHash: string, code: string, now: Date): boolean {
  if (!guard.lastTotpCodeHash || guard.lastTotpStep === undefined) return false;
  return guard.lastTotpCodeHash === codeHashOf(emailHash, code) && stepOf(now) - guard.lastTotpStep <= TOTP_STEPS_ACCEPTED_AROUND;
}

/** The guard attributes a TOTP code accepted at `now` leaves (for tests and the success write). */
export const acceptedTotp = (emailHash: string, code: string, now: Date) => ({ lastTotpCodeHash: codeHashOf(emailHash, code), lastTotpStep: stepOf(now) });

const guardOf = (item: Record<string, unknown> | undefined): SignInGuard => ({
  failures: typeof item?.failures === 'number' ? item.failures : 0,
  ...(typeof item?.lockedUntil === 'number' ? { lockedUntil: item.lockedUntil } : {}),
  ...(typeof item?.userId === 'string' ? { userId: item.userId } : {}),
  ...(typeof item?.lastTotpCodeHash === 'string' ? { lastTotpCodeHash: item.lastTotpCodeHash } : {}),
  ...(typeof item?.lastTotpStep === 'number' ? { lastTotpStep: item.lastTotpStep } : {}),
  ...(item?.pendingOrigin && typeof item.pendingOrigin === 'object' ? { pendingOrigin: item.pendingOrigin as SignInGuard['pendingOrigin'] } : {}),
});

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException || (error as { name?: string }).name === 'ConditionalCheckFailedException';

export function dynamoSignInGuardStore(db: DynamoDBDocumentClient, tableName: string): SignInGuardStore {
  const read = async (emailHash: string) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.signInGuard(emailHash), ConsistentRead: true }));
    return Item ? guardOf(Item) : undefined;
  };
  const lockedAnswer = async (emailHash: string, now: Date): Promise<GuardCheck> => {
    const guard = await read(emailHash);
    // Unlocked between the refused write and this read: a later attempt will pass.
    return { locked: true, lockedUntil: guard?.lockedUntil ?? epoch(now) + 1 };
  };
  const expiry = (known: boolean, now: Date) => epoch(now) + (known ? KNOWN_GUARD_DAYS : UNKNOWN_GUARD_DAYS) * DAY_SECONDS;
  return {
    read,
    async begin(emailHash, origin, now) {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.signInGuard(emailHash),
            UpdateExpression: 'SET entityType = :type, pendingOrigin = :origin, failures = if_not_exists(failures, :zero), expiresAt = if_not_exists(expiresAt, :expires)',
            ConditionExpression: notLocked,
            ExpressionAttributeValues: { ':type': 'SignInGuard', ':origin': { ...origin, at: epoch(now) }, ':zero': 0, ':expires': expiry(false, now), ':now': epoch(now) },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { locked: false, guard: guardOf(Attributes) };
      } catch (error) {
        if (isConditionFailure(error)) return lockedAnswer(emailHash, now);
        throw error;
      }
    },
    async fail(emailHash, maxOf, now) {
      let counted: SignInGuard;
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.signInGuard(emailHash),
            UpdateExpression: 'SET entityType = :type, lastFailureAt = :now, expiresAt = :expires ADD failures :one',
            ConditionExpression: notLocked,
            ExpressionAttributeValues: { ':type': 'SignInGuard', ':now': epoch(now), ':one': 1, ':expires': expiry(false, now) },
            ReturnValues: 'ALL_NEW',
          }),
        );
        counted = guardOf(Attributes);
      } catch (error) {
        if (isConditionFailure(error)) return 'locked';
        throw error;
      }
      // A guard that names a user keeps it as long as a known one does.
      if (counted.userId) {
        await db.send(new UpdateCommand({ TableName: tableName, Key: keys.signInGuard(emailHash), UpdateExpression: 'SET expiresAt = :expires', ExpressionAttributeValues: { ':expires': expiry(true, now) } }));
      }
      const max = await maxOf(counted.userId);
      if (counted.failures < max) return { failures: counted.failures, lockedNow: false, ...(counted.userId ? { userId: counted.userId } : {}) };
      // The count reached the limit: lock, once (a parallel failure that counted further locks instead).
      const lockedUntil = epoch(now) + LOCKOUT_MINUTES * 60;
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.signInGuard(emailHash),
            UpdateExpression: 'SET lockedUntil = :until, failures = :zero, expiresAt = :expires',
            ConditionExpression: `failures = :count AND (${notLocked})`,
            ExpressionAttributeValues: { ':until': lockedUntil, ':zero': 0, ':count': counted.failures, ':now': epoch(now), ':expires': Math.max(expiry(Boolean(counted.userId), now), lockedUntil + DAY_SECONDS) },
          }),
        );
        return { failures: counted.failures, lockedNow: true, ...(counted.userId ? { userId: counted.userId } : {}) };
      } catch (error) {
        if (isConditionFailure(error)) return 'locked';
        throw error;
      }
    },
    async succeed(emailHash, userId, now, totpCode) {
      const values: Record<string, unknown> = { ':type': 'SignInGuard', ':zero': 0, ':user': userId, ':expires': expiry(true, now) };
      let set = 'SET entityType = :type, failures = :zero, userId = :user, expiresAt = :expires';
      let condition: string | undefined;
      if (totpCode !== undefined) {
        const step = stepOf(now);
        const accepted = acceptedTotp(emailHash, totpCode, now);
        Object.assign(values, { ':code': accepted.lastTotpCodeHash, ':step': step, ':window': step - TOTP_STEPS_ACCEPTED_AROUND });
        set += ', lastTotpCodeHash = :code, lastTotpStep = :step';
        condition = 'attribute_not_exists(lastTotpCodeHash) OR lastTotpCodeHash <> :code OR lastTotpStep < :window';
      }
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.signInGuard(emailHash),
            UpdateExpression: `${set} REMOVE lockedUntil, pendingOrigin`,
            ...(condition ? { ConditionExpression: condition } : {}),
            ExpressionAttributeValues: values,
            ReturnValues: 'UPDATED_OLD',
          }),
        );
        // The guard now names the user: account deletion deletes it through this reference.
        if (Attributes?.userId !== userId) await db.send(new PutCommand({ TableName: tableName, Item: globalReferenceItem(userId, keys.signInGuard(emailHash)) }));
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
    isUsedTotp: isUsedTotpCode,
    async nameUser(emailHash, userId, now) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.signInGuard(emailHash),
            UpdateExpression: 'SET entityType = :type, userId = :user, failures = if_not_exists(failures, :zero), expiresAt = if_not_exists(expiresAt, :expires)',
            ConditionExpression: 'attribute_not_exists(userId) OR userId <> :user',
            ExpressionAttributeValues: { ':type': 'SignInGuard', ':user': userId, ':zero': 0, ':expires': expiry(true, now) },
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) return;
        throw error;
      }
      // As in succeed: account deletion deletes the guard through this reference.
      await db.send(new PutCommand({ TableName: tableName, Item: globalReferenceItem(userId, keys.signInGuard(emailHash)) }));
    },
  };
}
