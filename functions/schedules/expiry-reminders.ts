import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { MailMessage } from '../mail/mail-message';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { dateArrived } from '../projects/project-expiry';
import { dueEntries } from './due-entries';

/**
 * Expiry reminders (docs/lifecycle.md, "Expiry reminders"): a project with 'Remind account holders
 * N days before' e-mails each of its accounts that is still active and has an e-mail address once,
 * N days before its expiration date (the start of that day in the owner's timezone), with the
 * built-in reminder text ({{expirationDate}}: shared/email/default-template.ts).
 *
 * Found as the expiry is, never by a Scan: the project's reminder item waits in the
 * ProjectsByExpiry index's REMIND partition under the day it is due (project-reminder.ts), and the
 * hourly expiry sweep Queries the due ones (`sweepReminders`). Taking it out of the index is
 * conditional on the entry read, so two runs start it once; a message on the mail queue then starts
 * its job, a kind of account job (expiry-reminder-job.ts: a module of its own, so the functions
 * that only sweep hold no e-mail code nor its grants): chunks of the project's accounts, each
 * e-mailed through the send step credential sends use (the customer's share of the SES rate, the
 * daily cap). Each account is claimed before its e-mail (keys.reminderSent, conditional put per
 * account and date): a redelivered or doubled start, or a chunk delivered again, sends nobody twice.
 *
 * Cancelled by the edit that moves the date (or turns the reminder off): the job's start and each
 * of its chunks read the project and stop when its date is no longer the one it reminds of, the
 * project expired, or N changed.
 */
export interface ReminderSweepDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  mail?: QueueMail;
  now: () => Date;
}

export interface ReminderSweepResult {
  started: { userId: string; projectId: string }[];
  notYetDue: number;
  /** Entries of a project changed or gone meanwhile, or whose date arrived first (nothing to remind of). */
  dropped: number;
}

export type ReminderMessage = Extract<MailMessage, { type: 'expiry-reminder' }>;

/** The due reminders of the index up to `upTo` (the earliest timezone's day), each checked in its owner's timezone. */
export async function sweepReminders(deps: ReminderSweepDeps, upTo: string, zoneOf: (userId: string) => Promise<string>, maxRead = 2000): Promise<ReminderSweepResult> {
  const result: ReminderSweepResult = { started: [], notYetDue: 0, dropped: 0 };
  const now = deps.now();
  for await (const { entries } of dueEntries(deps, keys.remindersDue(), upTo, maxRead)) {
    for (const { day: remindOn, userId, projectId, entry } of entries) {
      try {
        const zone = await zoneOf(userId);
        if (!dateArrived(remindOn, now, zone)) result.notYetDue++;
        else if (await startReminder(deps, now, zone, userId, projectId, entry)) result.started.push({ userId, projectId });
        else result.dropped++;
      } catch (error) {
        // Left in the index: the next run tries it again.
        logger.warn('Expiry reminder not started', { userId, projectId, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return result;
}

/** One due reminder out of the index (once: conditional on the entry read), and its walk queued; false when there is nothing to remind of. */
async function startReminder(deps: ReminderSweepDeps, now: Date, zone: string, userId: string, projectId: string, entry: string): Promise<boolean> {
  const key = keys.projectReminder(userId, projectId);
  const [{ Item: reminder }, { Item: project }] = await Promise.all([
    deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true })),
    deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true })),
  ]);
  if (!reminder || reminder.ExpirySK !== entry) return false;
  const date = String(reminder.expirationDate);
  // The date arrived first (the reminder was set too late, or the sweep was down): the expiry speaks for itself.
  const remind = !!project && project.expirationDate === date && project.reminderDays === reminder.days && typeof project.expiredAt !== 'string' && !dateArrived(date, now, zone);
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: `REMOVE ExpiryPK, ExpirySK SET ${remind ? 'startedAt' : 'droppedAt'} = :at`,
        ConditionExpression: 'ExpirySK = :entry',
        ExpressionAttributeValues: { ':entry': entry, ':at': now.toISOString() },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
  if (!remind) return false;
  const message: ReminderMessage = { type: 'expiry-reminder', userId, projectId, expirationDate: date, days: Number(reminder.days) };
  try {
    if (!deps.mail) throw new Error('No mail queue');
    await deps.mail(message);
  } catch (error) {
    // Not queued: back in the index for the next run.
    await deps.db.send(new UpdateCommand({ TableName: deps.tableName, Key: key, UpdateExpression: 'SET ExpiryPK = :pk, ExpirySK = :entry REMOVE startedAt', ExpressionAttributeValues: { ':pk': keys.remindersDue().ExpiryPK, ':entry': entry } }));
    throw error;
  }
  return true;
}
