import { randomInt, randomUUID } from 'node:crypto';
import { PASSWORD_CHANGE_NOTICE } from '../../shared/schemas/email-templates';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { compileEmail, type RenderedEmail, type RenderTools, type TemplateValues } from '../../shared/email/render-email';
import { emailCounterAttribute, emailStatuses, type EmailStatus } from '../../shared/schemas/email-status';
import type { SendScope } from '../../shared/schemas/mail-send';
import { accountPassword } from '../accounts/account-item';
import { isThrottling, isTransactionConflict, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import type { Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { backoffMs, EvenPacer, mapBounded, realSleep, type Sleep } from '../provisioning/pacing';
import type { CredentialMailer, SendOutcome } from './credential-mailer';
import type { IssueCredentialLink } from './credential-link-port';
import { failSend, finishSend, readSend, sendKey, type SendJobDeps } from './credential-sends';
import type { CredentialsChunkMessage } from './mail-message';

/** SES's default sending quota in a new account's region: e-mails a second, all workers together. */
export const DEFAULT_MAIL_SEND_RATE = 14;
/** SendEmail calls in flight per worker invocation. */
export const MAIL_SEND_CONCURRENCY = 8;
/** Work per delivery: the rest of a chunk goes back on the queue (the mail worker's timeout is 60 s). */
export const MAIL_CHUNK_BUDGET_MS = 40_000;
/** Throttled answers one e-mail may get (each waited out with a growing backoff) before it fails. */
export const THROTTLE_ATTEMPTS = 12;
/** Attempts of one e-mail when SES fails on its side or cannot be reached. */
export const SERVER_ERROR_ATTEMPTS = 4;
/** Deliveries of one chunk put back on the queue before its accounts not reached fail. */
export const MAX_REQUEUES = 30;
/** How long a delivery holds its chunk: longer than the mail worker's timeout, so a live holder never loses it. */
const LEASE_MS = 75_000;
const LEASE_RETRY_SECONDS = 75;
/** The MailMessage item is kept 30 days (SES events come within minutes; complaints within days). */
const MAIL_MESSAGE_TTL_SECONDS = 30 * 86_400;

export const INTERRUPTED_MESSAGE =
  'Sending was interrupted, and it is not known whether this e-mail left. It was not sent again so that nobody gets it twice: use Resend if the holder did not receive it.';

export interface SendChunkDeps extends SendJobDeps {
  cipher: () => Promise<Cipher>;
  mailer: CredentialMailer;
  tools: RenderTools;
  /** Issues one-time links (delivery 'link'); absent where links are not wired. */
  issueLink?: IssueCredentialLink;
  /** E-mails a second for all workers together (MAIL_SEND_RATE); 0: no pacing. */
  rate: () => number;
  /** Worker invocations that may run at once (the mail queue's maxConcurrency): each takes its share of the rate. */
  workers: number;
  concurrency?: number;
  retry?: RetryPolicy;
  sleep?: Sleep;
  clock?: () => number;
  random?: (max: number) => number;
  budgetMs?: number;
}

type Status = EmailStatus | 'none';
const statusOf = (account: Record<string, unknown>): Status => ((emailStatuses as readonly string[]).includes(String(account.emailStatus)) ? (account.emailStatus as EmailStatus) : 'none');

/** Whether an account is one a send of this scope takes (before this send touched it). */
function inScope(send: Record<string, unknown>, account: Record<string, unknown>): boolean {
  if (account.mailSend === send.id) return false;
  const scope = send.scope as SendScope;
  const status = statusOf(account);
  if (scope === 'unsent') return status === 'none';
  if (scope === 'failed') return status === 'failed';
  if (scope === 'account') return account.id === send.accountId;
  return true;
}

/** Every account of a chunk's row range (strongly consistent: the last delivery's writes count). */
async function chunkAccounts(deps: Pick<SendChunkDeps, 'db' | 'tableName'>, userId: string, projectId: string, message: CredentialsChunkMessage) {
  const partition = keys.accountPartitions(userId, projectId, message.shard + 1)[message.shard]!;
  const accounts: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
        ExpressionAttributeValues: { ':pk': partition, ':first': keys.account(userId, projectId, message.fromRow).SK, ':last': keys.account(userId, projectId, message.toRow).SK },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    accounts.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return accounts;
}

/** The user's suppression list: address -> why. */
async function suppressionsOf(deps: Pick<SendChunkDeps, 'db' | 'tableName'>, userId: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const { PK, SKPrefix } = keys.emailSuppressionsOf(userId);
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const reason = item.reason === 'complained' ? 'complained (marked an earlier e-mail as spam)' : item.reason === 'bounced' ? 'bounced' : String(item.reason ?? 'suppressed');
      found.set(String(item.SK).slice(SKPrefix.length), `The address is on your suppression list: it ${reason}${typeof item.detail === 'string' && item.detail ? ` (${item.detail.slice(0, 200)})` : ''}. Remove it from the list in Email Templates, or send to this account with the override.`);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

async function takeLease(deps: Pick<SendChunkDeps, 'db' | 'tableName' | 'now'>, message: CredentialsChunkMessage, holder: string): Promise<boolean> {
  const now = deps.now().getTime();
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.mailSendChunk(message.userId, message.sendId, message.chunk),
        UpdateExpression: 'SET entityType = :type, chunk = :chunk, holder = :holder, #until = :until',
        ConditionExpression: 'attribute_not_exists(doneAt) AND (attribute_not_exists(#until) OR #until < :now)',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':type': 'MailSendChunk', ':chunk': message.chunk, ':holder': holder, ':until': now + LEASE_MS, ':now': now },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

async function releaseLease(deps: Pick<SendChunkDeps, 'db' | 'tableName'>, message: CredentialsChunkMessage, holder: string): Promise<void> {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.mailSendChunk(message.userId, message.sendId, message.chunk),
        UpdateExpression: 'SET #until = :zero',
        ConditionExpression: 'holder = :me',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':me': holder, ':zero': 0 },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * Mail worker, one chunk of a send:
 * 1. A chunk already done (redelivery) only re-checks the send's completion; one delivery of a
 *    chunk at a time (a lease on the chunk's item), a copy waits on the queue.
 * 2. Accounts this send claimed but never recorded (a delivery that died between its claim and
 *    SES's answer) are recorded failed with INTERRUPTED_MESSAGE, not sent again: at most once.
 * 3. Each account in the send's scope: a suppressed address is recorded 'suppressed' with the
 *    reason (unless the send overrides it); otherwise the account is claimed by a conditional
 *    write keyed by the send (status 'queued', claim 'sending') BEFORE SES is called, so no other
 *    delivery calls SES for it; then rendered and sent, paced (a token bucket per worker at its
 *    share of MAIL_SEND_RATE), a throttled answer waited out and sent again; the result is
 *    recorded ('sent' with SES's message id, and the MailMessage item; or 'failed' with SES's words).
 * 4. The chunk's tally, counted from its accounts, moves the project's e-mail counters and the
 *    send's counts in the transaction that marks the chunk done, once.
 */
export const sendChunk =
  (deps: SendChunkDeps) =>
  async (message: CredentialsChunkMessage): Promise<void> => {
    const { userId, sendId } = message;
    const { Item: marker } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.mailSendChunk(userId, sendId, message.chunk), ConsistentRead: true }));
    if (marker?.doneAt) return finishSend(deps, userId, sendId);
    const send = await readSend(deps, userId, sendId);
    if (!send || send.status !== 'running') return;
    const holder = randomUUID();
    if (!(await takeLease(deps, message, holder))) {
      await deps.queue.send([message], LEASE_RETRY_SECONDS);
      return;
    }
    try {
      await sendLeased(deps, message, send);
    } finally {
      await releaseLease(deps, message, holder);
    }
  };

async function sendLeased(deps: SendChunkDeps, message: CredentialsChunkMessage, send: Record<string, unknown>): Promise<void> {
  const { userId, sendId } = message;
  const projectId = String(send.projectId);
  const at = () => deps.now().toISOString();
  const accounts = await chunkAccounts(deps, userId, projectId, message);

  const writes: Promise<unknown>[] = [];
  let writeError: unknown;
  const background = (write: Promise<unknown>) => writes.push(write.catch((error: unknown) => void (writeError ??= error)));
  const written = async () => {
    await Promise.all(writes);
    if (writeError) throw writeError;
  };
  const record = (account: Record<string, unknown>, result: 'sent' | 'failed', detail: { messageId?: string; error?: string }) =>
    withRetry('Recording a credential e-mail', deps.retry ?? workerRetry, isThrottling, async () => {
      const sentAt = at();
      try {
        await deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: { PK: account.PK, SK: account.SK },
            UpdateExpression:
              result === 'sent'
                ? 'SET emailStatus = :sent, emailMessageId = :id, emailSentAt = :at, mailSendResult = :sent REMOVE mailClaim, emailError'
                : 'SET emailStatus = :failed, emailError = :error, mailSendResult = :failed REMOVE mailClaim',
            ConditionExpression: 'mailSend = :send AND mailClaim = :sending',
            ExpressionAttributeValues:
              result === 'sent'
                ? { ':sent': 'sent', ':id': detail.messageId, ':at': sentAt, ':send': sendId, ':sending': 'sending' }
                : { ':failed': 'failed', ':error': (detail.error ?? 'SES refused the e-mail.').slice(0, 500), ':send': sendId, ':sending': 'sending' },
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return;
        throw error;
      }
      // Written once the account says 'sent': SES events find the account through it.
      if (result === 'sent' && detail.messageId) {
        await deps.db.send(
          new PutCommand({
            TableName: deps.tableName,
            Item: {
              ...keys.mailMessage(detail.messageId),
              entityType: 'MailMessage',
              userId,
              projectId,
              accountId: String(account.id),
              accountPK: String(account.PK),
              accountSK: String(account.SK),
              email: String(account.email),
              sendId,
              sentAt,
              expiresAt: Math.floor(deps.now().getTime() / 1000) + MAIL_MESSAGE_TTL_SECONDS,
            },
          }),
        );
      }
    });

  // 2. Claimed by an earlier delivery of this send that died before recording SES's answer.
  for (const account of accounts) {
    if (account.mailSend === sendId && account.mailClaim === 'sending') background(record(account, 'failed', { error: INTERRUPTED_MESSAGE }));
  }

  if ((message.requeues ?? 0) > MAX_REQUEUES) {
    // SES kept this chunk waiting for hours: its accounts not reached fail with the reason.
    for (const account of accounts.filter((a) => inScope(send, a))) {
      background(recordWithoutSending(deps, send, account, 'failed', 'SES kept refusing for too long (sending rate exceeded). Use Resend failed later.'));
    }
    await written();
    return markChunkDone(deps, send, message);
  }

  const todo = accounts.filter((a) => inScope(send, a));
  const suppressed = todo.length ? await suppressionsOf(deps, userId) : new Map<string, string>();
  const override = send.overrideSuppression === true;
  const cipher = send.delivery === 'password' && todo.length ? await deps.cipher() : undefined;
  const clock = deps.clock ?? Date.now;
  const sleep = deps.sleep ?? realSleep;
  const random = deps.random ?? ((max: number) => (max <= 0 ? 0 : randomInt(0, max + 1)));
  const deadline = clock() + (deps.budgetMs ?? MAIL_CHUNK_BUDGET_MS);
  const rate = deps.rate();
  const bucket = pacerFor(rate, deps.workers, clock, sleep);
  let stopped = false;
  let throttledFor = 0;
  // The send's template, sanitised and its text part converted once for the whole chunk.
  let compiled: ((values: TemplateValues) => RenderedEmail) | undefined;

  await mapBounded(todo, deps.concurrency ?? MAIL_SEND_CONCURRENCY, async (account) => {
    if (stopped || clock() >= deadline) {
      stopped = true;
      return;
    }
    const email = String(account.email);
    const reason = suppressed.get(email.trim().toLowerCase());
    if (reason && !override) {
      background(recordWithoutSending(deps, send, account, 'suppressed', reason));
      return;
    }
    const claimed = await claim(deps, send, account);
    if (!claimed) return;
    let rendered;
    try {
      let password: string | undefined;
      let credentialLink: string | undefined;
      if (send.delivery === 'link') {
        if (!deps.issueLink) throw new Error('One-time links are not available on this installation.');
        credentialLink = (
          await deps.issueLink({ userId, projectId, accountId: String(account.id), accountPK: String(account.PK), accountSK: String(account.SK), sendId, expiresInDays: Number(send.linkExpiresInDays) })
        ).url;
      } else {
        try {
          password = accountPassword(cipher!, account);
        } catch {
          background(record(account, 'failed', { error: 'The stored password of this account cannot be read, so nothing was sent.' }));
          return;
        }
      }
      compiled ??= compileEmail({ subject: String(send.subject), htmlContent: String(send.htmlContent), brandLogoUrl: String(send.brandLogoUrl ?? '') }, deps.tools, {
        delivery: send.delivery === 'link' ? 'link' : 'password',
      });
      rendered = compiled({
        accountHolderName: `${String(account.firstName ?? '')} ${String(account.lastName ?? '')}`.trim(),
        email,
        username: String(account.username),
        password,
        projectName: String(send.projectName),
        companyName: String(send.companyName ?? ''),
        credentialLink,
        passwordChangeNotice: send.requirePasswordChange === true ? PASSWORD_CHANGE_NOTICE : '',
      });
    } catch (error) {
      logger.error('Credential e-mail not rendered', { sendId, accountId: String(account.id), error: error instanceof Error ? error.message : String(error) });
      background(record(account, 'failed', { error: `The e-mail could not be prepared: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) }));
      return;
    }
    let outcome: SendOutcome;
    for (let throttles = 0, failures = 0; ; ) {
      await bucket.take();
      outcome = await deps.mailer.send({ ...rendered, to: email }, { sendId, projectId });
      if (outcome.kind === 'throttled' && ++throttles < THROTTLE_ATTEMPTS) {
        const wait = backoffMs(throttles, random, 1000, 30_000) + 250;
        throttledFor = Math.max(throttledFor, wait);
        if (clock() + wait >= deadline) {
          // Not sent, and no time left to wait here: the claim is given back and a later delivery sends it.
          stopped = true;
          background(unclaim(deps, send, account));
          return;
        }
        // SES's rate is the account's: every call of this worker waits, not only this one.
        bucket.holdFor(wait);
        continue;
      }
      if (outcome.kind === 'retryable' && ++failures < SERVER_ERROR_ATTEMPTS) {
        await sleep(backoffMs(failures, random));
        continue;
      }
      break;
    }
    if (outcome.kind === 'sent') background(record(account, 'sent', { messageId: outcome.messageId }));
    else if (outcome.kind === 'unknown') background(record(account, 'failed', { error: `SES did not confirm the e-mail (${outcome.message}); it was not sent again so that nobody gets it twice. Use Resend if it did not arrive.` }));
    else background(record(account, 'failed', { error: outcome.kind === 'throttled' ? `SES kept refusing: ${outcome.message}` : outcome.message }));
  });
  await written();
  if (stopped) {
    // The rest of the chunk in a new delivery (the accounts this send handled are not taken again).
    await deps.queue.send([{ ...message, requeues: (message.requeues ?? 0) + 1 }], Math.min(900, Math.ceil(throttledFor / 1000)));
    return;
  }
  await markChunkDone(deps, send, message);
}

/**
 * The pacing of one worker invocation: its share of the rate (rate / workers), its sends evenly
 * spaced at least ceil(1000 x workers / rate) + 1 ms apart, its first one too. The invocations of
 * the mail queue run at most `workers` at once, so they form at most `workers` chains one after
 * another; each chain holds at most rate / workers sends in any one-second window (the + 1 ms
 * keeps the window's closed ends apart), and all together at most the rate. Rate 0: no spacing.
 */
export function pacerFor(rate: number, workers: number, clock: () => number, sleep: Sleep): EvenPacer {
  // Unpaced, a throttled answer still holds every call of the worker.
  return new EvenPacer(rate > 0 ? Math.ceil((1000 * Math.max(1, workers)) / rate) + 1 : 0, clock, sleep);
}

/**
 * Claims an account for this send before SES is called: conditional on the status it was read in
 * and on no claim of this send, so exactly one delivery sends it. A status changed meanwhile (an
 * SES event) is read again and, still in scope, claimed from there.
 */
async function claim(deps: SendChunkDeps, send: Record<string, unknown>, first: Record<string, unknown>): Promise<boolean> {
  let account = first;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (!inScope(send, account)) return false;
    const from = statusOf(account);
    try {
      await withRetry('Claiming a credential e-mail', deps.retry ?? workerRetry, isThrottling, () =>
        deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: { PK: account.PK, SK: account.SK },
            // emailError stays until the result replaces it (a claim given back keeps the reason it had).
            UpdateExpression: 'SET emailStatus = :queued, mailSend = :send, mailSendFrom = :from, mailClaim = :sending REMOVE mailSendResult',
            ConditionExpression: `(attribute_not_exists(mailSend) OR mailSend <> :send) AND ${from === 'none' ? 'attribute_not_exists(emailStatus)' : 'emailStatus = :from'}`,
            ExpressionAttributeValues: { ':queued': 'queued', ':send': send.id, ':from': from, ':sending': 'sending' },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: { PK: account.PK, SK: account.SK }, ConsistentRead: true }));
      if (!Item) return false;
      account = Item;
    }
  }
  return false;
}

/** Gives back a claim SES never answered with an e-mail sent (throttled past the delivery's budget): the account is as it was. */
async function unclaim(deps: SendChunkDeps, send: Record<string, unknown>, account: Record<string, unknown>): Promise<void> {
  const from = statusOf(account);
  try {
    await withRetry('Giving back a credential e-mail claim', deps.retry ?? workerRetry, isThrottling, () =>
      deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: { PK: account.PK, SK: account.SK },
          UpdateExpression: `${from === 'none' ? 'REMOVE emailStatus, ' : 'SET emailStatus = :from REMOVE '}mailSend, mailSendFrom, mailClaim`,
          ConditionExpression: 'mailSend = :send AND mailClaim = :sending',
          ExpressionAttributeValues: { ':send': send.id, ':sending': 'sending', ...(from === 'none' ? {} : { ':from': from }) },
        }),
      ),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** An account's result without an SES call (suppressed, or given up): one conditional write from the status it was read in. */
async function recordWithoutSending(deps: SendChunkDeps, send: Record<string, unknown>, account: Record<string, unknown>, result: 'suppressed' | 'failed', reason: string): Promise<void> {
  const from = statusOf(account);
  try {
    await withRetry('Recording a credential e-mail', deps.retry ?? workerRetry, isThrottling, () =>
      deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: { PK: account.PK, SK: account.SK },
          UpdateExpression: 'SET emailStatus = :result, emailError = :reason, mailSend = :send, mailSendFrom = :from, mailSendResult = :result REMOVE mailClaim',
          ConditionExpression: `(attribute_not_exists(mailSend) OR mailSend <> :send) AND ${from === 'none' ? 'attribute_not_exists(emailStatus)' : 'emailStatus = :from'}`,
          ExpressionAttributeValues: { ':result': result, ':reason': reason.slice(0, 500), ':send': send.id, ':from': from },
        }),
      ),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** What this send did to the chunk's accounts, counted from the accounts (strongly consistent). */
async function chunkTally(deps: Pick<SendChunkDeps, 'db' | 'tableName'>, send: Record<string, unknown>, message: CredentialsChunkMessage) {
  const projectId = String(send.projectId);
  const partition = keys.accountPartitions(message.userId, projectId, message.shard + 1)[message.shard]!;
  const results = { sent: 0, failed: 0, suppressed: 0 };
  const project = new Map<EmailStatus, number>();
  const move = (status: string, by: number) => {
    if ((emailStatuses as readonly string[]).includes(status)) project.set(status as EmailStatus, (project.get(status as EmailStatus) ?? 0) + by);
  };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
        FilterExpression: 'mailSend = :send AND attribute_exists(mailSendResult)',
        ProjectionExpression: 'mailSendFrom, mailSendResult',
        ExpressionAttributeValues: {
          ':pk': partition,
          ':first': keys.account(message.userId, projectId, message.fromRow).SK,
          ':last': keys.account(message.userId, projectId, message.toRow).SK,
          ':send': send.id,
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const result = String(item.mailSendResult) as keyof typeof results;
      if (!(result in results)) continue;
      results[result]++;
      move(result, 1);
      move(String(item.mailSendFrom), -1);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { results, project };
}

/**
 * A chunk is done: its tally is added to the send's counts and moved between the project's e-mail
 * counters in the transaction that marks the chunk done, once (the marker's condition). Every
 * account counted was moved from the status it had (mailSendFrom) to its result, so the project's
 * counters and the accounts never sent to add up to its accounts.
 */
export async function markChunkDone(deps: Pick<SendChunkDeps, 'db' | 'tableName' | 'now' | 'retry'>, send: Record<string, unknown>, message: CredentialsChunkMessage): Promise<void> {
  const at = deps.now().toISOString();
  const { results, project } = await chunkTally(deps, send, message);
  const moves = [...project.entries()].filter(([, by]) => by !== 0);
  try {
    await withRetry('Recording a credential e-mail chunk', deps.retry ?? workerRetry, (e) => isTransactionConflict(e) || isThrottling(e), () =>
      deps.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: deps.tableName,
                Key: keys.mailSendChunk(message.userId, message.sendId, message.chunk),
                UpdateExpression: 'SET entityType = :type, chunk = :chunk, doneAt = :at, sent = :sent, failed = :failed, suppressed = :suppressed',
                ConditionExpression: 'attribute_not_exists(doneAt)',
                ExpressionAttributeValues: { ':type': 'MailSendChunk', ':chunk': message.chunk, ':at': at, ':sent': results.sent, ':failed': results.failed, ':suppressed': results.suppressed },
              },
            },
            {
              Update: {
                TableName: deps.tableName,
                Key: sendKey(message.userId, message.sendId),
                UpdateExpression: 'ADD chunksDone :one, sent :sent, failed :failed, suppressed :suppressed SET updatedAt = :at',
                ExpressionAttributeValues: { ':one': 1, ':sent': results.sent, ':failed': results.failed, ':suppressed': results.suppressed, ':at': at },
              },
            },
            ...(moves.length
              ? [
                  {
                    Update: {
                      TableName: deps.tableName,
                      Key: keys.project(message.userId, String(send.projectId)),
                      UpdateExpression: `ADD ${moves.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
                      ConditionExpression: 'attribute_exists(PK)',
                      ExpressionAttributeNames: Object.fromEntries(moves.map(([status], i) => [`#c${i}`, emailCounterAttribute[status]])),
                      ExpressionAttributeValues: Object.fromEntries(moves.map(([, by], i) => [`:c${i}`, by])),
                    },
                  },
                ]
              : []),
          ],
        }),
      ),
    );
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    // The project was deleted meanwhile: nothing left to count, the send ends.
    if (reasons[2]?.Code === 'ConditionalCheckFailed') return failSend(deps, message.userId, message.sendId, 'The project was deleted.');
    // Done already by another delivery.
    if (reasons[0]?.Code !== 'ConditionalCheckFailed') throw error;
  }
  await finishSend(deps, message.userId, message.sendId);
}

/** Whether a credentials message names a chunk. */
export const isChunkMessage = (message: { chunk?: number }): message is CredentialsChunkMessage => typeof message.chunk === 'number';
