import { randomInt } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doneStatusOf, PAUSED_CREDENTIALS, provisioningSupport, sourceStatusOf, type ProvisioningMode } from '../../shared/schemas/provisioning';
import { accountPassword, attributesOf } from '../accounts/account-item';
import { StateBlockWriter } from '../accounts/account-state-writer';
import { provStatusLists } from '../accounts/account-status-list-writes';
import { channelAttributes, overlayState, rowOf, STATE_BLOCK_ROWS, type StateEntry } from '../accounts/account-states';
import { workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { secretContext, type Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { chunkRunner, deadChunkRecorder, MAX_REQUEUES, type ChunkEnd, type ChunkTally } from '../account-jobs/chunk-runner';
import { leaseItem } from '../account-jobs/lease';
import { isSelected, rowsOf } from '../account-jobs/selection';
import { chunkAccountItems } from '../accounts/account-partitions';
import { logger } from '../core/logger';
import type { IntegrationRecord } from '../integrations/integration-record';
import { counterUpdates } from '../analytics/counters';
import { failJob, jobKey, pauseJob, provisioningRuns, type ProvisioningJobDeps } from './provisioning-jobs';
import type { ChunkMessage } from './provisioning-message';
import type { AccountPolicy, MustChangeSupport, ProvisioningAdapter, ProvisioningOutcome, ProvisioningPerson } from './provisioning-port';
import { backoffMs, mapBounded } from './pacing';
import { takeIntegrationTurn, TURN_RETRY_SECONDS, type IntegrationTurn } from '../account-jobs/integration-turn';
import { joinGroups, resolveRunGroups, runGroupNames, type GroupTarget } from './run-groups';
import { CHUNK_BUDGET_MS, RATE_LIMIT_ATTEMPTS, SERVER_ERROR_ATTEMPTS, type PacedDeps, type Pacing } from '../account-jobs/platform-calls';

/** Consecutive 401/403 answers after which a run pauses instead of failing every account. */
export const AUTH_FAILURES_TO_PAUSE = 3;
/** Deliveries of one chunk put back on the queue (budget spent, or a long 429 wait) before its accounts fail: hours of waiting. */
export { MAX_REQUEUES };
/** How platform calls are paced and retried: the engine's (functions/account-jobs/platform-calls.ts), shared by every kind that calls a platform. */
export { CHUNK_BUDGET_MS, RATE_LIMIT_ATTEMPTS, SERVER_ERROR_ATTEMPTS, type Pacing };

export interface ProvisionDeps extends ProvisioningJobDeps, PacedDeps {
  cipher: () => Promise<Cipher>;
  integration: (userId: string, integrationId: string) => Promise<IntegrationRecord | undefined>;
  /** The platform's adapter for an integration with its credentials (decrypted here, where the calls are made). */
  adapterFor: (integration: IntegrationRecord, credentials: Record<string, string>, policy?: AccountPolicy) => ProvisioningAdapter;
  pacingOf: (integration: IntegrationRecord) => Pacing;
  retry?: RetryPolicy;
}

type Final = { account: Record<string, unknown>; outcome: Exclude<ProvisioningOutcome, { kind: 'failed'; retryable: true }> | Extract<ProvisioningOutcome, { kind: 'failed' }> };

const readablePassword = (cipher: Cipher, account: Record<string, unknown>): string | undefined => {
  try {
    return accountPassword(cipher, account);
  } catch {
    return undefined;
  }
};

/** The account attributes a run records (its channel's), from an entry or the account item. */
const provisioningState = (account: Record<string, unknown>): StateEntry => {
  const state: StateEntry = {};
  for (const attribute of channelAttributes.PROV) {
    const value = account[attribute];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') state[attribute] = value;
  }
  return state;
};

/** Still to do in this run: in the run's source status and not handled by this run already. */
const isLeft = (state: StateEntry, from: string, jobId: string) => (state.externalStatus ?? 'pending') === from && state.provisionRun !== jobId;

/** A chunk's accounts with their provisioning state, and the writer of that state (its PROV blocks). */
interface ChunkStates {
  /** The chunk's accounts still in the run's source status, not handled by this run (their state overlaid). */
  left: Record<string, unknown>[];
  states: StateBlockWriter;
}

/**
 * Reads a chunk's accounts and its PROV state blocks (both strongly consistent: the last
 * delivery's writes count) and keeps the accounts still to do. The filter runs here, after the
 * overlay: the account items keep the status they were created with, the blocks say where each
 * stands. Not the ones this run handled already: a retry's new failure (or an undo's) keeps the
 * source status, and must not be called again by a later delivery.
 */
async function loadChunk(deps: Pick<ProvisionDeps, 'db' | 'tableName' | 'retry'>, job: Record<string, unknown>, message: ChunkMessage): Promise<ChunkStates> {
  const { userId, jobId } = message;
  const projectId = String(job.projectId);
  const from = sourceStatusOf[job.mode as ProvisioningMode];
  const states = new StateBlockWriter({ db: deps.db, tableName: deps.tableName, retry: deps.retry ?? workerRetry }, { userId, projectId, shards: shardsOfRun(job) }, 'PROV', provStatusLists);
  const [accounts, entries] = await Promise.all([
    chunkAccountItems(deps.db, deps.tableName, { userId, projectId, shard: message.shard, fromRow: message.fromRow, toRow: message.toRow }),
    states.load(message.fromRow, message.toRow, message.shard),
  ]);
  const overlay = { PROV: entries, MAIL: new Map<number, StateEntry>() };
  const rows = rowsOf(job);
  const left = accounts.map((account) => overlayState(account, overlay)).filter((account) => isSelected(rows, account) && isLeft(provisioningState(account), from, jobId));
  return { left, states };
}

/** The shard count the run was planned with (the project's): the blocks' keys depend on it. */
const shardsOfRun = (job: Record<string, unknown>): number => Math.max(1, Number(job.shards ?? 1) || 1);

/**
 * Provisioning worker, one chunk of a run:
 * 1. A chunk already done (redelivery) only re-checks the run's completion. A run that is paused,
 *    failed or completed takes no calls (a resume queues its unfinished chunks again).
 * 2. Read the chunk's accounts and its PROV state blocks (functions/accounts/account-states.ts),
 *    keep those still in the run's source status (pending, or failed for a retry): an account an
 *    earlier delivery provisioned is not called again.
 * 3. Create them on the platform, in the adapter's batches, paced (token bucket, calls in flight
 *    bounded), 429 waited out exactly as the platform says, 5xx and timeouts retried with full
 *    jitter; a name the platform holds is looked up and linked when it is the same person.
 * 4. Record each account's state in the chunk's blocks as results arrive (only from its source
 *    status, marked with the run; each block written conditional on the version read, so a
 *    delivery whose lease lapsed cannot write over a newer one: it throws and is delivered
 *    again), then the chunk's tally, counted from the entries, on the run and the project in the
 *    transaction that marks the chunk done: counts stay exact however often a chunk is delivered.
 * 5. Refused credentials (AUTH_FAILURES_TO_PAUSE in a row) pause the run; the accounts not reached
 *    stay pending. Work beyond the time budget goes back on the queue.
 */
export const provisionChunk = (deps: ProvisionDeps) => chunkRunner(deps, provisioningRuns, { run: (job, message) => provisionLeased(deps, message, job) }, leaseItem(provisioningRuns));

async function provisionLeased(deps: ProvisionDeps, message: ChunkMessage, job: Record<string, unknown>): Promise<ChunkEnd> {
    const { userId, jobId } = message;
    const platform = await openPlatform(deps, job);
    if ('failure' in platform) {
      await failJob(deps, userId, jobId, platform.failure);
      return 'stopped';
    }
    const { integration } = platform;
    const { left: accounts, states } = await loadChunk(deps, job, message);
    if ((message.requeues ?? 0) > MAX_REQUEUES) {
      // The platform kept this chunk waiting for hours: its accounts fail with the reason (Retry failed takes them again).
      recordOutcomes(deps, job, states, accounts.map((account) => ({ account, outcome: { kind: 'failed', retryable: false, message: 'The platform kept asking us to wait (HTTP 429) for too long. Use Retry failed later.' } })));
      return { done: await chunkTally(deps, job, message, states) };
    }
    if (accounts.length === 0) return { done: await chunkTally(deps, job, message, states) };
    // The integration's platform is called by one delivery at a time, at its whole pace (integration-turn.ts).
    const turn = await takeIntegrationTurn(deps, { userId, jobId, integrationId: integration.id }, deps.pacingOf(integration));
    if (!turn) return { wait: TURN_RETRY_SECONDS };
    try {
      return await provisionOnTurn(deps, message, job, platform, accounts, states, turn);
    } finally {
      await turn.give();
    }
}

async function provisionOnTurn(
  deps: ProvisionDeps,
  message: ChunkMessage,
  job: Record<string, unknown>,
  { integration, cipher, credentials }: { integration: IntegrationRecord; cipher: Cipher; credentials: Record<string, string> },
  accounts: Record<string, unknown>[],
  states: StateBlockWriter,
  turn: IntegrationTurn,
): Promise<ChunkEnd> {
    const { userId, jobId } = message;
    const mode = job.mode as ProvisioningMode;
    const clock = deps.clock ?? Date.now;
    const random = deps.random ?? ((max: number) => (max <= 0 ? 0 : randomInt(0, max + 1)));
    const deadline = clock() + (deps.budgetMs ?? CHUNK_BUDGET_MS);
    const { bucket } = turn;
    const requirePasswordChange = mode !== 'undo' && job.requirePasswordChange === true;
    const adapter = deps.adapterFor(integration, credentials, { requirePasswordChange });
    const platformName = String(job.integrationName ?? integration.name);

    // The project's groups (fixed on the run): resolved once per run; a group the run cannot use fails the accounts, none created.
    let groupTargets: GroupTarget[] = [];
    if (mode !== 'undo' && runGroupNames(job).length) {
      const resolved = await resolveRunGroups(deps, jobKey(userId, jobId), job, adapter.groups, { platform: platformName, claimant: `${message.shard}.${message.fromRow}.${randomInt(1e9)}` });
      if (!('targets' in resolved)) adapter.close();
      if ('later' in resolved) return { later: resolved.later };
      if ('paused' in resolved) {
        await pauseJob(deps, userId, jobId, PAUSED_CREDENTIALS);
        return 'stopped';
      }
      groupTargets = resolved.targets;
      const unusable = groupTargets.flatMap((t) => (t.error ? [t.error] : []));
      if (unusable.length) {
        adapter.close();
        recordOutcomes(deps, job, states, accounts.map((account) => ({ account, outcome: { kind: 'failed', retryable: false, message: `Not created: ${unusable.join(' ')}` } })));
        return { done: await chunkTally(deps, job, message, states) };
      }
    }
    const joinAll = async (outcomes: ProvisioningOutcome[]): Promise<ProvisioningOutcome[]> =>
      groupTargets.length ? Promise.all(outcomes.map((outcome) => joinGroups(adapter.groups, groupTargets, outcome, () => bucket.take(), platformName))) : outcomes;

    const finals: Final[] = [];
    const createAll = (accounts: Record<string, unknown>[]) => createOn(adapter, cipher, accounts, finals);
    const undoAll = (accounts: Record<string, unknown>[]) => undoOn(adapter, accounts);
    let recorded = 0;
    // Results are written as they arrive, without holding up the next platform call: the writes
    // run beside the calls and are all awaited before the chunk counts as done.
    const recorder = new OutcomeRecorder(deps, job, states, clock);
    const flush = () => {
      recorder.add(finals.slice(recorded));
      recorded = finals.length;
    };
    const written = async () => {
      flush();
      await recorder.written();
    };
    let authFailuresInRow = 0;
    /** An answer other than a refusal came back in this delivery: the credentials work. */
    let credentialsAccepted = false;
    /** Accounts refused before anything showed whether the credentials work. */
    const deferred: Record<string, unknown>[] = [];
    let stop: { kind: 'auth' } | { kind: 'later'; delayMs: number } | undefined;
    try {
      // An undo is one call per account (deactivate or delete); a creation uses the platform's batches.
      const capabilities = mode === 'undo' ? undefined : await adapter.capabilities();
      if (requirePasswordChange && capabilities && job.passwordChangeApplied === undefined) await recordPasswordChange(deps, job, capabilities.mustChangePassword);
      const batchSize = capabilities?.batchSize ?? 1;
      const batchesOf = (list: Record<string, unknown>[]) => Array.from({ length: Math.ceil(list.length / batchSize) }, (_, i) => list.slice(i * batchSize, (i + 1) * batchSize));
      const lanes = turn.concurrency;
      const lane = async (batch: Record<string, unknown>[]) => {
        let waiting = batch;
        const serverErrors = new Map<Record<string, unknown>, number>();
        const rateLimits = new Map<Record<string, unknown>, number>();
        const refusals = new Map<Record<string, unknown>, number>();
        // A write that failed (another delivery wrote the blocks: this one's lease lapsed) ends the calls.
        while (waiting.length && !stop && !recorder.failed) {
          if (clock() >= deadline || !turn.open()) {
            stop = { kind: 'later', delayMs: 0 };
            return;
          }
          await bucket.take();
          if (stop) return;
          // Past the budget, or the turn may no longer be used (lost, lapsing, asked for): the rest to a later delivery.
          if (clock() >= deadline || !turn.open()) {
            stop = { kind: 'later', delayMs: 0 };
            return;
          }
          const made = mode === 'undo' ? await undoAll(waiting) : await createAll(waiting);
          const called = made.called;
          // Each account created or linked joins the run's groups before its outcome counts.
          const outcomes = mode === 'undo' ? made.outcomes : await joinAll(made.outcomes);
          waiting = called;
          if (!called.length) return;
          const again: Record<string, unknown>[] = [];

          let waitMs = 0;
          outcomes.forEach((outcome, i) => {
            const account = waiting[i]!;
            if (outcome.kind !== 'failed' || !outcome.authRefused) credentialsAccepted = true;
            if (outcome.kind !== 'failed') {
              authFailuresInRow = 0;
              finals.push({ account, outcome });
              return;
            }
            if (outcome.authRefused) {
              authFailuresInRow++;
              if (authFailuresInRow >= AUTH_FAILURES_TO_PAUSE) stop = { kind: 'auth' };
              const n = (refusals.get(account) ?? 0) + 1;
              refusals.set(account, n);
              if (stop) return; // paused: it stays pending until the credentials work
              if (n < 2) again.push(account);
              // Refused for this account alone (the platform took the credentials for another
              // call: e.g. a protected user): it fails with the reason.
              else if (credentialsAccepted) finals.push({ account, outcome });
              // Nothing has shown yet whether the credentials work (a lane's first account
              // refused twice, e.g. with one lane): tried again after the delivery's other
              // accounts, and failed only once an answer showed that the credentials work.
              else deferred.push(account);
              return;
            }
            if (outcome.retryable && outcome.rateLimited) {
              const n = (rateLimits.get(account) ?? 0) + 1;
              rateLimits.set(account, n);
              if (n < RATE_LIMIT_ATTEMPTS) {
                waitMs = Math.max(waitMs, outcome.retryAfterMs ?? 1000);
                again.push(account);
                return;
              }
            } else if (outcome.retryable) {
              const n = (serverErrors.get(account) ?? 0) + 1;
              serverErrors.set(account, n);
              if (n < SERVER_ERROR_ATTEMPTS) {
                waitMs = Math.max(waitMs, outcome.retryAfterMs ?? backoffMs(n, random));
                again.push(account);
                return;
              }
            }
            finals.push({ account, outcome });
          });
          waiting = again;
          // What is known is written now: a delivery that dies later loses nothing already done.
          flush();
          if (waiting.length && waitMs > 0) {
            if (clock() + waitMs >= deadline) {
              stop ??= { kind: 'later', delayMs: waitMs };
              return;
            }
            // A 429 holds every call of this worker, not only this batch's: the window is the platform's.
            bucket.holdFor(waitMs);
          }
        }
      };
      await mapBounded(batchesOf(accounts), lanes, lane);
      // Each round refuses every deferred account again, counted in a row: it ends in a pause
      // (AUTH_FAILURES_TO_PAUSE) unless an answer shows the credentials work, which fails them.
      while (deferred.length && !stop && !recorder.failed) await mapBounded(batchesOf(deferred.splice(0)), lanes, lane);
    } finally {
      adapter.close();
      // The platform is done with for this delivery: the next one may call it while this one writes.
      await turn.give();
    }

    await written();
    const stopped = stop as typeof stop;
    if (stopped?.kind === 'auth') {
      logger.warn('Provisioning paused: credentials refused', { jobId, integrationId: integration.id });
      await pauseJob(deps, userId, jobId, PAUSED_CREDENTIALS);
      return 'stopped';
    }
    // The rest of the chunk in a new delivery (the accounts this run handled are not read again).
    if (stopped?.kind === 'later') return { later: stopped.delayMs };
    return { done: await chunkTally(deps, job, message, states) };
}

/**
 * The run's integration, its key and credentials (decrypted here, where the calls are made), or
 * why the run fails. A key that cannot be fetched now (throttling, network) throws: SQS delivers
 * again. Only a token that does not open fails the run.
 */
async function openPlatform(deps: ProvisionDeps, job: Record<string, unknown>): Promise<{ integration: IntegrationRecord; cipher: Cipher; credentials: Record<string, string> } | { failure: string }> {
  const userId = String(job.userId);
  const integration = await deps.integration(userId, String(job.integrationId));
  if (!integration) return { failure: 'The integration was deleted: the accounts not provisioned stay pending.' };
  const cipher = await deps.cipher();
  let credentials: Record<string, string>;
  try {
    credentials = JSON.parse(cipher.decrypt(integration.authConfigEncrypted, secretContext.integration(userId, integration.id))) as Record<string, string>;
  } catch {
    return { failure: "The integration's credentials cannot be read: enter them again in the integration, then retry." };
  }
  const support = provisioningSupport(integration);
  return support.supported ? { integration, cipher, credentials } : { failure: support.reason };
}

/**
 * Creates the accounts whose password can be read (the others fail at once into `finals`,
 * nothing sent). The accounts called and their outcomes, in order.
 */
async function createOn(adapter: ProvisioningAdapter, cipher: Cipher, accounts: Record<string, unknown>[], finals: Final[]) {
  const people: ProvisioningPerson[] = [];
  const called: Record<string, unknown>[] = [];
  for (const account of accounts) {
    const password = readablePassword(cipher, account);
    if (password === undefined) {
      finals.push({ account, outcome: { kind: 'failed', retryable: false, message: 'The stored password of this account cannot be read, so it was not sent.' } });
      continue;
    }
    called.push(account);
    const attributes = attributesOf(account);
    people.push({ accountId: String(account.id), username: String(account.username), password, firstName: String(account.firstName), lastName: String(account.lastName), email: String(account.email), ...(attributes ? { attributes } : {}) });
  }
  const outcomes = people.length ? await adapter.create(people) : [];
  // A platform that repeats the request in its error must not put the password in externalError.
  return {
    called,
    outcomes: outcomes.map((outcome, i) =>
      (outcome.kind === 'failed' || outcome.kind === 'conflict') && people[i] && outcome.message.includes(people[i].password)
        ? { ...outcome, message: outcome.message.split(people[i].password).join('[password]') }
        : outcome,
    ),
  };
}

/** Deactivates or deletes each account on the platform (already gone counts as done). */
async function undoOn(adapter: ProvisioningAdapter, accounts: Record<string, unknown>[]) {
  return {
    called: accounts,
    outcomes: await Promise.all(
      accounts.map(async (account): Promise<ProvisioningOutcome> => {
        if (typeof account.externalAccountId !== 'string') return { kind: 'linked', externalId: '' };
        const undone = await adapter.undo(account.externalAccountId);
        return undone.kind === 'failed' ? { ...undone, message: `Undo failed: ${undone.message}` } : { kind: 'linked', externalId: account.externalAccountId };
      }),
    ),
  };
}

/** What the run did with Require password change: the platform's answer, written once per run (every chunk agrees). */
async function recordPasswordChange(deps: Pick<ProvisionDeps, 'db' | 'tableName'>, job: Record<string, unknown>, support: MustChangeSupport): Promise<void> {
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: jobKey(String(job.userId), String(job.id)),
      UpdateExpression: 'SET passwordChangeApplied = if_not_exists(passwordChangeApplied, :applied), passwordChangeDetail = if_not_exists(passwordChangeDetail, :detail)',
      ExpressionAttributeValues: { ':applied': support.supported, ':detail': support.supported ? support.how : support.reason },
    }),
  );
}

