import { ACCOUNT_ACTION_RUNNING } from '../../shared/text/account-action-running';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PlanId } from '../../shared/plans';
import { builtInTemplate } from '../../shared/email/default-template';
import { isIdShaped } from '../../shared/schemas/ids';
import {
  BUILTIN_TEMPLATE_ID,
  projectEmailCounts,
  sendPauseReasons,
  type SendPauseReason,
  type CredentialOptions,
  type MailSend,
  type MailSendStatus,
  type SendCredentialsRequest,
  type SendScope,
} from '../../shared/schemas/mail-send';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';
import { ConflictError, NotFoundError } from '../core/errors';
import { securitySettingsWithDefaults } from '../../shared/schemas/security';
import { keys } from '../core/keys';
import { queryCount } from '../core/query-pages';
import { rowRanges, shardsOf } from '../accounts/account-partitions';
import { STATE_BLOCK_ROWS } from '../accounts/account-states';
import { assertCredentialEmails } from '../usage/plan-usage';
import type { CredentialsChunkMessage, CredentialsMessage, CredentialsQueue } from './mail-message';
import { queues } from '../../shared/queues';
import type { AccountJobKind } from '../account-jobs/kind';
import * as jobs from '../account-jobs/lifecycle';
import { filterOf, NONE_MATCH, planTotal, resolveSelection, selectedRanges, selectionWords, skippedOf } from '../account-jobs/selection';
import { rowOfAccount } from '../account-jobs/selection';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from '../security/security-events';
import { successorOf as successorIn } from '../account-jobs/window';

/**
 * Credentials sends: a job like a provisioning run (functions/provisioning/provisioning-jobs.ts is
 * the pattern). The route starts it (the project's lock and the send item in one transaction),
 * the mail worker plans its chunks once the project's accounts exist and e-mails each chunk
 * (functions/mail/send-credentials.ts). One send per project at a time. docs/email.md.
 */

/**
 * Accounts per chunk message (one shard's rows in a range that holds about this many) unless the
 * plan sizes them (PlanSendDeps.chunkAccounts), and for sends planned before chunks were sized.
 */
export const MAIL_CHUNK_ACCOUNTS = 100;

export interface SendJobDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: CredentialsQueue;
  now: () => Date;
}

export interface StartSendDeps extends SendJobDeps {
  newId: (now: Date) => string;
  plan: (userId: string) => Promise<PlanId>;
  /** Whether one-time links can be issued here (functions/mail/credential-link-port.ts). */
  linksAvailable: boolean;
  /** Where a send over a selection (the bulk bar) is recorded as a security event. */
  events?: SecurityEventDeps;
}

export interface PlanSendDeps extends SendJobDeps {
  /**
   * Accounts per chunk for a send of `total` accounts (a multiple of STATE_BLOCK_ROWS: a state
   * block belongs to one chunk). Each chunk costs a delivery's fixed round trips and its tail, so
   * the mail worker makes them as large as its time budget at the paced rate allows
   * (mailChunkAccounts in send-credentials.ts). Default MAIL_CHUNK_ACCOUNTS.
   */
  chunkAccounts?: (total: number) => number;
}

export const sendKey = (userId: string, sendId: string) => keys.mailSend(userId, sendId);

export async function readSend(deps: Pick<SendJobDeps, 'db' | 'tableName'>, userId: string, sendId: string): Promise<Record<string, unknown> | undefined> {
  if (!isIdShaped(sendId)) return undefined;
  const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: sendKey(userId, sendId), ConsistentRead: true }));
  return Item?.entityType === 'MailSend' ? Item : undefined;
}

