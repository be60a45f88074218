import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../core/errors';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
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
 * A request that calls the platform itself (the dry run, the connection test) takes the turn too
 * (`withRequestTurn`), before any job waiting for it; the holder gives it up at its next call.
 *
 * The item (`INTTURN#<integrationId>` in the user's partition): `holder` and `until`, a **lease**
 * of TURN_LEASE_MS (a conditional update takes the turn when free or lapsed) that the holder's
 * **heartbeat** renews every TURN_HEARTBEAT_MS while it works, writing the bucket as it stands:
 * a crashed holder's lease lapses within TURN_LEASE_MS, and the next holder starts from its
 * bucket of a heartbeat ago. **Fenced**: a holder starts no call once its lease was taken by
 * another (a heartbeat found another holder) or is within TURN_FENCE_MS of its end unrenewed
 * (its heartbeats fail, its process stalled): its lanes stop at the next call (`open()`), and a
 * take of its bucket that slips past them throws `TurnLost`; a new holder only takes a lapsed
 * lease, so two holders never start calls at once. A delivery renews for TURN_MS at most (the
 * worker's timeout). `nextJob` / `nextUntil`: a job that found it held is next in line for
 * TURN_RESERVED_MS, so jobs on one integration take turns chunk by chunk (the holder's own next
 * chunk, queued the moment it ends, would otherwise win every time); a request in line
 * (`request#...`) goes before any job, and the holder, seeing it at a heartbeat, ends its
 * delivery at its next call (the rest goes back on the queue, as past its budget). A delivery
 * that does not get the turn goes back on the queue for TURN_RETRY_SECONDS, not counted as a requeue.
 */

/** The longest a delivery holds the turn, renewals included: the provisioning worker's timeout (150 s). */
export const TURN_MS = 150_000;
/** A holder's lease: renewed by its heartbeat while it works, so a crashed holder's lapses within this. */
export const TURN_LEASE_MS = 10_000;
/** How often a live holder renews its lease (and writes its bucket). */
export const TURN_HEARTBEAT_MS = 2_500;
/** No call starts within this of the end of the lease last renewed (a call just starting, clocks a little apart). */
export const TURN_FENCE_MS = 4_000;
/** How long a delivery that found the turn held waits on the queue before it asks again. */
export const TURN_RETRY_SECONDS = 2;
/** How long a job that found the turn held stays next in line (renewed by each of its asks). */
export const TURN_RESERVED_MS = 10_000;
/** How long a request (dry run, connection test) waits for the turn: the holder's next heartbeat and call, or a crashed holder's lease. */
export const REQUEST_TURN_WAIT_MS = 12_000;
/** How often a waiting request asks again. */
const REQUEST_ASK_MS = 200;
const REQUEST = 'request#';

/** What the calls of a delivery are paced with: the token bucket and the calls in flight. */
export interface Pace {
  bucket: TokenBucket;
  concurrency: number;
  /** False once no call may start on this pace (its turn lost, lapsing or asked for by a request): the rest is left to a later delivery. */
  open?: () => boolean;
}

/** A delivery's turn on an integration: its whole pacing, given back once (`give`, safe to call twice). */
export interface IntegrationTurn extends Pace {
  open: () => boolean;
  give(): Promise<void>;
}

/** Thrown by a turn's bucket when a call would start on a turn that is no longer held: the delivery ends and SQS delivers it again. */
export class TurnLost extends Error {
  constructor() {
    super("The integration's turn is no longer this delivery's");
    this.name = 'TurnLost';
  }
}

/** The heartbeat's timer: calls `tick` every `ms` until stopped (tests give one they fire, or one a crashed holder never fires). */
export type Every = (ms: number, tick: () => void) => () => void;
const realEvery: Every = (ms, tick) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface TurnDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
  /** The bucket's clock and sleep (tests move them). */
  clock?: () => number;
  sleep?: Sleep;
  /** The heartbeat's timer (an interval by default). */
  every?: Every;
}

/** A pace of an integration's whole limits, from `from` (the last holder's bucket) or full. */
export function paceOf(pacing: Pacing, clock: () => number = Date.now, sleep: Sleep = realSleep, from?: BucketState): Pace {
  const concurrency = Math.max(1, Math.floor(pacing.concurrency) || 1);
  return { bucket: new TokenBucket(pacing.requestsPerMinute, concurrency, clock, sleep, from), concurrency };
}

/** A bucket whose takes throw `TurnLost` once its turn is not held: the fence behind the lanes' own check. */
class FencedBucket extends TokenBucket {
  constructor(
    private readonly held: () => boolean,
    ...args: ConstructorParameters<typeof TokenBucket>
  ) {
    super(...args);
  }

  override async take(): Promise<void> {
    await super.take();
    if (!this.held()) throw new TurnLost();
  }
}

const stateOf = (item: Record<string, unknown> | undefined): BucketState | undefined =>
  item && typeof item.tokens === 'number' && typeof item.tokensAt === 'number' ? { tokens: item.tokens, at: item.tokensAt, heldUntil: Number(item.heldUntil ?? 0) } : undefined;

const TAKE_FREE = '(attribute_not_exists(holder) OR #until < :now)';
const JOB_MAY_GO = '(attribute_not_exists(nextJob) OR nextJob = :job OR nextUntil < :now)';
/** A request goes before a job in line, not before another request. */
const REQUEST_MAY_GO = `(${JOB_MAY_GO.slice(1, -1)} OR NOT begins_with(nextJob, :request))`;

/**
 * Takes the integration's turn for a delivery of `jobId`'s chunk, or undefined when another
 * delivery holds it (or another job is next in line): the caller puts its chunk back on the
 * queue for TURN_RETRY_SECONDS (the chunk runner's `{ wait }`).
 */
export async function takeIntegrationTurn(deps: TurnDeps, who: { userId: string; jobId: string; integrationId: string }, pacing: Pacing): Promise<IntegrationTurn | undefined> {
  const key = keys.integrationTurn(who.userId, who.integrationId);
  const request = who.jobId.startsWith(REQUEST);
  const holder = randomUUID();
  const now = deps.now().getTime();
  let item: Record<string, unknown> | undefined;
  try {
    ({ Attributes: item } = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: 'SET entityType = :type, holder = :me, holderJob = :job, #until = :until, expiresAt = :exp REMOVE nextJob, nextUntil',
        ConditionExpression: `${TAKE_FREE} AND ${request ? REQUEST_MAY_GO : JOB_MAY_GO}`,
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: {
          ':type': 'IntegrationTurn',
          ':me': holder,
          ':job': who.jobId,
          ':until': now + TURN_LEASE_MS,
          ':now': now,
          ':exp': Math.floor(now / 1000) + 86_400,
          ...(request ? { ':request': REQUEST } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    ));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    await waitInLine(deps, key, who.jobId, now, request);
    return undefined;
  }
  return heldTurn(deps, key, holder, now, pacing, stateOf(item));
}

/** The turn just taken at `takenAt`: its heartbeat started, its bucket fenced. */
function heldTurn(deps: TurnDeps, key: { PK: string; SK: string }, holder: string, takenAt: number, pacing: Pacing, from: BucketState | undefined): IntegrationTurn {
  const concurrency = Math.max(1, Math.floor(pacing.concurrency) || 1);
  /** The end of the lease as last written by this holder; 0 once another holder has the turn. */
  let leaseEnd = takenAt + TURN_LEASE_MS;
  let asked = false;
  const held = () => deps.now().getTime() < leaseEnd - TURN_FENCE_MS;
  const bucket = new FencedBucket(held, pacing.requestsPerMinute, concurrency, deps.clock, deps.sleep, from);
  let renewing: Promise<void> | undefined;
  let stopped = false;
  const renew = async () => {
    const now = deps.now().getTime();
    // A delivery holds the turn no longer than the worker lives (a holder that forgot to give it back lets it lapse).
    if (now - takenAt >= TURN_MS - TURN_LEASE_MS) return stop();
    const state = bucket.state();
    try {
      const { Attributes: item } = await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: key,
          UpdateExpression: 'SET #until = :until, tokens = :tokens, tokensAt = :at, heldUntil = :held',
          ConditionExpression: 'holder = :me',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':until': now + TURN_LEASE_MS, ':tokens': state.tokens, ':at': state.at, ':held': state.heldUntil, ':me': holder },
          ReturnValues: 'ALL_NEW',
        }),
      );
      if (!stopped) leaseEnd = Math.max(leaseEnd, now + TURN_LEASE_MS);
      // A request is waiting for the turn: this delivery ends at its next call.
      if (typeof item?.nextJob === 'string' && item.nextJob.startsWith(REQUEST) && Number(item.nextUntil) >= now) asked = true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        // Another holder took the lapsed lease: not one more call.
        leaseEnd = 0;
        stop();
        return;
      }
      // Not renewed this time (throttled, network): the fence closes unless a later heartbeat gets through.
      logger.warn("The integration's turn was not renewed", { error: error instanceof Error ? error.message : String(error) });
    }
  };
  const stopTimer = (deps.every ?? realEvery)(TURN_HEARTBEAT_MS, () => {
    if (!stopped && !renewing) renewing = renew().finally(() => (renewing = undefined));
  });
  function stop() {
    stopped = true;
    stopTimer();
  }
  let given: Promise<void> | undefined;
  return {
    bucket,
    concurrency,
    open: () => held() && !asked,
    give: () =>
      (given ??= (async () => {
        stop();
        await renewing;
        if (leaseEnd > 0) await giveBack(deps, key, holder, bucket.state());
      })()),
  };
}

