import { randomInt } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expiryReminderTemplate } from '../../shared/email/default-template';
import { compileEmail, type RenderableTemplate, type RenderTools } from '../../shared/email/render-email';
import { shardsOf } from '../accounts/account-partitions';
import { withStates } from '../accounts/account-states';
import { keys } from '../core/keys';
import type { CredentialMailer } from '../mail/credential-mailer';
import { suppressionsOf } from '../mail/send-credentials';
import { SharedMailPacer, type MailPaceSettings } from '../mail/send-share';
import { backoffMs, realSleep, type Sleep } from '../provisioning/pacing';
import type { ReminderMessage } from './expiry-reminders';

/** The walk of one project's expiry reminder on the mail queue (docs/lifecycle.md, "Expiry reminders"; expiry-reminders.ts finds the due ones). */
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
    const [{ Item: user }, suppressed] = await Promise.all([
      deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ProjectionExpression: 'company' })),
      // Addresses that bounced or complained before (the user's suppression list) get no reminder.
      suppressionsOf(deps, userId),
    ]);
    const render = compileEmail(await reminderTemplate(deps, userId, project), deps.tools, { delivery: 'password' });
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
              const reason = suppressed.get(email.toLowerCase());
              if (reason) {
                await record(deps, userId, projectId, expirationDate, row, 'suppressed', reason);
                afterRow = row;
                continue;
              }
              const tags = reminderTags({ userId, projectId, row, shards, date: expirationDate });
              const outcome = await sendOne(deps, pacer, sleep, email, tags, render, {
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
              if (outcome.kind === 'sent') await recordSent(deps, userId, projectId, expirationDate, row, outcome.messageId);
              else await record(deps, userId, projectId, expirationDate, row, outcome.kind, outcome.message);
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

/** The project's reminder template: the user's own it names (while it exists and is active), else the built-in reminder text. */
async function reminderTemplate(deps: Pick<ReminderWalkDeps, 'db' | 'tableName'>, userId: string, project: Record<string, unknown>): Promise<RenderableTemplate> {
  if (typeof project.reminderTemplateId !== 'string') return expiryReminderTemplate();
  const { Item: template } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.emailTemplate(userId, project.reminderTemplateId), ConsistentRead: true }));
  if (!template || template.isActive === false) return expiryReminderTemplate();
  return { subject: String(template.subject), htmlContent: String(template.htmlContent), brandLogoUrl: String(template.brandLogoUrl ?? '') };
}

/** What became of the account's reminder, on its claim: 'sent' (SES's message id), 'suppressed' (why) or SES's failure. */
async function record(deps: Pick<ReminderWalkDeps, 'db' | 'tableName'>, userId: string, projectId: string, date: string, row: number, result: string, detail: string): Promise<void> {
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.reminderSent(userId, projectId, date, row),
      UpdateExpression: 'SET #result = :result, detail = :detail',
      ExpressionAttributeNames: { '#result': 'result' },
      ExpressionAttributeValues: { ':result': result, ':detail': detail },
    }),
  );
}

/**
 * A reminder SES took: its claim's result and the project's count of reminders sent
 * (`remindersSentCount`, shown on the project page) in one transaction, once per claim. A project
 * deleted meanwhile takes its claims with it: nothing to record.
 */
async function recordSent(deps: Pick<ReminderWalkDeps, 'db' | 'tableName'>, userId: string, projectId: string, date: string, row: number, messageId: string): Promise<void> {
  const claimed = {
    TableName: deps.tableName,
    Key: keys.reminderSent(userId, projectId, date, row),
    UpdateExpression: 'SET #result = :result, detail = :detail',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#result)',
    ExpressionAttributeNames: { '#result': 'result' },
    ExpressionAttributeValues: { ':result': 'sent', ':detail': messageId },
  };
  const counted = { TableName: deps.tableName, Key: keys.project(userId, projectId), UpdateExpression: 'ADD remindersSentCount :one', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':one': 1 } };
  await deps.db.send(new TransactWriteCommand({ TransactItems: [{ Update: claimed }, { Update: counted }] })).catch((error: unknown) => {
    if (!(error instanceof TransactionCanceledException)) throw error;
  });
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

/**
 * The tags of a reminder (SES publishes them with its events): the account, and the date it
 * reminded of, so a bounce or a complaint lands on the account's claim and history
 * (functions/mail-events, reminderMessage). Values only [A-Za-z0-9_-], as SES allows.
 */
export const reminderTags = (target: { userId: string; projectId: string; row: number; shards: number; date: string }): Record<string, string> => ({
  userId: target.userId,
  projectId: target.projectId,
  row: String(target.row),
  shards: String(target.shards),
  reminder: target.date,
});

/** One e-mail, paced; SES's throttling and its own failures tried again a few times with a growing wait. */
async function sendOne(deps: Pick<ReminderWalkDeps, 'mailer'>, pacer: SharedMailPacer, sleep: Sleep, to: string, tags: Record<string, string>, render: ReturnType<typeof compileEmail>, values: Parameters<ReturnType<typeof compileEmail>>[0]) {
  const rendered = render(values);
  for (let attempt = 1; ; attempt++) {
    // The customer's daily allowance is used: the walk waits as for a paused SES.
    if ((await pacer.take()) !== 'go') return { kind: 'capped' as const };
    const outcome = await deps.mailer.send({ ...rendered, to }, tags);
    if ((outcome.kind !== 'throttled' && outcome.kind !== 'retryable') || attempt >= ATTEMPTS) return outcome;
    await sleep(backoffMs(attempt, (max) => randomInt(Math.max(1, max))));
  }
}
