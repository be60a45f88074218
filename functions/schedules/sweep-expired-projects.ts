import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { plural } from '../../shared/text/plural';
import { ACCOUNT_ACTION_LOCK, accountActionItem, accountActionJobs } from '../account-actions/account-actions';
import * as jobs from '../account-jobs/lifecycle';
import type { ProjectLock } from '../account-jobs/job-records';
import { dayOf, userTimeZone } from '../analytics/counters';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { projectExpired } from '../notifications/events';
import type { ProvisioningQueue } from '../provisioning/provisioning-message';
import { mapBounded } from '../provisioning/pacing';
import { dateArrived } from '../projects/project-expiry';
import { recordSecurityEvent } from '../security/security-events';
import { backfillExpiryIndex, type BackfillResult } from './backfill-expiry-index';
import { dueEntries } from './due-entries';
import { sweepReminders, type ReminderSweepResult } from './expiry-reminders';

/**
 * The expiry sweep (EventBridge Scheduler, hourly; locally a timer and `npm run expire`): a project
 * whose expiration date has arrived in its owner's timezone (the start of that date there) gets its
 * accounts deactivated, here and on their platform, as an account action (action 'deactivate' over
 * all of the project's accounts, `origin: 'expiry'`: each account is marked expired, its history
 * says 'Expired'), the project records `expiredAt`, and the user is told (the bell, the e-mail
 * where the settings allow, a security event).
 *
 * No Scan: the project items with an unhandled date carry the sparse ProjectsByExpiry index's keys
 * (keys.projectExpiry: the date first), so one Query reads the dates up to today in UTC+14, the
 * earliest timezone; each project is then checked against its owner's timezone (a change of
 * timezone needs no rewrite), and those not due yet wait for a later run. Starting an expiry removes
 * the project from the index in the transaction that takes the project's lock and writes the job,
 * conditional on the index entry being the one read: a second run, a redelivered invocation or a
 * date edited meanwhile starts nothing twice. A project whose accounts another job holds stays in
 * the index and is tried again on the next run.
 *
 * Until it is done, each run first gives projects written before the index existed their keys (a
 * one-time, paged, resumable backfill: functions/schedules/backfill-expiry-index.ts).
 *
 * The run is bounded: it only starts jobs (the deactivations run in the provisioning workers,
 * paced and resumable) and stops after MAX_STARTED starts or MAX_READ index entries; the next run
 * goes on from the start of the index, where what is left is.
 */
export interface ExpirySweepDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: ProvisioningQueue;
  mail?: QueueMail;
  now: () => Date;
  newId: (now: Date) => string;
  integrationName: (userId: string, integrationId: string) => Promise<string | undefined>;
}

/** Expiries started by one run at most (each: a few reads, one transaction, one message, the notices). */
export const MAX_STARTED = 200;
/** Index entries one run reads at most (not due yet in their timezone, busy, or started). */
export const MAX_READ = 2000;
const PAGE = 100;
const CONCURRENCY = 8;
/** The earliest timezone on Earth (UTC+14, Line Islands): no date anywhere is later than its date. */
const EARLIEST_ZONE = 'Pacific/Kiritimati';

/** The other jobs over a project's accounts: while one holds the project (or a creation holds its user's lock), its expiry waits for the next run. */
const LOCKS: readonly ProjectLock[] = ['activeAccountAction', 'activeProvisioningJob', 'activeMailSend', 'activePasswordReset', 'activeProjectDeletion'];

export interface SweepResult {
  /** The day (UTC+14) up to which dates were read. */
  upTo: string;
  started: { userId: string; projectId: string; jobId?: string }[];
  notYetDue: number;
  busy: number;
  /** Index entries already handled or changed (the index lags the table by a moment). */
  stale: number;
  /** The run stopped at its cap: the next run goes on. */
  more: boolean;
  /** The one-time backfill of older projects' index keys (done: nothing left to do). */
  backfill?: BackfillResult;
  /** The expiry reminders due by now (expiry-reminders.ts), started after the expiries. */
  reminders?: ReminderSweepResult;
}

export { dateArrived };

