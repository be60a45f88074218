import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RetryPolicy } from '../core/dynamo-retry';
import type { ProjectLock } from './job-records';

/**
 * A kind of paced job over a set of a project's accounts (a provisioning run, a credential send,
 * a Reset Passwords job, ...): what the engine (lifecycle.ts, window.ts, chunk-runner.ts) needs
 * to know about it. The engine does the rest the same way for every kind: the project's lock and
 * the job item written together, the plan (the project's shards cut into row ranges), a window of
 * chunks on the queue, each chunk run under a lease and recorded done once with its tally, the
 * end (lock given back, the kind told), pause and resume. docs/jobs.md says how to write a kind.
 */

/** A row range of one shard of the project: what one chunk message covers. */
export interface ChunkRange {
  chunk: number;
  shard: number;
  fromRow: number;
  toRow: number;
}

/** The job item as stored (its counters, plan and status). */
export type JobItem = Record<string, unknown>;

/** Sends a kind's messages (its start message and its chunks) to its queue. */
export interface JobQueue<Message> {
  send(messages: readonly Message[], delaySeconds?: number): Promise<void>;
}

export interface JobDeps<Message = unknown> {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: JobQueue<Message>;
  now: () => Date;
  retry?: RetryPolicy;
}

/** What every kind says about itself; `Chunk` is its chunk message (a ChunkRange and its ids). */
export interface AccountJobKind<Start = unknown, Chunk extends ChunkRange = ChunkRange> {
  /** For logs and retries ('provisioning run'). */
  name: string;
  /** The job item's entityType. */
  entityType: string;
  /** The job item's key. Chunk markers are `<its SK>#CHUNK#<n>` beside it (chunkKey). */
  key: (userId: string, jobId: string) => { PK: string; SK: string };
  /** Chunk c's item: its done marker (`doneAt`, `released`, the chunk's tally). */
  chunkKey: (userId: string, jobId: string, chunk: number) => { PK: string; SK: string };
  /** The done marker's entityType. */
  chunkEntityType: string;
  /**
   * The project attribute that names the job while it runs: one job of these locks per project.
   * None: the job holds nothing (an expiry reminder: no user's send or action waits for it); its
   * start only checks the project (its `projectCondition`).
   */
  lock?: ProjectLock;
  /** Statuses in which the job works its chunks (it completes from one of them). */
  working: readonly string[];
  /**
   * Chunks of one job on the shared queue at once (0: all at once, as jobs planned before windows
   * did); a function of the job when it depends on it (a job that calls a platform keeps one:
   * its integration is called by one delivery at a time, integration-turn.ts).
   */
  window: number | ((job: JobItem) => number);
  /** The job a chunk message belongs to. */
  jobOf(message: Chunk): string;
  /** The message that plans the job (queued at the start, again while it waits for an import). */
  startMessage: (userId: string, jobId: string) => Start;
  /** The job's chunk messages, fixed by its plan (shards, maxRow and the kind's own fields on the job). */
  chunks: (job: JobItem) => Chunk[];
  /**
   * Planning: the accounts the job takes (from the project's counters, exact while the job holds
   * the lock) and what else the plan fixes on the job (`shards` and `maxRow` at least:
   * planLayout gives them for a job over every row of the project).
   */
  plan: (deps: JobDeps, job: JobItem, project: Record<string, unknown>) => Promise<{ total: number; fields: { shards: number; maxRow: number } & Record<string, unknown> }>;
  /** Its plan has chunks even when it takes no account (a project's deletion ends with a chunk that erases the project): else a job of 0 accounts completes at once. */
  chunksWithoutAccounts?: boolean;
  /** A job started while an import creates the project's accounts waits for it; this is why it gives up after WAITING_LIMIT_MS. */
  waitingFailure?: string;
  /** The job records when a worker first picks one of its chunks up (`pickedUpAt`: its status stops saying queued). */
  reportsPickup?: boolean;
  /**
   * Its chunks' tallies name their failed accounts (`failedRows`), kept beside the job
   * (job-failures.ts): the job is started with `failuresListed`, and its failures list reads them.
   */
  listsFailures?: boolean;
  /** Told once when the job ends (the bell's notification); never throws. */
  ended?: (deps: Pick<JobDeps, 'db' | 'tableName'>, job: JobItem, status: 'completed' | 'failed', at: string, reason?: string) => Promise<void>;
}
