import { randomInt } from 'node:crypto';
import { secretContext, type Cipher } from '../core/encryption';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RetryPolicy } from '../core/dynamo-retry';
import type { IntegrationRecord } from '../integrations/integration-record';
import type { ProvisioningQueue } from '../provisioning/provisioning-message';
import type { ProvisioningAdapter } from '../provisioning/provisioning-port';
import { backoffMs, mapBounded, type Sleep } from '../provisioning/pacing';
import type { Pace } from './integration-turn';
import { blockStart, STATE_BLOCK_ROWS } from '../accounts/account-states';

/**
 * Calls to a platform for a chunk's accounts, one call per account, paced the way provisioning
 * is: the integration's rate and calls in flight, on the delivery's turn on the integration
 * (integration-turn.ts), a 429 waited out as the platform says (every call waits: the window is the platform's), 5xx
 * and timeouts retried after a jittered backoff, and the work beyond the delivery's time budget
 * left to a later delivery. A kind that acts on accounts on their platform (a password set, a
 * deactivation, a removal) gives the call and records each answer; provisioning's own creation
 * (batches, refused credentials pausing the run) is provision-accounts.ts.
 */

/** How an integration is paced: its settings, else the platform's documented default. */
export interface Pacing {
  /** Requests a minute to the integration, whoever sends them; undefined: no limit but the concurrency. */
  requestsPerMinute?: number;
  /** Calls in flight to the integration at most. */
  concurrency: number;
}

/** Attempts of one account on 5xx and timeouts (each after a jittered backoff). */
export const SERVER_ERROR_ATTEMPTS = 4;
/** 429 answers one account may get before it fails: each is waited out as the platform says. */
export const RATE_LIMIT_ATTEMPTS = 20;
/** Work per delivery: the rest of a chunk goes back on the queue (the worker's timeout is 150 s). */
export const CHUNK_BUDGET_MS = 100_000;

/** What a worker's platform calls are paced with (its deps). */
export interface PacedDeps {
  sleep?: Sleep;
  clock?: () => number;
  random?: (max: number) => number;
  budgetMs?: number;
}

/** What a kind's chunk worker on the provisioning queue needs to act on accounts on their platform (account actions, project deletions). */
export interface PlatformChunkDeps extends PacedDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  now: () => Date;
  cipher: () => Promise<Cipher>;
  integration: (userId: string, integrationId: string) => Promise<IntegrationRecord | undefined>;
  adapterFor: (integration: IntegrationRecord, credentials: Record<string, string>) => ProvisioningAdapter;
  pacingOf: (integration: IntegrationRecord) => Pacing;
  retry?: RetryPolicy;
}

/**
 * One call's answer: recorded by the call (nothing more to do), or a retryable refusal: `rate`
 * (429, waited out as the platform says), `server` (5xx, timeout: backed off); `exhausted` records
 * the account once its attempts are spent.
 */
export type PacedAnswer = { retry?: undefined } | { retry: 'rate' | 'server'; retryAfterMs?: number; exhausted: () => Promise<void> };

/**
 * Calls `call` once for each item, paced. `items`: a list, or items that arrive while the calls
 * run (`prefetched`: a chunk's accounts read a piece at a time), taken as the calls free up.
 * Returns undefined when every item was answered, or the delay (ms) after which a later delivery
 * should take the rest (the budget ran out, or a wait would outlast it): the items not answered
 * are left as they were (those not read yet are not read).
 */
