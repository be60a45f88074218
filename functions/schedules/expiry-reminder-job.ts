import { randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { compileEmail, type RenderTools } from '../../shared/email/render-email';
import { chunkAccountItems, rowRanges } from '../accounts/account-partitions';
import { rowOf, withStates } from '../accounts/account-states';
import { chunkRunner, MAX_REQUEUES, type ChunkEnd, type ChunkTally } from '../account-jobs/chunk-runner';
import type { AccountJobKind, JobDeps, JobItem } from '../account-jobs/kind';
import { leaseItem } from '../account-jobs/lease';
import { failJob, planLayout, readJob } from '../account-jobs/lifecycle';
import { keys } from '../core/keys';
import type { CredentialMailer } from '../mail/credential-mailer';
import type { ReminderChunkMessage, ReminderJobMessage } from '../mail/mail-message';
import { MAIL_CHUNK_ACCOUNTS } from '../mail/credential-sends';
import { MAIL_CHUNK_BUDGET_MS, MAX_PAUSES, PAUSE_SECONDS, suppressionsOf } from '../mail/send-credentials';
import { SharedMailPacer, type MailPaceSettings } from '../mail/send-share';
import { sendPaced, type SendStep } from '../mail/send-step';
import { realSleep, type Sleep } from '../provisioning/pacing';
import { claim, claimsOf, record, recordSent, reminderTags, reminderTemplate, unclaim, type Claim, type ReminderTarget } from './reminder-claims';

/**
 * A project's expiry reminder as a kind of account job (docs/jobs.md; docs/lifecycle.md, "Expiry
 * reminders"): the sweep finds it due (expiry-reminders.ts) and queues its start; the job walks the
 * project's accounts in chunks on the mail queue (its start: expiry-reminder-start.ts) and e-mails each active account with an address
 * once (its claim, reminder-claims.ts, written before the e-mail), through the one send step of
 * credential sends (send-step.ts: the customer's share of the SES rate, the daily cap, throttling).
 * It holds no lock on the project (no user's send or action waits for it) and moves no e-mail counter.
 */
export interface ReminderJobDeps extends JobDeps<ReminderJobMessage> {
  mailer: CredentialMailer;
  tools: RenderTools;
  /** E-mails a second for the installation (MAIL_SEND_RATE), shared between customers (send-share.ts). */
  rate: () => number;
  /** The customer's daily cap and the share left to Cognito (MAIL_DAILY_CAP, MAIL_RESERVED_SHARE). */
  limits?: () => Omit<MailPaceSettings, 'rate'>;
  budgetMs?: number;
  sleep?: Sleep;
  clock?: () => number;
  random?: (max: number) => number;
}

const CANCELLED = 'The reminder was cancelled: the expiration date or the days before it changed, the reminder was turned off, or the project expired.';
const INTERRUPTED = 'Sending was interrupted, and it is not known whether this reminder left. It was not sent again so that nobody gets it twice.';
const GIVEN_UP = 'Not sent: sending stopped on our side after repeated errors.';
/** What a reminder's job counts: every account of the project is one of them once its chunk is done. */
export const TALLY = ['sent', 'failed', 'suppressed', 'skipped'] as const;

export const expiryReminders: AccountJobKind<ReminderJobMessage, ReminderChunkMessage> = {
  name: 'expiry reminder',
  entityType: 'ExpiryReminderJob',
  key: keys.reminderJob,
  chunkKey: keys.reminderJobChunk,
  chunkEntityType: 'ExpiryReminderChunk',
  working: ['running'],
  // One chunk on the mail queue at a time: the customer's own sends find a worker free.
  window: 1,
  jobOf: (message) => message.jobId,
  startMessage: (userId, jobId) => ({ type: 'expiry-reminder-job', userId, jobId }),
  chunks: (job) => rowRanges(Number(job.shards), Number(job.maxRow), MAIL_CHUNK_ACCOUNTS).map((range) => ({ type: 'expiry-reminder-job', userId: String(job.userId), jobId: String(job.id), ...range })),
  // Every account is walked: each is counted sent, failed, suppressed or skipped (deactivated, no address, reminded before).
  plan: async (deps, job, project) => {
    const total = Number(project.accountCount ?? 0);
    return { total, fields: await planLayout(deps, job, project, total) };
  },
};

/** What a delivery reads while it takes the chunk's lease: the project, the chunk's accounts (with their ACT blocks: isActive), the claims, the suppression list, the company. */
async function readChunk(deps: ReminderJobDeps, job: JobItem, message: ReminderChunkMessage) {
  const { userId, shard, fromRow, toRow } = message;
  const projectId = String(job.projectId);
  const get = async (key: { PK: string; SK: string }) => (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true }))).Item;
  const [project, items, claims, suppressed, user] = await Promise.all([
    get(keys.project(userId, projectId)),
    chunkAccountItems(deps.db, deps.tableName, { userId, projectId, shard, fromRow, toRow }, { projection: 'PK, SK, id, #row, firstName, lastName, email, username, isActive', names: { '#row': 'row' } }),
    claimsOf(deps, { userId, projectId, date: String(job.expirationDate) }, fromRow, toRow),
    suppressionsOf(deps, userId),
    get(keys.user(userId)),
  ]);
  const accounts = await withStates(deps.db, deps.tableName, { userId, projectId, shards: Number(job.shards ?? 1) }, items, { consistent: true, channels: ['ACT'] });
  return { project, accounts, claims, suppressed, company: typeof user?.company === 'string' ? user.company : '' };
}