/**
 * Each account's new state, set in the chunk's PROV state blocks (in memory: the caller writes
 * them, `StateBlockWriter.flush`, or through an OutcomeRecorder): only an account still in the
 * run's source status and not handled by this run changes, marked with the run's id
 * (`provisionRun`), so the chunk's tally is counted from the entries. An entry replaces all the
 * provisioning attributes of the account, so it carries forward what stays (the platform id after
 * an undo or a failure).
 */
export function recordOutcomes(deps: Pick<ProvisionDeps, 'now'>, job: Record<string, unknown>, states: StateBlockWriter, finals: readonly Final[]): void {
  const mode = job.mode as ProvisioningMode;
  const from = sourceStatusOf[mode];
  const run = String(job.id);
  const at = deps.now().toISOString();
  for (const { account, outcome } of finals) {
    const row = rowOf(account);
    const before = states.get(row) ?? provisioningState(account);
    if (!isLeft(before, from, run)) continue;
    const ok = outcome.kind === 'created' || outcome.kind === 'linked';
    // A failed undo leaves the account on the platform: still Synced, with the reason.
    const to = ok ? doneStatusOf[mode] : mode === 'undo' ? 'success' : 'failed';
    // A failed group join keeps the account's id on the platform (it was created there).
    const externalId = ok && mode !== 'undo' ? (outcome as { externalId: string }).externalId : ((outcome as { externalId?: string }).externalId ?? before.externalAccountId);
    states.set(row, {
      externalStatus: to,
      ...(typeof externalId === 'string' ? { externalAccountId: externalId } : {}),
      ...(ok ? {} : { externalError: (outcome as { message: string }).message.slice(0, 500) }),
      provisionedAt: at,
      provisionRun: run,
    });
  }
}

