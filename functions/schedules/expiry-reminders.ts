import { randomInt } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expiryReminderTemplate } from '../../shared/email/default-template';
import { compileEmail, type RenderTools } from '../../shared/email/render-email';
import { shardsOf } from '../accounts/account-partitions';
import { withStates } from '../accounts/account-states';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { CredentialMailer } from '../mail/credential-mailer';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { SharedMailPacer, type MailPaceSettings } from '../mail/send-share';
import { backoffMs, realSleep, type Sleep } from '../provisioning/pacing';
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
 * (`remindAccountHolders`): one message walks the project's accounts in row order, paced with the
 * credential e-mails' pacer (MAIL_SEND_RATE shared by the mail workers), and hands the rest to the
 * next message after its budget. Each account is claimed before its e-mail (keys.reminderSent,
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

type ReminderMessage = { type: 'expiry-reminder'; userId: string; projectId: string; expirationDate: string; days: number; shard: number; afterRow: number };

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

export interface ReminderWalkDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  mailer: CredentialMailer;
  tools: RenderTools;
  /** The next message of a walk (the mail queue; `delaySeconds` at most 900). */
  queue: (message: ReminderMessage, delaySeconds?: number) => Promise<void>;
  now: () => Date;
  /** E-mails a second for the installation (MAIL_SEND_RATE), shared between customers (send-share.ts). */
  rate: () => number;
  /** The customer's daily cap and the share left to Cognito (MAIL_DAILY_CAP, MAIL_RESERVED_SHARE). */
  limits?: () => Omit<MailPaceSettings, 'rate'>;
  budgetMs?: number;
  sleep?: Sleep;
  clock?: () => number;
}

const PAGE = 100;
const BUDGET_MS = 40_000;
const ATTEMPTS = 4;
const PAUSED_DELAY_SECONDS = 900;

/** The mail worker's 'expiry-reminder' message: e-mails the project's active accounts from its cursor on, within the budget. */
export function remindAccountHolders(deps: ReminderWalkDeps) {
  const sleep = deps.sleep ?? realSleep;
  const clock = deps.clock ?? Date.now;
  return async (message: ReminderMessage): Promise<void> => {
    const { userId, projectId, expirationDate } = message;
    const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
    const now = deps.now();
    // Cancelled: the project is gone, its date moved or was removed, the reminder was turned off or
    // moved to another day (N changed: its own item is back in the index for that day), or the project expired.
    if (!project || project.expirationDate !== expirationDate || project.reminderDays !== message.days || typeof project.expiredAt === 'string') return;
    const { Item: user } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ProjectionExpression: 'company' }));
    const render = compileEmail(expiryReminderTemplate(), deps.tools, { delivery: 'password' });
    const shards = shardsOf(project);
    // The installation's SES rate, shared with every customer's sends, and this customer's daily allowance.
    const { dailyCap, reservedShare } = deps.limits?.() ?? { dailyCap: 0, reservedShare: 0 };
    const open = Math.max(1, Number(project.accountCount ?? 1));
    const pacer = new SharedMailPacer({ db: deps.db, tableName: deps.tableName, clock, sleep }, { rate: deps.rate(), reservedShare, dailyCap }, userId, open, open);
    try {
      const started = clock();
      for (let shard = message.shard; shard < shards; shard++) {
        let afterRow = shard === message.shard ? message.afterRow : 0;
        for (;;) {
          const { Items = [] } = await deps.db.send(
            new QueryCommand({
              TableName: deps.tableName,
              KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
              ExpressionAttributeValues: { ':pk': keys.accountPartitions(userId, projectId, shards)[shard]!, ':from': keys.account(userId, projectId, afterRow + 1, shards).SK, ':to': 'ACCOUNT#~' },
              ProjectionExpression: 'PK, SK, id, #row, firstName, lastName, email, username, isActive, expiredAt',
              ExpressionAttributeNames: { '#row': 'row' },
              ConsistentRead: true,
              Limit: PAGE,
            }),
          );
          const accounts = await withStates(deps.db, deps.tableName, { userId, projectId, shards }, Items, { consistent: true, channels: ['ACT'] });
          for (const account of accounts) {
            const row = Number(account.row ?? String(account.SK).slice('ACCOUNT#'.length));
            if (clock() - started > (deps.budgetMs ?? BUDGET_MS)) return deps.queue({ ...message, shard, afterRow });
            const email = typeof account.email === 'string' ? account.email.trim() : '';
            if (account.isActive !== false && email && (await claim(deps, userId, projectId, expirationDate, row, now))) {
              const outcome = await sendOne(deps, pacer, sleep, email, render, {
                accountHolderName: `${String(account.firstName ?? '')} ${String(account.lastName ?? '')}`.trim(),
                email,
                username: String(account.username ?? ''),
                projectName: String(project.name ?? ''),
                companyName: typeof user?.company === 'string' ? user.company : '',
                expirationDate,
                ...(typeof project.platformUrl === 'string' ? { loginUrl: project.platformUrl } : {}),
              });
              if (outcome.kind === 'paused' || outcome.kind === 'capped') {
                // SES takes no e-mail for now: this account's claim given back, the walk goes on from it later.
                await deps.db.send(new DeleteCommand({ TableName: deps.tableName, Key: keys.reminderSent(userId, projectId, expirationDate, row) }));
                return deps.queue({ ...message, shard, afterRow }, PAUSED_DELAY_SECONDS);
              }
              await deps.db.send(
                new UpdateCommand({
                  TableName: deps.tableName,
                  Key: keys.reminderSent(userId, projectId, expirationDate, row),
                  UpdateExpression: 'SET #result = :result, detail = :detail',
                  ExpressionAttributeNames: { '#result': 'result' },
                  ExpressionAttributeValues: { ':result': outcome.kind, ':detail': outcome.kind === 'sent' ? outcome.messageId : outcome.message },
                }),
              );
            }
            afterRow = row;
          }
          if (Items.length < PAGE) break;
        }
      }
    } finally {
      await pacer.close();
    }
  };
}

/** The account's claim on this date's reminder: false when a walk claimed it before (sent, or under way). */
async function claim(deps: Pick<ReminderWalkDeps, 'db' | 'tableName'>, userId: string, projectId: string, date: string, row: number, now: Date): Promise<boolean> {
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: { ...keys.reminderSent(userId, projectId, date, row), entityType: 'ReminderSent', row, claimedAt: now.toISOString() },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** One e-mail, paced; SES's throttling and its own failures tried again a few times with a growing wait. */
async function sendOne(deps: Pick<ReminderWalkDeps, 'mailer'>, pacer: SharedMailPacer, sleep: Sleep, to: string, render: ReturnType<typeof compileEmail>, values: Parameters<ReturnType<typeof compileEmail>>[0]) {
  const rendered = render(values);
  for (let attempt = 1; ; attempt++) {
    // The customer's daily allowance is used: the walk waits as for a paused SES.
    if ((await pacer.take()) !== 'go') return { kind: 'capped' as const };
    const outcome = await deps.mailer.send({ ...rendered, to }, {});
    if ((outcome.kind !== 'throttled' && outcome.kind !== 'retryable') || attempt >= ATTEMPTS) return outcome;
    await sleep(backoffMs(attempt, (max) => randomInt(Math.max(1, max))));
  }
}