/** One chunk of a reminder's job: its accounts claimed and e-mailed one at a time, on the customer's turn. */
export const reminderChunk = (deps: ReminderJobDeps) =>
  chunkRunner(deps, expiryReminders, { load: (job, message) => readChunk(deps, job, message), run: (job, message, read) => remind(deps, job, message, read) }, leaseItem(expiryReminders));

async function remind(deps: ReminderJobDeps, job: JobItem, message: ReminderChunkMessage, read: Awaited<ReturnType<typeof readChunk>>): Promise<ChunkEnd> {
  const { userId } = message;
  const jobId = String(job.id);
  const { project, accounts, claims, suppressed } = read;
  const date = String(job.expirationDate);
  if (!project || project.expirationDate !== date || project.reminderDays !== job.days || typeof project.expiredAt === 'string') {
    await failJob(deps, expiryReminders, userId, jobId, CANCELLED);
    return 'stopped';
  }
  const at = deps.now().toISOString();
  const target = (row: number): ReminderTarget => ({ userId, projectId: String(job.projectId), date, row });
  const rows = new Set(accounts.map(rowOf));
  // Claimed by a delivery of this job that died before SES's answer was recorded: failed, never sent twice.
  for (const [row, held] of claims) {
    if (rows.has(row) && held.job === jobId && held.result === undefined) {
      await record(deps, target(row), 'failed', INTERRUPTED);
      claims.set(row, { job: jobId, result: 'failed' });
    }
  }
  const emailOf = (account: Record<string, unknown>) => (typeof account.email === 'string' ? account.email.trim() : '');
  const todo = accounts.filter((account) => account.isActive !== false && emailOf(account) && !claims.has(rowOf(account)));
  const mark = async (row: number, outcome?: { result: string; detail: string }) => claims.set(row, (await claim(deps, target(row), jobId, at, outcome)) ? { job: jobId, ...outcome } : {});
  // Failed every delivery (the dead-letter worker), or SES kept the chunk waiting too long: the accounts not reached fail.
  const stop = message.givenUp ? GIVEN_UP : (message.requeues ?? 0) > MAX_REQUEUES || (message.pauses ?? 0) > MAX_PAUSES ? 'Not sent: SES took no e-mail for too long.' : undefined;
  if (stop) {
    for (const account of todo) await mark(rowOf(account), { result: 'failed', detail: stop });
    return { done: tally(accounts, claims, jobId) };
  }
  if (todo.length === 0) return { done: tally(accounts, claims, jobId) };
  const clock = deps.clock ?? Date.now;
  const sleep = deps.sleep ?? realSleep;
  const { dailyCap, reservedShare } = deps.limits?.() ?? { dailyCap: 0, reservedShare: 0 };
  // The installation's SES rate, shared with every customer's sends; the customer's need is what its job has not done.
  const open = Math.max(1, Number(job.total ?? 0) - TALLY.reduce((sum, name) => sum + Number(job[name] ?? 0), 0));
  const pacer = new SharedMailPacer({ db: deps.db, tableName: deps.tableName, clock, sleep }, { rate: deps.rate(), reservedShare, dailyCap }, userId, open, todo.length, true, Math.max(open, Number(job.total ?? 0)));
  const random = deps.random ?? ((max: number) => (max <= 0 ? 0 : randomInt(0, max + 1)));
  const step: SendStep = { mailer: deps.mailer, pacer, clock, sleep, random, deadline: clock() + (deps.budgetMs ?? MAIL_CHUNK_BUDGET_MS), throttledFor: 0 };
  try {
    const render = compileEmail(await reminderTemplate(deps, userId, project), deps.tools, { delivery: 'password' });
    for (const account of todo) {
      // The rest in a new delivery: the accounts handled are not taken again.
      if (clock() >= step.deadline) return { later: step.throttledFor };
      const row = rowOf(account);
      const email = emailOf(account);
      // Addresses that bounced or complained before (the user's suppression list) get no reminder.
      const reason = suppressed.get(email.toLowerCase());
      if (reason) {
        await mark(row, { result: 'suppressed', detail: reason });
        continue;
      }
      await mark(row);
      if (claims.get(row)?.job !== jobId) continue;
      const values = {
        accountHolderName: `${String(account.firstName ?? '')} ${String(account.lastName ?? '')}`.trim(),
        email,
        username: String(account.username ?? ''),
        projectName: String(project.name ?? ''),
        companyName: read.company,
        expirationDate: date,
        ...(typeof project.platformUrl === 'string' ? { loginUrl: project.platformUrl } : {}),
      };
      const outcome = await sendPaced(step, { ...render(values), to: email }, reminderTags({ ...target(row), shards: Number(job.shards ?? 1) }));
      if (outcome.kind === 'capped' || outcome.kind === 'paused' || outcome.kind === 'no-time') {
        // Not sent: the claim is given back and a later delivery goes on from this account.
        await unclaim(deps, target(row));
        if (outcome.kind === 'no-time') return { later: step.throttledFor };
        // SES takes no e-mail for now, or the customer's allowance for today is used: the chunk waits, counted as a pause.
        await deps.queue.send([{ ...message, pauses: (message.pauses ?? 0) + 1 }], PAUSE_SECONDS);
        return 'stopped';
      }
      if (outcome.kind === 'sent') await recordSent(deps, target(row), outcome.messageId);
      else await record(deps, target(row), outcome.kind, outcome.message);
      claims.set(row, { job: jobId, result: outcome.kind });
    }
  } finally {
    await pacer.close();
  }
  return { done: tally(accounts, claims, jobId) };
}

