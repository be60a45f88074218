import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { dateArrived } from '../projects/project-expiry';

/**
 * Expiry reminders (docs/lifecycle.md, "Expiry reminders"): a project with 'Remind account holders
 * N days before' e-mails each of its accounts that is still active and has an e-mail address once,
 * N days before its expiration date (the start of that day in the owner's timezone), with the
 * built-in reminder text ({{expirationDate}}: shared/email/default-template.ts).
 *
 * Found as the expiry is, never by a Scan: the project's reminder item waits in the
 * ProjectsByExpiry index's REMIND partition under the day it is due (project-reminder.ts), and the
 * hourly expiry sweep Queries the due ones (`sweepReminders`). Taking it out of the index is
 * conditional on the entry read, so two runs start it once; its walk then runs on the mail queue
 * (`remindAccountHolders`, expiry-reminder-walk.ts: a module of its own, so the functions that only
 * sweep hold no e-mail code nor its grants): one message walks the project's accounts in row order,
 * taking its customer's share of the SES rate (send-share.ts), and hands the rest to the next
 * message after its budget. Each account is claimed before its e-mail (keys.reminderSent,
 * conditional put per account and date): a redelivered or doubled walk sends nobody twice.
 *
 * Cancelled by the edit that moves the date (or turns the reminder off): a walk reads the project
 * first and stops when its date is no longer the one it reminds of, the project expired, or the
 * reminder's day is no longer reached (N made smaller).
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

export type ReminderMessage = { type: 'expiry-reminder'; userId: string; projectId: string; expirationDate: string; days: number; shard: number; afterRow: number };

/** The due reminders of the index up to `upTo` (the earliest timezone's day), each checked in its owner's timezone. */
export async function sweepReminders(deps: ReminderSweepDeps, upTo: string, zoneOf: (userId: string) => Promise<string>, maxRead = 2000): Promise<ReminderSweepResult> {
  const result: ReminderSweepResult = { started: [], notYetDue: 0, dropped: 0 };
  const now = deps.now();
  let start: Record<string, unknown> | undefined;
  let read = 0;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        IndexName: 'ProjectsByExpiry',
        KeyConditionExpression: 'ExpiryPK = :pk AND ExpirySK < :next',
        ExpressionAttributeValues: { ':pk': keys.remindersDue().ExpiryPK, ':next': `${upTo}$` },
        Limit: Math.min(100, maxRead - read),
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      read++;
      const [remindOn, userId, projectId] = String(item.ExpirySK).split('#') as [string, string, string];
      try {
        const zone = await zoneOf(userId);
        if (!dateArrived(remindOn, now, zone)) result.notYetDue++;
        else if (await startReminder(deps, now, zone, userId, projectId, String(item.ExpirySK))) result.started.push({ userId, projectId });
        else result.dropped++;
      } catch (error) {
        // Left in the index: the next run tries it again.
        logger.warn('Expiry reminder not started', { userId, projectId, error: error instanceof Error ? error.message : String(error) });
      }
    }
    start = page.LastEvaluatedKey;
  } while (start && read < maxRead);
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
  const message: ReminderMessage = { type: 'expiry-reminder', userId, projectId, expirationDate: date, days: Number(reminder.days), shard: 0, afterRow: 0 };
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