/** GET /api/mail-sends/{id}: the counts add up to total at every moment. */
export function sendView(item: Record<string, unknown>): MailSend {
  const total = Number(item.total ?? 0);
  const sent = Number(item.sent ?? 0);
  const failed = Number(item.failed ?? 0);
  const suppressed = Number(item.suppressed ?? 0);
  const open = Math.max(0, total - sent - failed - suppressed);
  // Once its chunks are on the queue, what is not done is queued; before that it is pending.
  const onQueue = item.status === 'running' && item.chunksQueued === true;
  const skipped = skippedOf(item, sent + failed + suppressed);
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    projectName: String(item.projectName ?? ''),
    scope: item.scope as SendScope,
    ...(typeof item.accountId === 'string' ? { accountId: item.accountId } : {}),
    ...(filterOf(item) ? { filter: filterOf(item) } : {}),
    templateId: String(item.templateId),
    templateName: String(item.templateName ?? ''),
    delivery: item.delivery === 'link' ? 'link' : 'password',
    ...(item.delivery === 'link' ? { linkExpiresInDays: Number(item.linkExpiresInDays) } : {}),
    status: item.status as MailSendStatus,
    total,
    sent,
    failed,
    suppressed,
    pending: skipped === undefined ? (onQueue ? 0 : open) : 0,
    queued: skipped === undefined && onQueue ? open : 0,
    ...(skipped ? { skipped } : {}),
    ...(typeof item.reason === 'string' ? { reason: item.reason } : {}),
    ...(item.status === 'running' && (sendPauseReasons as readonly unknown[]).includes(item.pausedReason)
      ? { paused: { reason: item.pausedReason as SendPauseReason, detail: String(item.pausedMessage ?? ''), resumesAt: String(item.resumesAt ?? '') } }
      : {}),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    ...(typeof item.completedAt === 'string' ? { completedAt: item.completedAt } : {}),
  };
}

/** An account id is `<projectId>.<row>` (keys.accountId): its row (the engine's selection.ts). */
export { rowOfAccount };

/** How many accounts a send takes, from the project's exact counters (a selection: its rows, or its filter's count). */
function scopeCount(send: Record<string, unknown>, project: Record<string, unknown>): number {
  const scope = send.scope as SendScope;
  if (scope === 'selection') return Array.isArray(send.rows) ? send.rows.length : planTotal(send, project);
  const accountCount = Number(project.accountCount ?? 0);
  const counts = projectEmailCounts(project, accountCount);
  return { all: accountCount, unsent: counts.notSent, failed: counts.failed, account: 1 }[scope];
}

/**
 * A send over some of the project's rows (`rowsFrom..rowsTo` on the send: the people an add made,
 * functions/bulk/add-people.ts): only those rows' accounts are e-mailed.
 */
export type SendRows = { from: number; to: number };
export const rowsOfSend = (send: Record<string, unknown>): SendRows | undefined =>
  typeof send.rowsFrom === 'number' && typeof send.rowsTo === 'number' ? { from: send.rowsFrom, to: send.rowsTo } : undefined;

/** How many accounts the project has in the rows (a Query of the range in each partition: in proportion to the rows). */
async function accountsIn(deps: Pick<SendJobDeps, 'db' | 'tableName'>, userId: string, projectId: string, shards: number, rows: SendRows): Promise<number> {
  let count = 0;
  for (const pk of keys.accountPartitions(userId, projectId, shards)) {
    count += await queryCount(deps.db, {
      TableName: deps.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': pk, ':first': keys.account(userId, projectId, rows.from).SK, ':last': keys.account(userId, projectId, rows.to).SK },
      ConsistentRead: true,
    });
  }
  return count;
}

/** The template a send renders with, copied onto the send: a later edit does not change a send under way. */
async function templateFor(deps: Pick<SendJobDeps, 'db' | 'tableName'>, userId: string, options: CredentialOptions, withLoginUrl: boolean) {
  const get = async (key: { PK: string; SK: string }) => (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true }))).Item;
  let id = options.templateId;
  if (id === undefined) {
    // The user's default template, else the built-in one.
    const pointer = await get(keys.emailTemplateDefault(userId));
    id = typeof pointer?.templateId === 'string' ? pointer.templateId : BUILTIN_TEMPLATE_ID;
  }
  if (id === BUILTIN_TEMPLATE_ID) {
    const builtIn = builtInTemplate(options.delivery, { withLoginUrl });
    return { templateId: builtIn.id, templateName: builtIn.name, subject: builtIn.subject, htmlContent: builtIn.htmlContent, brandLogoUrl: builtIn.brandLogoUrl };
  }
  const item = isIdShaped(id) ? await get(keys.emailTemplate(userId, id)) : undefined;
  if (!item) throw new NotFoundError('Template not found');
  if (item.isActive === false) throw new ConflictError(`The template '${String(item.name)}' is inactive. Make it active in Email Templates, or choose another one.`);
  return { templateId: id, templateName: String(item.name), subject: String(item.subject), htmlContent: String(item.htmlContent), brandLogoUrl: String(item.brandLogoUrl ?? '') };
}