/** Results not yet written after which the chunk's blocks are written: about one block's worth. */
export const WRITE_EVERY_RESULTS = STATE_BLOCK_ROWS;
/** The longest a result waits for its write while others keep arriving. */
export const WRITE_EVERY_MS = 1000;

/**
 * Records a delivery's results as they arrive and writes the chunk's blocks beside the platform
 * calls, about a block's worth of results (or a second) at a time: a block write costs DynamoDB
 * about what several account updates did, so one per result would cost more than it saves. A
 * delivery that dies loses the results not written yet; the next delivery calls the platform for
 * those people again and the adapter's lookup links them (nobody is created twice). `failed` is
 * set once a write failed: a StateBlockConflict means another delivery wrote the blocks since
 * this one read them (its lease lapsed), so it must stop; `written()` throws it, and SQS delivers
 * the message again.
 */
export class OutcomeRecorder {
  failed: unknown;
  private unwritten = 0;
  private lastWrite: number;
  private readonly writes: Promise<void>[] = [];

  constructor(
    private readonly deps: Pick<ProvisionDeps, 'now'>,
    private readonly job: Record<string, unknown>,
    private readonly states: StateBlockWriter,
    private readonly clock: () => number = Date.now,
  ) {
    this.lastWrite = clock();
  }

  add(finals: readonly Final[]): void {
    if (!finals.length) return;
    recordOutcomes(this.deps, this.job, this.states, finals);
    this.unwritten += finals.length;
    if (this.unwritten >= WRITE_EVERY_RESULTS || this.clock() - this.lastWrite >= WRITE_EVERY_MS) this.write();
  }

