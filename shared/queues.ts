/**
 * Queues and their workers: one Lambda per worker, code in functions/workers/<worker>.ts.
 * Every queue gets a dead-letter queue. Queues without a worker are declared for the features
 * that fill them (bulk creation, exports) and get their worker with that feature.
 */
export interface QueueDefinition {
  name: 'mail' | 'bulk' | 'exports' | 'provisioning' | 'mail-events' | 'account-deletion' | 'bulk-uploads';
  worker?: 'mail-worker' | 'bulk-worker' | 'export-worker' | 'provisioning-worker' | 'mail-events-worker' | 'account-deletion-worker' | 'bulk-upload-worker';
  /** Consumes the dead-letter queue, so what could not be processed is recorded, never lost. */
  deadLetterWorker?: 'mail-dead-letter-worker' | 'bulk-dead-letter-worker' | 'export-dead-letter-worker' | 'provisioning-dead-letter-worker' | 'bulk-upload-dead-letter-worker' | 'account-deletion-dead-letter-worker';
  batchSize: number;
  /** Concurrent worker invocations at most (Lambda's maximumConcurrency; the local poller's loops). */
  maxConcurrency: number;
  /** Receives before a message goes to the dead-letter queue. */
  maxReceiveCount: number;
  visibilityTimeoutSeconds: number;
}

export const queues: readonly QueueDefinition[] = [
  // One message per invocation: a credentials chunk (100-500 accounts) is sent within a 40 s budget
  // (the worker's timeout is 60 s: a sixth of 360), its customer's share of MAIL_SEND_RATE taken
  // through the table (functions/mail/send-share.ts). A send keeps half the workers' chunks on the
  // queue (MAIL_WINDOW), so another customer's send finds a worker free.
  // A credentials chunk that failed every delivery is given up by the dead-letter worker (its
  // accounts fail with the reason, the send ends): functions/mail/send-credentials.ts.
  { name: 'mail', worker: 'mail-worker', deadLetterWorker: 'mail-dead-letter-worker', batchSize: 1, maxConcurrency: 4, maxReceiveCount: 3, visibilityTimeoutSeconds: 360 },
  // A chunk of 500 rows per message; a job's chunks are written by several workers at once (all
  // but one: the fourth is kept for a job started later, functions/bulk/bulk-jobs.ts CHUNK_WINDOW).
  // Five receives (AWS's advice for a Lambda event source, at least 5): a chunk stopped by a
  // throttling spell that outlasted its in-process retries is given 25 minutes (5 x 300 s) before
  // its job fails; docs/deploy.md, Queue retries.
  { name: 'bulk', worker: 'bulk-worker', deadLetterWorker: 'bulk-dead-letter-worker', batchSize: 1, maxConcurrency: 4, maxReceiveCount: 5, visibilityTimeoutSeconds: 300 },
  // An export whose worker timed out or crashed on its last delivery is marked failed by the dead-letter worker.
  { name: 'exports', worker: 'export-worker', deadLetterWorker: 'export-dead-letter-worker', batchSize: 1, maxConcurrency: 2, maxReceiveCount: 3, visibilityTimeoutSeconds: 900 },
  // A chunk of ~250 accounts per message, created on the platform within a 100 s budget (the
  // worker's timeout is 150 s: a sixth of 900). An integration is called by one invocation at a
  // time, at its whole limit (functions/account-jobs/integration-turn.ts), and a job on a platform
  // keeps one chunk on the queue: the workers serve that many customers at once. maxConcurrency
  // here is the local stack's and a deploy's default; a deploy sets it with provisioningWorkers
  // (lib/settings.ts, docs/capacity.md: e.g. 100 in production).
  { name: 'provisioning', worker: 'provisioning-worker', deadLetterWorker: 'provisioning-dead-letter-worker', batchSize: 1, maxConcurrency: 4, maxReceiveCount: 5, visibilityTimeoutSeconds: 900 },
  // SES's events (Send, Delivery, Bounce, Complaint) through the configuration set's SNS topic
  // (locally: bin/local/ses-events.ts). An event that comes before the sender recorded 'sent' is
  // given back and tried again 30 s later; one that never fits ends in the dead-letter queue.
  { name: 'mail-events', worker: 'mail-events-worker', batchSize: 10, maxConcurrency: 2, maxReceiveCount: 5, visibilityTimeoutSeconds: 30 },
  // One user's account erased per message (functions/account-deletion/delete-account.ts). A run
  // that stops (timeout, a service down) resumes on the next delivery; one that fails every
  // delivery is put back on the queue by the dead-letter worker 15 minutes later, logged as an error.
  { name: 'account-deletion', worker: 'account-deletion-worker', deadLetterWorker: 'account-deletion-dead-letter-worker', batchSize: 1, maxConcurrency: 2, maxReceiveCount: 5, visibilityTimeoutSeconds: 900 },
  // One uploaded CSV per message (functions/bulk/bulk-uploads.ts): read as a stream (50 MB and
  // 250,000 rows in seconds) within the worker's 150 s, then its rows handed to the bulk queue
  // as a job. A reading that fails every delivery is ended with a message by the dead-letter worker.
  { name: 'bulk-uploads', worker: 'bulk-upload-worker', deadLetterWorker: 'bulk-upload-dead-letter-worker', batchSize: 1, maxConcurrency: 2, maxReceiveCount: 3, visibilityTimeoutSeconds: 900 },
];

/** Environment variable through which a function learns a queue's URL, e.g. MAIL_QUEUE_URL. */
export const queueUrlEnv = (name: QueueDefinition['name']): string => `${name.toUpperCase().replaceAll('-', '_')}_QUEUE_URL`;
