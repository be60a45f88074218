import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expiryReminderTemplate } from '../../shared/email/default-template';
import type { RenderableTemplate } from '../../shared/email/render-email';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';

/**
 * An account's claim on one expiration date's reminder (keys.reminderSent, beside the project's
 * reminder): written before its e-mail (a conditional put: once per account and date, whichever
 * job or delivery), with the job that claimed it (`job`) and, once known, what became of it
 * (`result`: 'sent' with SES's message id in `detail`, 'suppressed' or SES's failure with its words).
 * SES's events about a reminder find its claim by the e-mail's tags (functions/mail-events).
 */
interface Table {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** One account's reminder of one date. */
export interface ReminderTarget {
  userId: string;
  projectId: string;
  date: string;
  row: number;
}

export type Claim = { job?: string; result?: string };

const claimKey = (t: ReminderTarget) => keys.reminderSent(t.userId, t.projectId, t.date, t.row);

/** The claims of a date's reminder on the rows fromRow..toRow (every shard's: a caller keeps its own rows), row -> claim. */
export async function claimsOf(deps: Table, target: Omit<ReminderTarget, 'row'>, fromRow: number, toRow: number): Promise<Map<number, Claim>> {
  const found = new Map<number, Claim>();
  const from = claimKey({ ...target, row: fromRow });
  const claims = await queryItems(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': from.PK, ':from': from.SK, ':to': claimKey({ ...target, row: toRow }).SK },
    ProjectionExpression: '#row, job, #result',
    ExpressionAttributeNames: { '#row': 'row', '#result': 'result' },
    ConsistentRead: true,
  });
  for (const item of claims) found.set(Number(item.row), { ...(typeof item.job === 'string' ? { job: item.job } : {}), ...(typeof item.result === 'string' ? { result: item.result } : {}) });
  return found;
}

/** The account's claim for `job` (with its result when it is known at once: suppressed, given up); false when it was claimed before. */
export async function claim(deps: Table, target: ReminderTarget, job: string, at: string, outcome?: { result: string; detail: string }): Promise<boolean> {
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: { ...claimKey(target), entityType: 'ReminderSent', row: target.row, job, claimedAt: at, ...outcome },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** A claim given back (SES took no e-mail for now, or no time was left): a later delivery claims the account again. */
export async function unclaim(deps: Table, target: ReminderTarget): Promise<void> {
  await deps.db.send(new DeleteCommand({ TableName: deps.tableName, Key: claimKey(target), ConditionExpression: 'attribute_not_exists(#result)', ExpressionAttributeNames: { '#result': 'result' } })).catch((error: unknown) => {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  });
}

/** What became of the account's reminder other than sent: SES's failure (its kind and words), or interrupted. */
export async function record(deps: Table, target: ReminderTarget, result: string, detail: string): Promise<void> {
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: claimKey(target),
      UpdateExpression: 'SET #result = :result, detail = :detail',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#result': 'result' },
      ExpressionAttributeValues: { ':result': result, ':detail': detail.slice(0, 500) },
    }),
  ).catch((error: unknown) => {
    // The project was deleted meanwhile (its claims with it): nothing to record.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  });
}

/**
 * A reminder SES took: its claim's result and the project's count of reminders sent
 * (`remindersSentCount`, shown on the project page) in one transaction, once per claim. A project
 * deleted meanwhile takes its claims with it: nothing to record.
 */
export async function recordSent(deps: Table, target: ReminderTarget, messageId: string): Promise<void> {
  const claimed = {
    TableName: deps.tableName,
    Key: claimKey(target),
    UpdateExpression: 'SET #result = :result, detail = :detail',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#result)',
    ExpressionAttributeNames: { '#result': 'result' },
    ExpressionAttributeValues: { ':result': 'sent', ':detail': messageId },
  };
  const counted = { TableName: deps.tableName, Key: keys.project(target.userId, target.projectId), UpdateExpression: 'ADD remindersSentCount :one', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':one': 1 } };
  await deps.db.send(new TransactWriteCommand({ TransactItems: [{ Update: claimed }, { Update: counted }] })).catch((error: unknown) => {
    if (!(error instanceof TransactionCanceledException)) throw error;
  });
}

/**
 * The tags of a reminder (SES publishes them with its events): the account, and the date it
 * reminded of, so a bounce or a complaint lands on the account's claim and history
 * (functions/mail-events, reminderMessage). Values only [A-Za-z0-9_-], as SES allows.
 */
export const reminderTags = (target: ReminderTarget & { shards: number }): Record<string, string> => ({
  userId: target.userId,
  projectId: target.projectId,
  row: String(target.row),
  shards: String(target.shards),
  reminder: target.date,
});

/** The project's reminder template: the user's own it names (while it exists and is active), else the built-in reminder text. */
export async function reminderTemplate(deps: Table, userId: string, project: Record<string, unknown>): Promise<RenderableTemplate> {
  if (typeof project.reminderTemplateId !== 'string') return expiryReminderTemplate();
  const { Item: template } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.emailTemplate(userId, project.reminderTemplateId), ConsistentRead: true }));
  if (!template || template.isActive === false) return expiryReminderTemplate();
  return { subject: String(template.subject), htmlContent: String(template.htmlContent), brandLogoUrl: String(template.brandLogoUrl ?? '') };
}