export const sweepExpiredProjects =
  (deps: ExpirySweepDeps) =>
  async (options: { maxStarted?: number; maxRead?: number; backfill?: { maxPages?: number; pageItems?: number } } = {}): Promise<SweepResult> => {
    // Older projects into the index first (once per table; a failure waits for the next run and stops no expiry).
    const backfill = await backfillExpiryIndex(deps)(options.backfill).catch((error: unknown) => {
      logger.warn('Expiry index backfill stopped; the next run goes on', { error: error instanceof Error ? error.message : String(error) });
      return undefined;
    });
    const now = deps.now();
    const upTo = dayOf(now, EARLIEST_ZONE);
    const maxStarted = options.maxStarted ?? MAX_STARTED;
    const maxRead = options.maxRead ?? MAX_READ;
    const result: SweepResult = { upTo, started: [], notYetDue: 0, busy: 0, stale: 0, more: false, ...(backfill ? { backfill } : {}) };
    const zones = new Map<string, Promise<string>>();
    const zoneOf = (userId: string) => {
      let zone = zones.get(userId);
      if (!zone) zones.set(userId, (zone = userTimeZone(deps.db, deps.tableName, userId)));
      return zone;
    };
    let read = 0;
    let slots = 0;
    for await (const page of dueEntries(deps, keys.expiryDue(), upTo, maxRead, PAGE)) {
      read += page.entries.length;
      await mapBounded(page.entries, CONCURRENCY, async ({ day: date, userId, projectId, entry }) => {
        try {
          if (!dateArrived(date, now, await zoneOf(userId))) {
            result.notYetDue++;
            return;
          }
          // A slot taken before the start (the page's projects start side by side), given back when none was made.
          if (slots >= maxStarted) {
            result.more = true;
            return;
          }
          slots++;
          const outcome = await startExpiry(deps, now, userId, projectId, entry, date).catch((error: unknown) => {
            slots--;
            throw error;
          });
          if (outcome === 'busy') result.busy++;
          else if (outcome === 'stale') result.stale++;
          else result.started.push({ userId, projectId, ...(outcome.jobId ? { jobId: outcome.jobId } : {}) });
          if (typeof outcome === 'string') slots--;
        } catch (error) {
          // One project's failure does not stop the others'; it stays in the index for the next run.
          result.busy++;
          logger.warn('Project expiry not started', { userId, projectId, error: error instanceof Error ? error.message : String(error) });
        }
      });
      if (page.more && (read >= maxRead || slots >= maxStarted)) {
        result.more = true;
        break;
      }
    }
    // The reminders due by now, from the index's own partition (a failure waits for the next run and stops no expiry).
    result.reminders = await sweepReminders(deps, upTo, zoneOf).catch((error: unknown) => {
      logger.warn('Expiry reminders not swept; the next run goes on', { error: error instanceof Error ? error.message : String(error) });
      return undefined;
    });
    return result;
  };

type Outcome = 'busy' | 'stale' | { jobId?: string };

/**
 * One due project: its accounts' deactivation started (the job, the project's lock, `expiredAt`,
 * the index entry removed: one transaction), or, with no account, only marked expired. Then the
 * security event and the notices, once (only the call whose transaction went through gets here).
 */