/**
 * Starts e-mailing a project's account holders their credentials: 'all', those never e-mailed
 * ('unsent'), those whose e-mail failed ('failed', Resend failed) or one account. One send per
 * project at a time (a lock on the project item, taken with the send item in one transaction).
 * `waitForAccounts`: a bulk job is still creating the project's accounts; the send plans its
 * chunks once that job has ended. `rows`: only the accounts of these rows (people just added, all
 * of them new: the send counts the accounts there).
 */
export const PASSWORDS_BEING_RESET = 'The passwords of this project are being reset. Send the credentials once the reset has finished.';

export const startSend =
  (deps: StartSendDeps) =>
  async (userId: string, projectId: string, input: SendCredentialsRequest, options: { waitForAccounts?: boolean; rows?: SendRows; origin?: Partial<RequestOrigin> } = {}): Promise<MailSend> => {
    assertCredentialEmails(await deps.plan(userId));
    const { Item: project } = isIdShaped(projectId)
      ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true }))
      : { Item: undefined };
    if (!project || project.entityType !== 'Project') throw new NotFoundError('Project not found');
    // Not while Reset Passwords changes them: the e-mails would carry passwords about to be replaced.
    if (typeof project.activeProjectDeletion === 'string') throw new ConflictError(PROJECT_BEING_DELETED);
    if (typeof project.activePasswordReset === 'string') throw new ConflictError(PASSWORDS_BEING_RESET);
    if (typeof project.activeAccountAction === 'string') throw new ConflictError(ACCOUNT_ACTION_RUNNING);
    let accountRow: number | undefined;
    if (input.scope === 'account') {
      accountRow = rowOfAccount(projectId, input.accountId ?? '');
      const { Item: account } = accountRow
        ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.account(userId, projectId, accountRow, shardsOf(project)), ConsistentRead: true }))
        : { Item: undefined };
      if (!account || account.id !== input.accountId) throw new NotFoundError('Account not found');
    }
    // The bulk bar's listed accounts or filter: checked as every selection is (404 for an id not of the project).
    const selection = input.scope === 'selection' ? await resolveSelection(deps, { userId, projectId, project }, { accountIds: input.accountIds, filter: input.filter }) : undefined;
    if (input.delivery === 'link' && !deps.linksAvailable) {
      throw new ConflictError('One-time links cannot be sent yet on this installation. Send the password in the e-mail instead.');
    }
    // Where the account holders sign in ({{loginUrl}}): the project's platform URL, when it has one.
    const loginUrl = typeof project.platformUrl === 'string' && project.platformUrl ? project.platformUrl : undefined;
    const template = await templateFor(deps, userId, input, loginUrl !== undefined);
    // An add's rows (rowsFrom..rowsTo), for a send of a whole-project scope; a selection is its own.
    const rows = input.scope === 'account' || selection ? undefined : options.rows;
    const total = options.waitForAccounts ? 0 : selection ? selection.total : rows ? await accountsIn(deps, userId, projectId, shardsOf(project), rows) : scopeCount({ scope: input.scope }, project);
    if (!options.waitForAccounts && total === 0) {
      throw new ConflictError(
        {
          selection: NONE_MATCH[selection?.filter ?? 'all'],
          all: 'This project has no accounts to e-mail.',
          unsent: 'Every account of this project has been e-mailed already. Use Resend failed, or send to one account from its row.',
          failed: 'No credential e-mail of this project failed: there is nothing to resend.',
          account: 'This project has no accounts to e-mail.',
        }[input.scope],
      );
    }
    const { Item: profile } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.user(userId), ConsistentRead: true }));

    const now = deps.now();
    const at = now.toISOString();
    const sendId = deps.newId(now);
    const item = {
      ...sendKey(userId, sendId),
      entityType: 'MailSend',
      id: sendId,
      userId,
      projectId,
      projectName: String(project.name),
      scope: input.scope,
      ...(input.scope === 'account' ? { accountId: input.accountId, accountRow } : {}),
      ...(rows ? { rowsFrom: rows.from, rowsTo: rows.to } : {}),
      ...(selection?.fields ?? {}),
      overrideSuppression: input.scope === 'account' && input.overrideSuppression,
      delivery: input.delivery,
      ...(input.delivery === 'link' ? { linkExpiresInDays: input.linkExpiresInDays } : {}),
      ...template,
      companyName: typeof profile?.company === 'string' ? profile.company : '',
      ...(loginUrl ? { loginUrl } : {}),
      // {{expirationDate}}: the project's date as it is when the send starts.
      ...(typeof project.expirationDate === 'string' ? { expirationDate: project.expirationDate } : {}),
      // The e-mail says a new password will be asked for (Require password change), as set now.
      requirePasswordChange: securitySettingsWithDefaults(profile?.securitySettings).requirePasswordChange,
      status: options.waitForAccounts ? 'waiting' : 'queued',
      total,
      sent: 0,
      failed: 0,
      suppressed: 0,
      chunks: 0,
      chunksDone: 0,
      ...(options.waitForAccounts ? { waitingSince: now.getTime() } : {}),
      createdAt: at,
      updatedAt: at,
    };
    const started = await jobs.startJob(deps, credentialSends, item, {
      excludes: ['activePasswordReset', 'activeProjectDeletion', 'activeAccountAction'],
      projectSet: { mailSendId: sendId, updatedAt: at },
      unqueued: 'The send could not be queued. Please try again.',
    });
    if (started === 'busy') throw new ConflictError('Credentials of this project are being e-mailed already. Wait for that send to finish, then try again.');
    if (selection && deps.events) {
      // Who sent whose credentials, how many: a send over the bulk bar's selection.
      await recordSecurityEvent(deps.events, {
        userId,
        type: 'credentials_sent',
        severity: 'medium',
        description: `Send credentials: ${selectionWords({ accountIds: input.accountIds, filter: input.filter }, total)} of project "${String(project.name)}"${input.delivery === 'link' ? ', as one-time links' : ''}`,
        ...options.origin,
        at: now,
        source: `send:${sendId}`,
      });
    }
    return sendView(item);
  };