  /** Writes what is left and waits for every write; throws the first write's error. */
  async written(): Promise<void> {
    this.write();
    await Promise.all(this.writes);
    if (this.failed) throw this.failed;
  }

  private write(): void {
    this.unwritten = 0;
    this.lastWrite = this.clock();
    this.writes.push(this.states.flush().catch((error: unknown) => void (this.failed ??= error)));
  }
}

/**
 * A chunk is done: what this run did to its accounts, counted from its entries once all are
 * written (read strongly consistent, then written by this delivery), for the run's and the
 * project's counts, added in the transaction that writes its done marker (the engine's
 * recordChunkDone), once. So synced + failed + pending = accounts always holds on the run and the
 * project; the counts follow the accounts chunk by chunk.
 */
async function chunkTally(deps: Pick<ProvisionDeps, 'tableName'>, job: Record<string, unknown>, message: ChunkMessage, states: StateBlockWriter): Promise<ChunkTally> {
  // Nothing counts before it is written (a flush already running included).
  await states.flush();
  const shards = shardsOfRun(job);
  const tally = { success: 0, failed: 0, removed: 0 };
  for (let row = message.fromRow; row <= message.toRow; row++) {
    if (row % shards !== message.shard) continue;
    const entry = states.get(row);
    if (!entry || entry.provisionRun !== job.id) continue;
    const status = entry.externalStatus as keyof typeof tally;
    if (status in tally) tally[status]++;
  }
  // The run counts what it did (for an undo, 'synced' counts the accounts removed). The project:
  // from pending, synced and failed both grow; from failed (a retry), a success moves one from
  // failed to synced and a new failure stays failed; an undo moves synced to removed.
  const undo = job.mode === 'undo';
  const synced = undo ? tally.removed : tally.success;
  const failed = undo ? tally.success : tally.failed;
  const project = undo
    ? { synced: -tally.removed, failed: 0, removed: tally.removed }
    : { synced: tally.success, failed: job.mode === 'retry' ? -tally.success : tally.failed, removed: 0 };
  return {
    marker: { synced, failed },
    job: { synced, failed },
    also: [
      {
        Update: {
          TableName: deps.tableName,
          Key: keys.project(message.userId, String(job.projectId)),
          UpdateExpression: 'ADD syncedCount :synced, syncFailedCount :failed, syncRemovedCount :removed',
          ExpressionAttributeValues: { ':synced': project.synced, ':failed': project.failed, ':removed': project.removed },
        },
      },
      // Accounts on each platform (analytics' top platforms), counted once with the marker.
      ...(typeof job.platform === 'string' ? counterUpdates(deps.tableName, message.userId, '', { synced: { platform: job.platform, count: project.synced } }) : []),
    ],
  };
}

/**
 * Dead-letter worker: a chunk that failed on every delivery (our side: the table, a crash). Its
 * accounts still in the source status are recorded as failed with the reason, so the run ends and
 * its counts add up; 'Retry failed' takes them again. A delivery still writing these blocks makes
 * this one's write fail (StateBlockConflict): it is delivered again.
 */
export const recordDeadChunk = (deps: Pick<ProvisionDeps, 'db' | 'tableName' | 'now' | 'retry' | 'queue'>) =>
  deadChunkRecorder(deps, provisioningRuns, async (job, message) => {
    const { left, states } = await loadChunk(deps, job, message);
    recordOutcomes(
      deps,
      job,
      states,
      left.map((account) => ({ account, outcome: { kind: 'failed', retryable: false, message: 'Provisioning stopped on our side after repeated errors. Use Retry failed to try again.' } })),
    );
    return chunkTally(deps, job, message, states);
  });

/** A start message that failed on every delivery: the run fails and gives the project back. */
export const recordDeadStart = (deps: Pick<ProvisioningJobDeps, 'db' | 'tableName' | 'now'>) => (userId: string, jobId: string) =>
  failJob(deps, userId, jobId, 'The run could not be started. Please try again.');