export async function pacedCalls<Item>(deps: PacedDeps, pace: Pace, items: readonly Item[] | AsyncIterable<Item>, call: (item: Item) => Promise<PacedAnswer>): Promise<number | undefined> {
  const clock = deps.clock ?? Date.now;
  const random = deps.random ?? ((max: number) => (max <= 0 ? 0 : randomInt(0, max + 1)));
  const deadline = clock() + (deps.budgetMs ?? CHUNK_BUDGET_MS);
  const { bucket, concurrency } = pace;
  let later: number | undefined;
  // Past the budget, or the turn may no longer be used (lost, lapsing, asked for: integration-turn.ts): the rest to a later delivery.
  const over = () => {
    if (later === undefined && clock() < deadline && pace.open?.() !== false) return false;
    later ??= 0;
    return true;
  };
  const one = async (item: Item): Promise<void> => {
    let serverErrors = 0;
    let rateLimits = 0;
    for (;;) {
      if (over()) return;
      await bucket.take();
      if (over()) return;
      const answer = await call(item);
      if (answer.retry === undefined) return;
      let waitMs: number | undefined;
      if (answer.retry === 'rate' && ++rateLimits < RATE_LIMIT_ATTEMPTS) waitMs = answer.retryAfterMs ?? 1000;
      else if (answer.retry === 'server' && ++serverErrors < SERVER_ERROR_ATTEMPTS) waitMs = answer.retryAfterMs ?? backoffMs(serverErrors, random);
      if (waitMs === undefined) return answer.exhausted();
      if (clock() + waitMs >= deadline) {
        later = Math.max(later ?? 0, waitMs);
        return;
      }
      bucket.holdFor(waitMs);
    }
  };
  if (Array.isArray(items)) {
    await mapBounded(items as readonly Item[], concurrency, one);
    return later;
  }
  // Each lane takes the next item as it frees up; an item still being read holds only the lanes that wait for it.
  const iterator = (items as AsyncIterable<Item>)[Symbol.asyncIterator]();
  let ended = false;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        // A lane stops once an item was left to a later delivery (`later`): the rest is not read.
        while (!ended && later === undefined) {
          const next = await iterator.next();
          if (next.done) {
            ended = true;
            return;
          }
          await one(next.value);
        }
      }),
    );
  } finally {
    if (!ended) await iterator.return?.();
  }
  return later;
}

/**
 * The items of `pieces` in order, each piece read by `load` while the items of the one before it
 * are worked on (one piece ahead, the first at once): a chunk's calls start once its first piece
 * is read, not once all of it is, and the rest is read beside them.
 */
export function prefetched<Piece, Item>(pieces: readonly Piece[], load: (piece: Piece) => Promise<readonly Item[]>): AsyncIterable<Item> {
  let next: Promise<readonly Item[]> | undefined;
  const start = (i: number) => {
    next = i < pieces.length ? load(pieces[i]!) : undefined;
    // Awaited below, unless the reader stops first: then its failure concerns no one.
    next?.catch(() => undefined);
  };
  start(0);
  return (async function* () {
    for (let i = 0; i < pieces.length; i++) {
      const items = await next!;
      start(i + 1);
      yield* items;
    }
  })();
}

/** Rows a piece of a chunk covers (prefetched): two state blocks of the chunk's shard, 100 accounts. */
export const PIECE_BLOCKS = 2;

/**
 * A chunk's rows (one shard's, fromRow..toRow) cut into pieces of PIECE_BLOCKS state blocks, cut
 * where blocks start: each block lies in one piece, so a writer loads it once.
 */
export function chunkPieces(chunk: { fromRow: number; toRow: number }, shards: number, blocks = PIECE_BLOCKS): { fromRow: number; toRow: number }[] {
  const width = STATE_BLOCK_ROWS * Math.max(1, shards);
  const pieces: { fromRow: number; toRow: number }[] = [];
  for (let from = chunk.fromRow; from <= chunk.toRow; ) {
    const to = Math.min(chunk.toRow, blockStart(from, shards) + width * blocks - 1);
    pieces.push({ fromRow: from, toRow: to });
    from = to + 1;
  }
  return pieces;
}

/**
 * An integration's credentials, decrypted in the worker only. Undefined when they do not open
 * (the kind fails the job or its accounts with that reason); a key that cannot be fetched now
 * (throttling, network) throws, so SQS delivers the message again.
 */
export async function integrationCredentials(cipher: () => Promise<Cipher>, userId: string, integration: IntegrationRecord): Promise<Record<string, string> | undefined> {
  const opened = await cipher();
  try {
    return JSON.parse(opened.decrypt(integration.authConfigEncrypted, secretContext.integration(userId, integration.id))) as Record<string, string>;
  } catch {
    return undefined;
  }
}