/**
 * The chunks of a send: each shard's rows 1..maxRow in ranges of about MAIL_CHUNK_ACCOUNTS
 * accounts of that shard; one account's send is one chunk of its row. The same plan always gives
 * the same chunks, so a plan that runs twice queues the same messages (a chunk is done once).
 */
export function chunkPlan(
  userId: string,
  sendId: string,
  shards: number,
  maxRow: number,
  accountRow?: number,
  accountsPerChunk = MAIL_CHUNK_ACCOUNTS,
  listed?: readonly number[],
  rows?: SendRows,
): CredentialsChunkMessage[] {
  if (accountRow !== undefined) return [{ type: 'credentials', userId, sendId, chunk: 0, shard: accountRow % Math.max(1, shards), fromRow: accountRow, toRow: accountRow }];
  // Listed accounts: only the chunks that hold them (the same block-aligned ranges as a send to all).
  if (listed) return selectedRanges(shards, listed, accountsPerChunk).map((range) => ({ type: 'credentials', userId, sendId, ...range }));
  const ranges = rowRanges(shards, rows ? Math.min(maxRow, rows.to) : maxRow, accountsPerChunk);
  // A send over some rows: the project's ranges that reach them, cut to them and numbered again.
  const kept = rows ? ranges.filter((range) => range.toRow >= rows.from).map((range, chunk) => ({ ...range, chunk, fromRow: Math.max(range.fromRow, rows.from) })) : ranges;
  return kept.map((range) => ({ type: 'credentials', userId, sendId, ...range }));
}

/** A chunk size as planned: a whole number of state blocks (STATE_BLOCK_ROWS), else the default. */
const chunkAccountsOf = (value: unknown): number => {
  const n = Number(value);
  return Number.isInteger(n) && n >= STATE_BLOCK_ROWS && n % STATE_BLOCK_ROWS === 0 ? n : MAIL_CHUNK_ACCOUNTS;
};

