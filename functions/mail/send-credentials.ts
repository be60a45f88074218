import { randomInt } from 'node:crypto';
import { PASSWORD_CHANGE_NOTICE } from '../../shared/email/password-change-notice';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAllUnder } from '../core/prefix-query';
import { compileEmail, type RenderedEmail, type RenderTools, type TemplateValues } from '../../shared/email/render-email';
import { emailCounterAttribute, emailStatuses, type EmailStatus } from '../../shared/schemas/email-status';
import { pauseWords, type SendScope } from '../../shared/schemas/mail-send';
import { accountPassword } from '../accounts/account-item';
import { StateBlockWriter } from '../accounts/account-state-writer';
import { blockStart, channelAttributes, overlayState, readStates, rowOf, STATE_BLOCK_ROWS, type StateEntry } from '../accounts/account-states';
import { filterChannels, filterOf, isSelected, matchesFilter, rowsOf } from '../account-jobs/selection';
import { workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import type { Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { chunkAccountItems } from '../accounts/account-partitions';
import { logger } from '../core/logger';
import { mapBounded, realSleep, type Sleep } from '../provisioning/pacing';
import { SharedMailPacer } from './send-share';
import { bounceWords, notifyBouncesPaused, overCutoff, recentBounceRate } from './bounce-rate';
import type { CredentialMailer, SendOutcome } from './credential-mailer';
import { sendPaced, type SendStep } from './send-step';
import type { IssueCredentialLink } from './credential-link-port';
import { chunkRunner, type ChunkEnd, type ChunkLease, type ChunkTally } from '../account-jobs/chunk-runner';
import { credentialSends, failSend, MAIL_CHUNK_ACCOUNTS, readSend, rowsOfSend, sendKey, successorOf, type SendJobDeps } from './credential-sends';
import type { CredentialsChunkMessage, CredentialsMessage } from './mail-message';

/** SES's default sending quota in a new account's region: e-mails a second, all workers together. */
export const DEFAULT_MAIL_SEND_RATE = 14;
/** SendEmail calls in flight per worker invocation. */
export const MAIL_SEND_CONCURRENCY = 8;
/** Work per delivery: the rest of a chunk goes back on the queue (the mail worker's timeout is 60 s). */
export const MAIL_CHUNK_BUDGET_MS = 40_000;
export { THROTTLE_ATTEMPTS, SERVER_ERROR_ATTEMPTS } from './send-step';
/** Deliveries of one chunk put back on the queue before its accounts not reached fail. */
export const MAX_REQUEUES = 30;
/** The reason of an account whose chunk failed every delivery (recordDeadCredentials). */
export const STOPPED_ON_OUR_SIDE = 'Not sent: sending stopped on our side after repeated errors. Use Resend failed.';
/** How long a delivery holds its chunk: longer than the mail worker's timeout, so a live holder never loses it. */
const LEASE_MS = 75_000;
const LEASE_RETRY_SECONDS = 75;

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
  /** Worker invocations that may run at once (the mail queue's maxConcurrency): the chunks' size follows from it. */
  workers: number;
  /**
   * A customer's e-mails a UTC day (0: no cap), the rate's share left free for Cognito's codes and
   * the bounce rate over which a customer's sends pause (MAIL_DAILY_CAP, MAIL_RESERVED_SHARE,
   * MAIL_BOUNCE_CUTOFF; 0: none); absent: none of them.
   */
  limits?: () => { dailyCap: number; reservedShare: number; bounceCutoff?: number };
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
  const rows = rowsOfSend(send);
  if (rows && (rowOf(account) < rows.from || rowOf(account) > rows.to)) return false;
  const scope = send.scope as SendScope;
  const status = statusOf(account);
  if (scope === 'unsent') return matchesFilter('unsent', account);
  if (scope === 'failed') return status === 'failed';
  if (scope === 'account') return account.id === send.accountId;
  // The bulk bar's listed accounts or filter (account-jobs/selection.ts: the one evaluation of a filter).
  if (scope === 'selection') return isSelected(rowsOf(send), account) && matchesFilter(filterOf(send), account);
  return true;
}

/** Every account of a chunk's row range (strongly consistent: the last delivery's writes count). */
const chunkAccounts = (deps: Pick<SendChunkDeps, 'db' | 'tableName'>, userId: string, projectId: string, message: CredentialsChunkMessage) =>
  chunkAccountItems(deps.db, deps.tableName, { userId, projectId, shard: message.shard, fromRow: message.fromRow, toRow: message.toRow });

/** The user's suppression list: address (trimmed, lower case) -> why. Also what expiry reminders skip (functions/schedules/expiry-reminder-job.ts). */
export async function suppressionsOf(deps: Pick<SendChunkDeps, 'db' | 'tableName'>, userId: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const { SKPrefix } = keys.emailSuppressionsOf(userId);
  for (const item of await queryAllUnder(deps.db, deps.tableName, keys.emailSuppressionsOf(userId), { consistent: true })) {
    const reason = item.reason === 'complained' ? 'complained (marked an earlier e-mail as spam)' : item.reason === 'bounced' ? 'bounced' : String(item.reason ?? 'suppressed');
    found.set(String(item.SK).slice(SKPrefix.length), `The address is on your suppression list: it ${reason}${typeof item.detail === 'string' && item.detail ? ` (${item.detail.slice(0, 200)})` : ''}. Remove it from the list in Email Templates, or send to this account with the override.`);
  }
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

/** The lease of a send's chunk lives on the chunk's item, which becomes its done marker: a done chunk's lease is not given back. */
const mailLease: ChunkLease<CredentialsChunkMessage> = { take: takeLease, give: releaseLease, retrySeconds: LEASE_RETRY_SECONDS, keptWhenDone: true };

/**
 * Mail worker, one chunk of a send (steps 1 and 4 are the account-jobs engine's chunk runner,
 * docs/jobs.md; the lease is the send's own, on the chunk's item):
 * 1. A chunk already done (redelivery) only re-checks the send's completion; one delivery of a
 *    chunk at a time (a lease on the chunk's item, taken while step 2 reads), a copy waits on the queue.
 * 2. The chunk's accounts are read with their MAIL state blocks (functions/accounts/
 *    account-states.ts: what sends recorded per account lives there, not on the account items);
 *    the lease makes this delivery the blocks' one writer. Accounts this send claimed but never
 *    recorded (a delivery that died between its claim and SES's answer) are recorded failed with
 *    INTERRUPTED_MESSAGE, not sent again: at most once.
 * 3. Each account in the send's scope: a suppressed address is recorded 'suppressed' with the
 *    reason (unless the send overrides it); the others are claimed CLAIM_GROUP at a time (status
 *    'queued', claim 'sending': one write of the group's blocks) BEFORE SES is called for any of
 *    them, the next group's claim written while this group's e-mails go out; then each is
 *    rendered and sent, paced (its worker's share of MAIL_SEND_RATE), a throttled answer waited
 *    out and sent again; SES's answers are recorded ('sent' with the message id, or 'failed' with
 *    SES's words) as they come, the blocks written in the background, and all of them before the
 *    delivery ends. Each SendEmail carries tags naming the account (userId, projectId, row,
 *    shards, sendId): SES's events find the account by them (functions/mail-events).
 * 4. The chunk's tally, counted from its blocks, moves the project's e-mail counters and the
 *    send's counts in the transaction that marks the chunk done, once.
 * A block written by another delivery meanwhile (this one's lease lapsed) stops this delivery
 * with StateBlockConflict: the message is delivered again and the other one's state stands.
 */
export const sendChunk = (deps: SendChunkDeps) =>
  chunkRunner(deps, credentialSends, { load: (send, message) => readChunk(deps, send, message), run: (send, message, read) => sendLeased(deps, message, send, read) }, mailLease);

/**
 * Accounts claimed with one write before SES is called for any of them: half a state block, and
 * a group never spans two blocks, so each claim is one block's write and a block takes two (16
 * at a time, across blocks, took four or five block writes per block: 1,400 PutItems per 10,000
 * e-mails). The next group's claim is written while this one's e-mails go out. A delivery that
 * dies loses at most these two groups' claims: they say 'sending', the next delivery records
 * them failed with INTERRUPTED_MESSAGE (use Resend), never sends them twice.
 */
export const CLAIM_GROUP = STATE_BLOCK_ROWS / 2;

/** The claim groups of the accounts to send (in order): the index each starts at; a group holds at most CLAIM_GROUP accounts of one block. */
export function claimGroupStarts(rows: readonly number[], shards: number): number[] {
  const starts: number[] = [];
  let block = -1;
  rows.forEach((row, index) => {
    const start = blockStart(row, shards);
    if (!starts.length || start !== block || index - starts[starts.length - 1]! >= CLAIM_GROUP) starts.push(index);
    block = start;
  });
  return starts;
}
/** How long an answer of SES may wait in memory before its block is written (what a crash would lose: see INTERRUPTED_MESSAGE). */
export const RESULT_FLUSH_MS = 500;

const RESULTS = ['sent', 'failed', 'suppressed'] as const;
type Result = (typeof RESULTS)[number];

/** The MAIL entry of an account this send recorded (it replaces the channel's attributes: nothing of an earlier e-mail stays). */
function resultEntry(claimed: StateEntry, result: Result, detail: { messageId?: string; sentAt?: string; error?: string }): StateEntry {
  const entry: StateEntry = { emailStatus: result, mailSend: String(claimed.mailSend), mailSendFrom: String(claimed.mailSendFrom), mailSendResult: result };
  if (typeof claimed.mailSendFromMessage === 'string') entry.mailSendFromMessage = claimed.mailSendFromMessage;
  if (result === 'sent') Object.assign(entry, { emailMessageId: detail.messageId!, emailSentAt: detail.sentAt! });
  else entry.emailError = (detail.error ?? 'SES refused the e-mail.').slice(0, 500);
  return entry;
}

/** An account's MAIL attributes as every reader sees them (the entry, else the item's own). */
const mailStateOf = (account: Record<string, unknown>): StateEntry =>
  Object.fromEntries(channelAttributes.MAIL.filter((name) => account[name] !== undefined).map((name) => [name, account[name] as string | number | boolean]));

/**
 * What a delivery reads, while its lease is taken (one round trip fewer per chunk): the
 * accounts, their blocks, the suppression list and the key. Blocks read before the lease was
 * taken are safe: each block is written only if its version is still the one read, so a delivery
 * that wrote meanwhile stops this one (StateBlockConflict) before anything is claimed or sent.
 */
async function readChunk(deps: SendChunkDeps, send: Record<string, unknown>, message: CredentialsChunkMessage) {
  const { userId } = message;
  const projectId = String(send.projectId);
  const writer = new StateBlockWriter({ db: deps.db, tableName: deps.tableName, retry: deps.retry ?? workerRetry }, { userId, projectId, shards: Number(send.shards ?? 1) }, 'MAIL');
  // A filter on the platform's state (the bulk bar's 'failed') reads the chunk's PROV blocks too; one on
  // isActive (Active, Deactivated: an account action's outcome) its ACT blocks.
  const others = filterChannels(filterOf(send)).filter((channel) => channel !== 'MAIL');
  const [items, loaded, suppressed, cipher, states] = await Promise.all([
    chunkAccounts(deps, userId, projectId, message),
    writer.load(message.fromRow, message.toRow, message.shard),
    suppressionsOf(deps, userId),
    send.delivery === 'password' ? deps.cipher() : undefined,
    others.length ? readStates(deps.db, deps.tableName, { userId, projectId, shards: Number(send.shards ?? 1) }, message.fromRow, message.toRow, { consistent: true, channels: others }) : undefined,
  ]);
  return { writer, items, loaded, suppressed, cipher, prov: states?.PROV ?? new Map<number, StateEntry>(), act: states?.ACT ?? new Map<number, StateEntry>() };
}

/** One leased delivery of a chunk: done with its tally, or later when its rest goes back on the queue. */
async function sendLeased(deps: SendChunkDeps, message: CredentialsChunkMessage, send: Record<string, unknown>, read: Awaited<ReturnType<typeof readChunk>>): Promise<ChunkEnd> {
  const { userId, sendId } = message;
  const projectId = String(send.projectId);
  const at = () => deps.now().toISOString();
  const { writer, items, loaded, suppressed, cipher, prov, act } = read;
  // Each account as the API shows it: the block's entry over the item (and SES's events over that).
  const accounts = items.map((item) => overlayState(item, { PROV: prov, MAIL: loaded, ACT: act }));

  // One write of the changed blocks at a time; calls while one waits to start share it.
  let stopped = false;
  let flushError: unknown;
  let waiting: Promise<void> | undefined;
  let chain: Promise<void> = Promise.resolve();
  const flushSoon = (): Promise<void> => {
    if (waiting) return waiting;
    const next = chain.then(() => {
      waiting = undefined;
      return writer.flush();
    });
    waiting = next;
    chain = next.catch((error: unknown) => {
      flushError ??= error;
      stopped = true;
    });
    return next;
  };
  // Results are written RESULT_FLUSH_MS after the first one not yet written (a claim's write
  // takes them along sooner): at the paced rate one block write carries several answers.
  let timer: NodeJS.Timeout | undefined;
  const flushLater = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      void flushSoon().catch(() => undefined);
    }, RESULT_FLUSH_MS);
  };
  const record = (account: Record<string, unknown>, result: Result, detail: { messageId?: string; error?: string }) => {
    writer.set(rowOf(account), resultEntry(writer.get(rowOf(account))!, result, { ...detail, sentAt: at() }));
    flushLater();
  };
  /** Every change written (the last flush after every result); a write that failed stops the delivery. */
  const written = async () => {
    clearTimeout(timer);
    timer = undefined;
    await flushSoon().catch(() => undefined);
    if (flushError) throw flushError;
  };

  // 2. Claimed by an earlier delivery of this send that died before recording SES's answer.
  for (const account of accounts) {
    if (account.mailSend === sendId && account.mailClaim === 'sending') {
      writer.set(rowOf(account), resultEntry(writer.get(rowOf(account)) ?? mailStateOf(account), 'failed', { error: INTERRUPTED_MESSAGE }));
    }
  }
  const fresh = (account: Record<string, unknown>): StateEntry => ({
    mailSend: sendId,
    mailSendFrom: statusOf(account),
    // The e-mail the old status was about: SES's events about it may still move it until the claim is written (chunkTally).
    ...(typeof account.emailMessageId === 'string' ? { mailSendFromMessage: account.emailMessageId } : {}),
  });

  if (message.givenUp || (message.requeues ?? 0) > MAX_REQUEUES || (message.pauses ?? 0) > MAX_PAUSES) {
    // Failed every delivery (the dead-letter worker), or SES kept this chunk waiting for hours:
    // its accounts not reached fail with the reason, so the send ends and adds up.
    const reason = message.givenUp
      ? STOPPED_ON_OUR_SIDE
      : (message.pauses ?? 0) > MAX_PAUSES
        ? `SES took no e-mail for ${Math.round((MAX_PAUSES * PAUSE_SECONDS) / 3600)} hours (${pauseWords(send.pausedReason)}). Use Resend failed once it sends again.`
        : 'SES kept refusing for too long (sending rate exceeded). Use Resend failed later.';
    for (const account of accounts.filter((a) => inScope(send, a))) {
      writer.set(rowOf(account), resultEntry(fresh(account), 'failed', { error: reason }));
    }
    await written();
    return { done: doneTally(deps, send, await chunkTally(deps, send, message, items, writer)) };
  }

  const todo = accounts.filter((a) => inScope(send, a));
  const override = send.overrideSuppression === true;
  const toSend: Record<string, unknown>[] = [];
  for (const account of todo) {
    const reason = suppressed.get(String(account.email).trim().toLowerCase());
    if (reason && !override) writer.set(rowOf(account), resultEntry(fresh(account), 'suppressed', { error: reason }));
    else toSend.push(account);
  }
  const clock = deps.clock ?? Date.now;
  const sleep = deps.sleep ?? realSleep;
  const random = deps.random ?? ((max: number) => (max <= 0 ? 0 : randomInt(0, max + 1)));
  const deadline = clock() + (deps.budgetMs ?? MAIL_CHUNK_BUDGET_MS);
  // The installation's SES rate, shared between customers through the table (send-share.ts), and
  // the customer's daily allowance. The customer's need (its weight) is what its send has not done.
  const open = Math.max(1, Number(send.total ?? 0) - Number(send.sent ?? 0) - Number(send.failed ?? 0) - Number(send.suppressed ?? 0));
  const { dailyCap, reservedShare, bounceCutoff = 0 } = deps.limits?.() ?? { dailyCap: 0, reservedShare: 0 };
  const bucket = new SharedMailPacer(
    { db: deps.db, tableName: deps.tableName, clock, sleep },
    { rate: deps.rate(), reservedShare, dailyCap },
    userId,
    open,
    toSend.length,
    true,
    Math.max(open, Number(send.total ?? 0)),
  );
  const step: SendStep = { mailer: deps.mailer, pacer: bucket, clock, sleep, random, deadline, throttledFor: 0 };
  let paused: (Extract<SendOutcome, { kind: 'paused' }> & { resumesAt?: string }) | undefined;
  let anySent = false;
  // The send's template, sanitised and its text part converted once for the whole chunk.
  let compiled: ((values: TemplateValues) => RenderedEmail) | undefined;

  // 3. Claims, a group at a time: an account is sent only once its claim is written. What a
  // claim replaced is kept: a claim never used (the delivery stopped first) is given back.
  const before = new Map<number, StateEntry>();
  const attempted = new Set<number>();
  const claims = new Map<number, Promise<void>>();
  const groupStarts = claimGroupStarts(toSend.map(rowOf), Number(send.shards ?? 1));
  const groupOf: number[] = [];
  groupStarts.forEach((start, group) => {
    for (let i = start; i < (groupStarts[group + 1] ?? toSend.length); i++) groupOf[i] = group;
  });
  const claimGroup = (group: number): Promise<void> => {
    let claimed = claims.get(group);
    if (!claimed) {
      for (const account of toSend.slice(groupStarts[group], groupStarts[group + 1] ?? toSend.length)) {
        before.set(rowOf(account), writer.get(rowOf(account)) ?? mailStateOf(account));
        writer.set(rowOf(account), { ...fresh(account), emailStatus: 'queued', mailClaim: 'sending' });
      }
      claimed = flushSoon();
      claims.set(group, claimed);
    }
    return claimed;
  };

  // An error in one e-mail's step (not an answer of SES: those are outcomes) stops the delivery,
  // but only after what the others got is written; the e-mail it was on keeps its claim.
  let taskError: unknown;
  // A customer whose recent e-mails bounce too often sends nothing until the rate falls (bounce-rate.ts).
  if (toSend.length && bounceCutoff > 0) {
    const bounces = await recentBounceRate(deps, userId, clock());
    if (overCutoff(bounces, bounceCutoff)) {
      paused = { kind: 'paused', reason: 'bounces', message: bounceWords(bounces, bounceCutoff) };
      stopped = true;
      await notifyBouncesPaused(deps, { userId, projectId, projectName: String(send.projectName ?? '') }, paused.message, clock());
    }
  }
  await mapBounded(stopped ? [] : toSend, deps.concurrency ?? MAIL_SEND_CONCURRENCY, async (account, index) => {
    try {
      await sendOne(account, index);
    } catch (error) {
      taskError ??= error;
      stopped = true;
    }
  });
  async function sendOne(account: Record<string, unknown>, index: number): Promise<void> {
    if (stopped || clock() >= deadline) {
      stopped = true;
      return;
    }
    const group = groupOf[index]!;
    try {
      await claimGroup(group);
    } catch {
      return; // The blocks could not be written (flushError): nothing of this group is sent.
    }
    // The next group's claim is written while this group's e-mails go out, from its first one on
    // (started halfway through the group, the claim's write, queued behind a write of results,
    // kept the group's next e-mails waiting: 8% of the sending slots' time under load).
    if (index === groupStarts[group] && group + 1 < groupStarts.length) void claimGroup(group + 1).catch(() => undefined);
    if (stopped) return;
    const row = rowOf(account);
    attempted.add(row);
    const email = String(account.email);
    let rendered;
    try {
      let password: string | undefined;
      let credentialLink: string | undefined;
      if (send.delivery === 'link') {
        if (!deps.issueLink) throw new Error('One-time links are not available on this installation.');
        credentialLink = (
          await deps.issueLink({ userId, projectId, accountId: String(account.id), accountPK: String(account.PK), accountSK: String(account.SK), sendId, expiresInDays: Number(send.linkExpiresInDays), companyName: String(send.companyName ?? '') })
        ).url;
      } else {
        try {
          password = accountPassword(cipher!, account);
        } catch {
          record(account, 'failed', { error: 'The stored password of this account cannot be read, so nothing was sent.' });
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
        ...(typeof send.loginUrl === 'string' ? { loginUrl: send.loginUrl } : {}),
        ...(typeof send.expirationDate === 'string' ? { expirationDate: send.expirationDate } : {}),
      });
    } catch (error) {
      logger.error('Credential e-mail not rendered', { sendId, accountId: String(account.id), error: error instanceof Error ? error.message : String(error) });
      record(account, 'failed', { error: `The e-mail could not be prepared: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) });
      return;
    }
    const tags = mailTags({ userId, projectId, row, shards: Number(send.shards ?? 1), sendId });
    const outcome = await sendPaced(step, { ...rendered, to: email }, tags);
    if (outcome.kind === 'capped') {
      // The customer's e-mails for today are used (MAIL_DAILY_CAP): the chunk waits, like a quota SES keeps.
      paused = { kind: 'paused', reason: 'daily-cap', message: `The daily limit of ${dailyCap} e-mails per customer is used.`, resumesAt: outcome.resumesAt };
      stopped = true;
      attempted.delete(row);
      return;
    }
    if (outcome.kind === 'no-time') {
      // Not sent, and no time left to wait here: the claim is given back and a later delivery sends it.
      stopped = true;
      attempted.delete(row);
      return;
    }
    if (outcome.kind === 'paused') {
      // SES takes no e-mail for now: nothing is wrong with this one. The chunk stops here, its
      // claim given back, and waits (sendPaused); every other e-mail of it would get the same answer.
      paused = outcome;
      stopped = true;
      attempted.delete(row);
      return;
    }
    anySent ||= outcome.kind === 'sent';
    if (outcome.kind === 'sent') record(account, 'sent', { messageId: outcome.messageId });
    else if (outcome.kind === 'unknown') record(account, 'failed', { error: `SES did not confirm the e-mail (${outcome.message}); it was not sent again so that nobody gets it twice. Use Resend if it did not arrive.` });
    else record(account, 'failed', { error: outcome.kind === 'throttled' ? `SES kept refusing: ${outcome.message}` : outcome.message });
  }
  // Claims this delivery wrote but never used (it stopped first): the accounts are as they were.
  for (const [row, state] of before) {
    if (!attempted.has(row) && writer.get(row)?.mailClaim === 'sending' && writer.get(row)?.mailSend === sendId) writer.set(row, state);
  }
  // Every answer SES gave is written before the lease is given back or the chunk counts as done.
  // A chunk that ends here (every account handled, no error) puts its successor on the queue
  // meanwhile, and the transaction that marks it done records it released: two round trips
  // fewer between one chunk's last e-mail and the next chunk's first. A delivery that dies in
  // between leaves a copy of the successor on the queue (the redelivery queues it again): the
  // copy finds its chunk leased or done, as with the release after the mark.
  const successor = !stopped && !taskError ? successorOf(send, message.chunk) : undefined;
  const [flushed, queued] = await Promise.allSettled([written(), successor ? deps.queue.send([successor]) : Promise.resolve(), bucket.close()]);
  if (flushed.status === 'rejected') throw flushed.reason;
  if (taskError) throw taskError;
  if (paused) return sendPaused(deps, message, send, paused);
  if (anySent && typeof send.pausedReason === 'string') await resumed(deps, message);
  // The rest of the chunk in a new delivery (the accounts this send handled are not taken again).
  if (stopped) return { later: step.throttledFor };
  return { done: doneTally(deps, send, await chunkTally(deps, send, message, items, writer), successor !== undefined && queued.status === 'fulfilled') };
}

/** How long a paused chunk waits before it asks SES again (SQS's longest delay). */
export const PAUSE_SECONDS = 900;
/** Pauses of one chunk before its accounts fail: a day and a half (SES's daily quota is a rolling 24 hours). */
export const MAX_PAUSES = 144;

/**
 * A chunk that SES took no e-mail of for now (quota used, sending paused): its accounts stay as
 * they were (none fails), the send says why and when it tries again, and the chunk goes back on
 * the queue for PAUSE_SECONDS, counted as a pause (not a requeue, whose limit is for throttling).
 */
async function sendPaused(deps: SendChunkDeps, message: CredentialsChunkMessage, send: Record<string, unknown>, paused: Extract<SendOutcome, { kind: 'paused' }> & { resumesAt?: string }): Promise<ChunkEnd> {
  const now = deps.now();
  // When the customer's daily allowance starts again (the chunk still looks every PAUSE_SECONDS), else the next look.
  const resumesAt = paused.resumesAt ?? new Date(now.getTime() + PAUSE_SECONDS * 1000).toISOString();
  logger.warn('Credential send paused: no e-mail may go for now', { sendId: message.sendId, reason: paused.reason, error: paused.message });
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: sendKey(message.userId, message.sendId),
      UpdateExpression: 'SET pausedReason = :reason, pausedMessage = :message, resumesAt = :resumes, pausedAt = if_not_exists(pausedAt, :at), updatedAt = :at',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':reason': paused.reason, ':message': paused.message.slice(0, 300), ':resumes': resumesAt, ':at': now.toISOString() },
    }),
  ).catch((error: unknown) => logger.warn('Send pause not recorded', { sendId: message.sendId, error: error instanceof Error ? error.message : String(error) }));
  await deps.queue.send([{ ...message, pauses: (message.pauses ?? 0) + 1 }], PAUSE_SECONDS);
  return 'stopped';
}

/** SES took e-mail again: the send's pause is over. */
async function resumed(deps: SendChunkDeps, message: CredentialsChunkMessage): Promise<void> {
  await deps.db
    .send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: sendKey(message.userId, message.sendId),
        UpdateExpression: 'REMOVE pausedReason, pausedMessage, resumesAt, pausedAt',
        ConditionExpression: 'attribute_exists(PK)',
      }),
    )
    .catch((error: unknown) => logger.warn('Send pause not cleared', { sendId: message.sendId, error: error instanceof Error ? error.message : String(error) }));
}

/**
 * The tags of a credential e-mail (SES publishes them with every event of it, `mail.tags`): the
 * account it was for, found by key without any record of the message. SES allows only
 * [A-Za-z0-9_-] in tag values (ids, row and shard numbers are such).
 */
export function mailTags(target: { userId: string; projectId: string; row: number; shards: number; sendId: string }): Record<string, string> {
  return { userId: target.userId, projectId: target.projectId, row: String(target.row), shards: String(target.shards), sendId: target.sendId };
}

/** The least time between two sends of one worker invocation (0: unpaced). */
export const sendSpacingMs = (rate: number, workers: number): number => (rate > 0 ? Math.ceil((1000 * Math.max(1, workers)) / rate) + 1 : 0);

/** The largest chunk of a send (unpaced, 8 SendEmail calls in flight: a few seconds of a delivery). */
export const MAX_MAIL_CHUNK_ACCOUNTS = 500;
/** The share of a delivery's budget (MAIL_CHUNK_BUDGET_MS) a chunk takes at the paced rate: the rest is for a slow SES and throttled waits. */
const PACED_BUDGET_SHARE = 0.75;
/** Chunks per worker at least, for a send large enough: every worker has work to the end of the send. */
const CHUNKS_PER_WORKER = 4;

/**
 * Accounts per chunk of a send of `total` accounts (the plan's chunkAccounts). Every chunk costs
 * its delivery's fixed round trips (lease, accounts and blocks, claim, tally, done) and a tail
 * (its last e-mails in flight with no new one started): with 100 a chunk, 10,000 e-mails at
 * full speed spent a third of their time there. So a chunk is as large as fits in three
 * quarters of the delivery's budget at the worker's paced rate (200 at 14/s over 2 workers),
 * at most MAX_MAIL_CHUNK_ACCOUNTS, small enough that each worker gets CHUNKS_PER_WORKER chunks,
 * never below MAIL_CHUNK_ACCOUNTS; whole state blocks (one writer per block).
 */
export function mailChunkAccounts(total: number, rate: number, workers: number): number {
  const spacing = sendSpacingMs(rate, workers);
  const byBudget = spacing > 0 ? (MAIL_CHUNK_BUDGET_MS * PACED_BUDGET_SHARE) / spacing : Number.POSITIVE_INFINITY;
  const bySpread = total / (CHUNKS_PER_WORKER * Math.max(1, workers));
  const size = Math.floor(Math.min(MAX_MAIL_CHUNK_ACCOUNTS, byBudget, bySpread) / STATE_BLOCK_ROWS) * STATE_BLOCK_ROWS;
  return Math.max(MAIL_CHUNK_ACCOUNTS, size);
}

interface MailTally {
  results: Record<Result, number>;
  project: Map<EmailStatus, number>;
}

/**
 * What this send did to the chunk's accounts, counted from its blocks as written. Each account
 * moves from the status it had when claimed (mailSendFrom) to its result; an SES event about the
 * e-mail that status was about (mailSendFromMessage) may have moved it on (sent -> delivered)
 * before the claim was written, on the account item: such accounts are read again (once per
 * chunk, only when there are any), so the counters move from where the event left them.
 */
async function chunkTally(deps: Pick<SendChunkDeps, 'db' | 'tableName'>, send: Record<string, unknown>, message: CredentialsChunkMessage, items: Record<string, unknown>[], writer: StateBlockWriter): Promise<MailTally> {
  const results: Record<Result, number> = { sent: 0, failed: 0, suppressed: 0 };
  const project = new Map<EmailStatus, number>();
  const move = (status: string, by: number) => {
    if ((emailStatuses as readonly string[]).includes(status)) project.set(status as EmailStatus, (project.get(status as EmailStatus) ?? 0) + by);
  };
  const counted = items
    .map((item) => ({ item, state: writer.get(rowOf(item)) ?? mailStateOf(item) }))
    .filter(({ state }) => state.mailSend === send.id && (RESULTS as readonly unknown[]).includes(state.mailSendResult));
  const movable = counted.some(({ state }) => typeof state.mailSendFromMessage === 'string' && (state.mailSendFrom === 'sent' || state.mailSendFrom === 'delivered'));
  const latest = movable ? await eventStates(deps, send, message) : new Map<number, Record<string, unknown>>();
  for (const { item, state } of counted) {
    const result = state.mailSendResult as Result;
    results[result]++;
    move(result, 1);
    let from = String(state.mailSendFrom);
    const now = latest.get(rowOf(item));
    if (now && typeof state.mailSendFromMessage === 'string') {
      if (now.emailEventMessageId === state.mailSendFromMessage && typeof now.emailEventStatus === 'string') from = now.emailEventStatus;
      else if (now.emailMessageId === state.mailSendFromMessage && typeof now.emailStatus === 'string') from = now.emailStatus;
    }
    move(from, -1);
  }
  return { results, project };
}

/** The chunk's accounts' event attributes (and their own e-mail status, for e-mails recorded on the items before state blocks), strongly consistent. */
async function eventStates(deps: Pick<SendChunkDeps, 'db' | 'tableName'>, send: Record<string, unknown>, message: CredentialsChunkMessage): Promise<Map<number, Record<string, unknown>>> {
  const projectId = String(send.projectId);
  const found = new Map<number, Record<string, unknown>>();
  const items = await chunkAccountItems(
    deps.db,
    deps.tableName,
    { userId: message.userId, projectId, shard: message.shard, fromRow: message.fromRow, toRow: message.toRow },
    { projection: 'SK, #row, emailEventMessageId, emailEventStatus, emailMessageId, emailStatus', names: { '#row': 'row' } },
  );
  for (const item of items) found.set(rowOf(item), item);
  return found;
}

/**
 * A chunk is done: its tally is added to the send's counts and moved between the project's e-mail
 * counters in the transaction that marks the chunk done, once (the engine's recordChunkDone).
 * Every account counted was moved from the status it had (mailSendFrom) to its result, so the
 * project's counters and the accounts never sent add up to its accounts. A project deleted
 * meanwhile (its counters' condition) ends the send. `released`: its successor is on the queue
 * already (sendLeased queued it while the last results were written).
 */
function doneTally(deps: Pick<SendChunkDeps, 'tableName'>, send: Record<string, unknown>, tally: MailTally, released = false): ChunkTally {
  const { results, project } = tally;
  const moves = [...project.entries()].filter(([, by]) => by !== 0);
  return {
    marker: { ...results, ...(released ? { released: true } : {}) },
    job: results,
    also: moves.length
      ? [
          {
            Update: {
              TableName: deps.tableName,
              Key: keys.project(String(send.userId), String(send.projectId)),
              UpdateExpression: `ADD ${moves.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: Object.fromEntries(moves.map(([status], i) => [`#c${i}`, emailCounterAttribute[status]])),
              ExpressionAttributeValues: Object.fromEntries(moves.map(([, by], i) => [`:c${i}`, by])),
            },
          },
        ]
      : [],
  };
}

/** Whether a credentials message names a chunk. */
export const isChunkMessage = (message: { chunk?: number }): message is CredentialsChunkMessage => typeof message.chunk === 'number';

/**
 * The mail queue's dead-letter worker, for a credentials message that failed every delivery. A
 * chunk is given up: delivered once more with `givenUp`, its accounts not reached fail with
 * STOPPED_ON_OUR_SIDE (one an earlier delivery claimed fails as interrupted), the chunk is done,
 * its successor released, and the send ends and adds up instead of staying 'queued' for ever. A
 * send's first message that never got through fails the send if it never started.
 */
export const recordDeadCredentials = (deps: SendChunkDeps) => {
  const chunk = sendChunk(deps);
  return async (message: CredentialsMessage): Promise<void> => {
    if (isChunkMessage(message)) return chunk({ ...message, givenUp: true });
    const send = await readSend(deps, message.userId, message.sendId);
    if (send && (send.status === 'waiting' || send.status === 'queued')) await failSend(deps, message.userId, message.sendId, 'The send could not be started. Please try again.');
  };
};