async function startExpiry(deps: ExpirySweepDeps, now: Date, userId: string, projectId: string, entry: string, date: string): Promise<Outcome> {
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
  if (!project || project.ExpirySK !== entry) return 'stale';
  if (LOCKS.some((lock) => typeof project[lock] === 'string')) return 'busy';
  // The import creating its accounts still runs: the next run deactivates them all, once they exist.
  const { Item: bulkJob } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, projectId), ConsistentRead: true, ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': 'status' } }));
  if (bulkJob && bulkJob.status !== 'completed' && bulkJob.status !== 'failed') return 'busy';
  // A creation or an add of this user holds the user's lock (people being added to this project,
  // whose accounts the deactivation would miss): the next run, once it ended. Checked again in the
  // start's transaction; adding to the project is refused once it has expiredAt.
  const { Item: user } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ConsistentRead: true, ProjectionExpression: 'bulkLock' }));
  if (Number((user?.bulkLock as { until?: unknown } | undefined)?.until ?? 0) >= now.getTime()) return 'busy';
  const at = now.toISOString();
  const total = Number(project.accountCount ?? 0);
  const projectName = String(project.name);
  // The expiry deactivates on the platform whatever the plan is now: the accounts were put there
  // under Pro, and taking access away when promised is the safe direction.
  const provisioned = typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;
  const integrationName = provisioned ? await deps.integrationName(userId, String(project.integrationId)) : undefined;
  let jobId: string | undefined;
  if (total === 0) {
    try {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: keys.project(userId, projectId),
          UpdateExpression: 'SET expiredAt = :at REMOVE ExpiryPK, ExpirySK',
          ConditionExpression: 'ExpirySK = :entry',
          ExpressionAttributeValues: { ':at': at, ':entry': entry },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 'stale';
      throw error;
    }
  } else {
    jobId = deps.newId(now);
    const item = accountActionItem(
      { userId, projectId, projectName, jobId, action: 'deactivate', total, at, ...(provisioned ? { integration: { id: String(project.integrationId), ...(integrationName ? { name: integrationName } : {}) } } : {}) },
      { origin: 'expiry' },
    );
    let started: Awaited<ReturnType<typeof jobs.startJob>>;
    try {
      started = await jobs.startJob({ ...deps, now: () => now }, accountActionJobs, item, {
        excludes: LOCKS.filter((lock) => lock !== ACCOUNT_ACTION_LOCK),
        projectSet: { expiredAt: at, expiryJobId: jobId },
        projectRemove: ['ExpiryPK', 'ExpirySK'],
        projectCondition: { expression: '#entry = :entry', names: { '#entry': 'ExpirySK' }, values: { ':entry': entry } },
        unqueued: 'The expiry could not be queued. It is tried again on the next run.',
        alsoItems: [
          {
            ConditionCheck: {
              TableName: deps.tableName,
              Key: keys.user(userId),
              ConditionExpression: 'attribute_not_exists(bulkLock) OR bulkLock.#until < :now',
              ExpressionAttributeNames: { '#until': 'until' },
              ExpressionAttributeValues: { ':now': now.getTime() },
            },
          },
        ],
      });
    } catch (error) {
      // Not queued (the job failed with the reason): the project goes back to the index for the next run.
      await rearm(deps, userId, projectId, jobId, entry);
      throw error;
    }
    if (started === 'busy') {
      const { Item: latest } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
      return latest?.ExpirySK === entry ? 'busy' : 'stale';
    }
  }
  await recordSecurityEvent(
    { db: deps.db, tableName: deps.tableName },
    {
      userId,
      type: 'project_expired',
      severity: 'medium',
      description: `Expired: project "${projectName}" reached its expiration date ${date}; ${total ? `all ${plural(total, 'account')} deactivated${integrationName ? `, on ${integrationName} first` : ''}` : 'no accounts'} (by the expiry schedule)`,
      ipAddress: '',
      userAgent: 'BulkOnboard expiry schedule',
      at: now,
      source: `expiry:${projectId}:${date}:${jobId ?? 'none'}`,
    },
  );
  await projectExpired({ db: deps.db, tableName: deps.tableName, mail: deps.mail }, { userId, projectId, projectName, expirationDate: date, accounts: total, ...(integrationName ? { platform: integrationName } : {}), at: now });
  return { jobId };
}

/** An expiry whose start message could not be queued: the project back in the index, not expired, unless it changed meanwhile. */
async function rearm(deps: ExpirySweepDeps, userId: string, projectId: string, jobId: string, entry: string): Promise<void> {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.project(userId, projectId),
        UpdateExpression: 'SET ExpiryPK = :pk, ExpirySK = :entry REMOVE expiredAt, expiryJobId',
        ConditionExpression: 'expiryJobId = :job',
        ExpressionAttributeValues: { ':pk': keys.expiryDue().ExpiryPK, ':entry': entry, ':job': jobId },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) logger.warn('Expiry not put back for the next run', { userId, projectId, error: String(error) });
  }
}