/**
 * A send's first message: once the project's accounts exist (its bulk job ended), count the
 * send's accounts, plan its chunks and queue them. Every step may run again (redelivery): the plan
 * is fixed by a conditional write, and chunks queued twice are done once.
 */
export const planSend =
  (deps: PlanSendDeps) =>
  (userId: string, sendId: string): Promise<void> =>
    jobs.planJob(deps, credentialSendsPlannedBy(deps), userId, sendId);

/**
 * Chunks of one send on the shared mail queue at once: half as many as the queue has workers, so
 * a second customer's send finds a worker free at once instead of waiting for a chunk of the first
 * to end (the rate itself is shared per customer: send-share.ts). Another user's five e-mails,
 * queued after a 10,000-mail send, wait behind at most this many chunks instead of all of them
 * (the provisioning queue's turns, functions/provisioning/chunk-window.ts).
 */
export const MAIL_WINDOW = Math.max(1, Math.floor((queues.find((q) => q.name === 'mail')?.maxConcurrency ?? 2) / 2));

/**
 * The chunk a done chunk c puts on the queue (c + window), or undefined: none left, a send planned
 * before windows (it queued every chunk), or a send no longer running.
 */
export const successorOf = (send: Record<string, unknown>, chunk: number): CredentialsChunkMessage | undefined => successorIn(credentialSends, send, chunk);

/** The chunk messages of a planned send. */
export const planOf = (send: Record<string, unknown>): CredentialsChunkMessage[] =>
  chunkPlan(
    String(send.userId),
    String(send.id),
    Number(send.shards ?? 1),
    Number(send.maxRow ?? 0),
    send.scope === 'account' ? Number(send.accountRow) : undefined,
    chunkAccountsOf(send.chunkAccounts),
    Array.isArray(send.rows) ? send.rows.map(Number) : undefined,
    rowsOfSend(send),
  );

/**
 * Credential sends as a kind of account job (functions/account-jobs): a send holds its project
 * (activeMailSend) from its start until it completes or fails; its chunks are e-mailed by
 * send-credentials.ts. `chunkAccounts`: the plan's chunk size for a send of that many accounts.
 */
function credentialSendsPlannedBy(deps: { chunkAccounts?: (total: number) => number }): AccountJobKind<CredentialsMessage, CredentialsChunkMessage> {
  return {
    name: 'credential send',
    entityType: 'MailSend',
    key: sendKey,
    chunkKey: keys.mailSendChunk,
    chunkEntityType: 'MailSendChunk',
    lock: 'activeMailSend',
    working: ['running'],
    window: MAIL_WINDOW,
    jobOf: (message) => message.sendId,
    startMessage: (userId, sendId) => ({ type: 'credentials', userId, sendId }),
    chunks: planOf,
    async plan(jobDeps, send, project) {
      const rows = rowsOfSend(send);
      const total = rows ? await accountsIn(jobDeps, String(send.userId), String(send.projectId), shardsOf(project), rows) : scopeCount(send, project);
      const layout = send.scope === 'account' || Array.isArray(send.rows) ? { shards: shardsOf(project), maxRow: 0 } : await jobs.planLayout(jobDeps, send, project, total);
      // Fixed here with the plan (stored on the send): a plan that runs again queues the same chunks.
      return { total, fields: { ...layout, chunkAccounts: chunkAccountsOf(deps.chunkAccounts?.(total) ?? MAIL_CHUNK_ACCOUNTS) } };
    },
    waitingFailure: 'The accounts were not created in time, so nothing was sent. Send the credentials from the project.',
  };
}

/** A send holds its project (activeMailSend) from its start until it completes or fails. */
export const credentialSends = credentialSendsPlannedBy({});

/** Ends a send as failed with the reason and gives the project's lock back. Accounts not reached keep their status. */
export const failSend = (deps: Pick<SendJobDeps, 'db' | 'tableName' | 'now'>, userId: string, sendId: string, reason: string): Promise<void> =>
  jobs.failJob(deps, credentialSends, userId, sendId, reason);