/**
 * A request's own calls to an integration's platform (the dry run, the connection test) on the
 * integration's turn: asked for before any job waiting for it, the holder gives it up at its next
 * call; `work` runs at the integration's pace and the turn is given back after. A turn not had
 * within REQUEST_TURN_WAIT_MS (its holder is stuck in a long call, or crashed a moment ago) is a
 * 409: the platform is not called beside a job.
 */
export async function withRequestTurn<T>(deps: TurnDeps, who: { userId: string; integrationId: string; platformName: string }, pacing: Pacing, work: (turn: IntegrationTurn) => Promise<T>): Promise<T> {
  const jobId = `${REQUEST}${randomUUID()}`;
  const sleep = deps.sleep ?? realSleep;
  const clock = deps.clock ?? Date.now;
  const deadline = clock() + REQUEST_TURN_WAIT_MS;
  for (;;) {
    const turn = await takeIntegrationTurn(deps, { userId: who.userId, jobId, integrationId: who.integrationId }, pacing);
    if (turn) {
      try {
        return await work(turn);
      } catch (error) {
        // Its heartbeats could not renew the lease (the table throttled): not one more call, and an answer that says so.
        if (error instanceof TurnLost) throw busy(who.platformName);
        throw error;
      } finally {
        await turn.give();
      }
    }
    if (clock() >= deadline) throw busy(who.platformName);
    await sleep(REQUEST_ASK_MS);
  }
}

const busy = (platformName: string) => new ConflictError(`A job on this integration is calling ${platformName} right now and did not stop in time. Try again in a few seconds.`);

/** Next in line (unless another job is, and still asking; a request goes before a job): the turn, once free, waits for this one's next ask. */
const waitInLine = (deps: TurnDeps, key: { PK: string; SK: string }, jobId: string, now: number, request: boolean) =>
  updateUnlessOutdated(deps, {
    Key: key,
    UpdateExpression: 'SET nextJob = :job, nextUntil = :reserved',
    ConditionExpression: `attribute_exists(holder) AND #until >= :now AND ${request ? REQUEST_MAY_GO : JOB_MAY_GO}`,
    ExpressionAttributeNames: { '#until': 'until' },
    ExpressionAttributeValues: { ':job': jobId, ':reserved': now + TURN_RESERVED_MS, ':now': now, ...(request ? { ':request': REQUEST } : {}) },
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
