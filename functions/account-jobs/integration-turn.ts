import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { realSleep, TokenBucket, type BucketState, type Sleep } from '../provisioning/pacing';
import type { Pacing } from './platform-calls';

/**
 * An integration's platform is called by one chunk delivery at a time: its **turn** (docs/provisioning.md,
 * Pacing). The platform's limits are the customer's own (an Okta org's 600 creations a minute,
 * whichever of our workers sends them), so the holder paces to the integration's whole limit and
 * calls in flight, and hands the token bucket on: the next holder starts where it left off (its
 * tokens refilled since, a 429's wait kept). However many workers the provisioning queue has,
 * and however many jobs (runs, account actions, resets, deletions) work on one integration, its
 * calls keep to its limit; the customers' integrations are called at once, each at its own pace.
 *
 * The item (`INTTURN#<integrationId>` in the user's partition): `holder` and `until` (a conditional
 * update takes it when free or lapsed: a crashed holder's lapses after TURN_MS, the worker's
 * timeout), the bucket's `tokens`, `tokensAt` and `heldUntil` left by the last holder, and
 * `nextJob` / `nextUntil`: a job that found it held is next in line for TURN_RESERVED_MS, so jobs
 * on one integration take turns chunk by chunk (the holder's own next chunk, queued the moment it
 * ends, would otherwise win every time). A delivery that does not get the turn goes back on the
 * queue for TURN_RETRY_SECONDS, not counted as a requeue.
 */

/** How long a turn holds without being given back: the provisioning worker's timeout (150 s), as a chunk's lease. */
export const TURN_MS = 150_000;
/** How long a delivery that found the turn held waits on the queue before it asks again. */
export const TURN_RETRY_SECONDS = 2;
/** How long a job that found the turn held stays next in line (renewed by each of its asks). */
export const TURN_RESERVED_MS = 10_000;

/** What the calls of a delivery are paced with: the token bucket and the calls in flight. */
export interface Pace {
  bucket: TokenBucket;
  concurrency: number;
}

/** A delivery's turn on an integration: its whole pacing, given back once (`give`, safe to call twice). */
export interface IntegrationTurn extends Pace {
  give(): Promise<void>;
}

export interface TurnDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
  /** The bucket's clock and sleep (tests move them). */
  clock?: () => number;
  sleep?: Sleep;
}

/** A pace of an integration's whole limits, from `from` (the last holder's bucket) or full. */
export function paceOf(pacing: Pacing, clock: () => number = Date.now, sleep: Sleep = realSleep, from?: BucketState): Pace {
  const concurrency = Math.max(1, Math.floor(pacing.concurrency) || 1);
  return { bucket: new TokenBucket(pacing.requestsPerMinute, concurrency, clock, sleep, from), concurrency };
}

const stateOf = (item: Record<string, unknown> | undefined): BucketState | undefined =>
  item && typeof item.tokens === 'number' && typeof item.tokensAt === 'number' ? { tokens: item.tokens, at: item.tokensAt, heldUntil: Number(item.heldUntil ?? 0) } : undefined;

/**
 * Takes the integration's turn for a delivery of `jobId`'s chunk, or undefined when another
 * delivery holds it (or another job is next in line): the caller puts its chunk back on the
 * queue for TURN_RETRY_SECONDS (the chunk runner's `{ wait }`).
 */
export async function takeIntegrationTurn(deps: TurnDeps, who: { userId: string; jobId: string; integrationId: string }, pacing: Pacing): Promise<IntegrationTurn | undefined> {
  const key = keys.integrationTurn(who.userId, who.integrationId);
  const holder = randomUUID();
  const now = deps.now().getTime();
  const expiresAt = Math.floor(now / 1000) + 86_400;
  let item: Record<string, unknown> | undefined;
  try {
    ({ Attributes: item } = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: 'SET entityType = :type, holder = :me, holderJob = :job, #until = :until, expiresAt = :exp REMOVE nextJob, nextUntil',
        ConditionExpression: '(attribute_not_exists(holder) OR #until < :now) AND (attribute_not_exists(nextJob) OR nextJob = :job OR nextUntil < :now)',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':type': 'IntegrationTurn', ':me': holder, ':job': who.jobId, ':until': now + TURN_MS, ':now': now, ':exp': expiresAt },
        ReturnValues: 'ALL_NEW',
      }),
    ));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    await waitInLine(deps, key, who.jobId, now);
    return undefined;
  }
  const pace = paceOf(pacing, deps.clock, deps.sleep, stateOf(item));
  let given: Promise<void> | undefined;
  return {
    ...pace,
    give: () => (given ??= giveBack(deps, key, holder, pace.bucket.state())),
  };
}

/** Next in line (unless another job is, and still asking): the turn, once free, waits for this job's next ask. */
const waitInLine = (deps: TurnDeps, key: { PK: string; SK: string }, jobId: string, now: number) =>
  updateUnlessOutdated(deps, {
    Key: key,
    UpdateExpression: 'SET nextJob = :job, nextUntil = :reserved',
    ConditionExpression: 'attribute_exists(holder) AND #until >= :now AND (attribute_not_exists(nextJob) OR nextJob = :job OR nextUntil < :now)',
    ExpressionAttributeNames: { '#until': 'until' },
    ExpressionAttributeValues: { ':job': jobId, ':reserved': now + TURN_RESERVED_MS, ':now': now },
  });

/** Gives the turn back with the bucket as it stands; a holder whose turn lapsed (and was taken) writes nothing. */
const giveBack = (deps: TurnDeps, key: { PK: string; SK: string }, holder: string, state: BucketState) =>
  updateUnlessOutdated(deps, {
    Key: key,
    UpdateExpression: 'SET tokens = :tokens, tokensAt = :at, heldUntil = :held REMOVE holder, holderJob, #until',
    ConditionExpression: 'holder = :me',
    ExpressionAttributeNames: { '#until': 'until' },
    ExpressionAttributeValues: { ':tokens': state.tokens, ':at': state.at, ':held': state.heldUntil, ':me': holder },
  });

/** An update of the turn whose condition failing means another delivery's state stands: nothing to write. */
async function updateUnlessOutdated(deps: TurnDeps, update: Omit<UpdateCommandInput, 'TableName'>): Promise<void> {
  try {
    await deps.db.send(new UpdateCommand({ TableName: deps.tableName, ...update }));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