/** The chunk's accounts by what this job wrote on their claims; every other account is skipped (deactivated, no address, reminded of the date before). */
function tally(accounts: Record<string, unknown>[], claims: Map<number, Claim>, jobId: string): ChunkTally {
  const counts: Record<(typeof TALLY)[number], number> = { sent: 0, failed: 0, suppressed: 0, skipped: 0 };
  for (const account of accounts) {
    const held = claims.get(rowOf(account));
    if (held?.job !== jobId || held.result === undefined) counts.skipped++;
    else if (held.result === 'sent' || held.result === 'suppressed') counts[held.result]++;
    else counts.failed++;
  }
  return { marker: counts, job: counts };
}

export const isReminderChunk = (message: ReminderJobMessage): message is ReminderChunkMessage => typeof message.chunk === 'number';

/** The mail queue's dead letters of a reminder's job: a chunk's accounts not reached fail (one last delivery, `givenUp`) and the job ends; a plan that never got through fails the job. */
export function recordDeadReminder(deps: ReminderJobDeps) {
  const chunk = reminderChunk(deps);
  return async (message: ReminderJobMessage): Promise<void> => {
    if (isReminderChunk(message)) return chunk({ ...message, givenUp: true });
    const job = await readJob(deps, expiryReminders, message.userId, message.jobId);
    if (job?.status === 'queued') await failJob(deps, expiryReminders, message.userId, message.jobId, 'The reminder could not be started.');
  };
}
