import type { EmailStatus } from '../../shared/schemas/email-status';
import { RetryLaterError } from '../core/retry-later';
import type { SuppressionReason } from '../../shared/schemas/email-suppressions';
import { reminderMessage, taggedMessage } from './mail-event-store';
import { outcomeOf, type SesEvent } from './ses-event';

/**
 * The account an e-mail was for. Credential e-mails carry it in their SES tags (userId,
 * projectId, row, shards, sendId: `tagged`, its state in the MAIL state block); e-mails sent
 * before the tags were recorded by a keys.mailMessage item (its state on the account item).
 */
export interface MailMessageRecord {
  messageId: string;
  /** From the tags: the send, and where the account's MAIL state block is. */
  tagged?: { sendId: string; row: number; shards: number };
  userId: string;
  projectId: string;
  accountId: string;
  accountPK: string;
  accountSK: string;
  email: string;
  sentAt?: string;
}

/** The account's e-mail fields as stored. */
export interface AccountEmailState {
  emailStatus?: EmailStatus;
  emailMessageId?: string;
}

export interface SuppressionEntry {
  email: string;
  reason: SuppressionReason;
  detail: string;
  createdAt: string;
  projectId: string;
}

export interface StatusMove {
  from: EmailStatus;
  to: EmailStatus;
  /** emailError: SES's diagnostic for a bounce or a complaint. */
  error?: string;
  /** When SES says it happened. */
  at: string;
  /** Put on the user's suppression list in the same transaction (kept as it is when already there). */
  suppression?: SuppressionEntry;
}

/**
 * An expiry reminder's account, from its SES tags (userId, projectId, row, shards, reminder: the
 * expiration date it reminded of; functions/schedules/reminder-claims.ts). Its outcome lives on
 * the account's reminder claim (keys.reminderSent), never in the credential e-mail's status.
 */
export interface ReminderMessageRecord {
  messageId: string;
  userId: string;
  projectId: string;
  row: number;
  shards: number;
  /** The expiration date the reminder was about (its claim's key). */
  date: string;
  email: string;
}

export interface MailEventStore {
  /**
   * A reminder's event on its claim (only while the claim names this message and the event moves
   * it on: delivered, then bounced or complained) and, for a bounce or a complaint, an entry in the
   * account's history, in one transaction; 'unchanged' when the claim is not this message's or was
   * there already.
   */
  reminderEvent?(message: ReminderMessageRecord, move: { to: 'delivered' | 'bounced' | 'complained'; error?: string; at: string }): Promise<'moved' | 'unchanged'>;
  /** The account of a message: from the event's tags, else from its keys.mailMessage item. */
  findMessage(messageId: string, event?: SesEvent): Promise<MailMessageRecord | undefined>;
  readAccount(message: MailMessageRecord): Promise<AccountEmailState | undefined>;
  /**
   * One transaction: the account from `from` to `to` (only if it is still in `from` and still
   * about this message), the project's counters moved with it, and the suppression if any.
   * 'account-changed' when the account's condition failed (it changed meanwhile), 'project-gone'
   * when its project was deleted (nothing is written then).
   */
  moveStatus(message: MailMessageRecord, move: StatusMove): Promise<'moved' | 'account-changed' | 'project-gone'>;
  /** Puts an address on the user's suppression list unless it is there already. */
  suppress(userId: string, entry: SuppressionEntry): Promise<void>;
  /**
   * Several tagged messages' accounts in one read (readAccount of each, strongly consistent):
   * messageId -> state (undefined: the account or its entry is gone). Optional: without it every
   * event is applied on its own.
   */
  readAccounts?(messages: readonly MailMessageRecord[]): Promise<Map<string, AccountEmailState | undefined>>;
  /**
   * Several moves (each a different account, none with a suppression) in one transaction: each
   * account's update under its own condition, each project's counters moved by their sum. All or
   * nothing: 'not-moved' when any condition failed or the transaction was cancelled (nothing is
   * written then).
   */
  moveStatuses?(moves: readonly { message: MailMessageRecord; move: StatusMove }[]): Promise<'moved' | 'not-moved'>;
}

export interface MailEventLog {
  info(message: string, details: Record<string, unknown>): void;
  warn(message: string, details: Record<string, unknown>): void;
}

/** The event came before the sender recorded 'sent': given back to the queue, tried again later. */
export class MessageNotRecordedYetError extends RetryLaterError {
  constructor(messageId: string) {
    super(`The account of message ${messageId} is not marked sent yet`);
    this.name = 'MessageNotRecordedYetError';
  }
}

/**
 * Statuses only move forward: sent -> delivered -> bounced | complained (a bounce or a complaint
 * may follow a delivery, SES reports both). The rank of each status an event may reach or leave.
 */
const rank: Partial<Record<EmailStatus, number>> = { sent: 1, delivered: 2, bounced: 3, complained: 3 };
const allowedFrom: Record<'delivered' | 'bounced' | 'complained', readonly EmailStatus[]> = {
  delivered: ['sent'],
  bounced: ['sent', 'delivered'],
  complained: ['sent', 'delivered'],
};

export type AppliedResult = 'moved' | 'unchanged' | 'ignored' | 'unknown-message' | 'superseded';

/** A status change racing with another copy of the same event is read again this often. */
const ATTEMPTS = 3;

/**
 * Applies one SES event to the account it is about. An event twice, or out of order (a Delivery
 * after a Bounce), changes nothing: the move is conditional on the status the event leaves, and
 * a status never goes back. An unknown message id (a mail not sent by the credentials sender, or
 * one whose record expired) is logged and dropped: retrying would never find it.
 */
export const applyMailEvent =
  (deps: { store: MailEventStore; log: MailEventLog; now: () => Date }) =>
  async (event: SesEvent): Promise<AppliedResult> => {
    const messageId = event.mail.messageId;
    // Send and other types need no read: nothing changes for them.
    const preview = outcomeOf(event, undefined, deps.now);
    if (preview.kind === 'ignore') return 'ignored';

    // An expiry reminder: its claim and the account's history say what became of it; the address is suppressed as for a credential e-mail.
    const reminder = deps.store.reminderEvent ? reminderMessage(messageId, event) : undefined;
    if (reminder) {
      const outcome = outcomeOf(event, reminder.email, deps.now);
      if (outcome.kind === 'ignore') return 'ignored';
      const result = await deps.store.reminderEvent!(reminder, { to: outcome.status, error: outcome.error, at: outcome.at });
      if (outcome.suppress) {
        await deps.store.suppress(reminder.userId, { email: reminder.email.trim().toLowerCase(), reason: outcome.suppress.reason, detail: outcome.suppress.detail, createdAt: deps.now().toISOString(), projectId: reminder.projectId });
      }
      return result;
    }
    const message = await deps.store.findMessage(messageId, event);
    if (!message) {
      deps.log.info('SES event for an unknown message: dropped', { messageId, eventType: event.eventType ?? event.notificationType });
      return 'unknown-message';
    }
    const outcome = outcomeOf(event, message.email, deps.now);
    if (outcome.kind === 'ignore') return 'ignored';
    const suppression: SuppressionEntry | undefined = outcome.suppress
      ? { email: message.email.trim().toLowerCase(), reason: outcome.suppress.reason, detail: outcome.suppress.detail, createdAt: deps.now().toISOString(), projectId: message.projectId }
      : undefined;

    // Nearly every event of a recorded message finds its account as the sender left it, 'sent':
    // the move is tried on that guess first (no read), and the account is read only when the
    // guess was wrong (a duplicate, a late event, a newer e-mail, a bounce after the delivery). A
    // tagged message's state is read first: its block must still be about this e-mail (a later
    // send may have claimed the account), and the read is of one entry.
    let guess: EmailStatus | undefined = message.tagged ? undefined : 'sent';
    for (let attempt = 1; attempt <= ATTEMPTS + 1; attempt++) {
      let from: EmailStatus;
      if (guess) {
        from = guess;
        guess = undefined;
      } else {
        const account = await deps.store.readAccount(message);
        if (!account || account.emailMessageId !== messageId) {
          // The account is gone, or was sent a newer e-mail since: its status is that one's. The
          // address did bounce or complain all the same.
          deps.log.info('SES event for a message the account no longer waits on', { messageId, eventType: event.eventType, accountId: message.accountId });
          if (suppression) await deps.store.suppress(message.userId, suppression);
          return 'superseded';
        }
        const current = account.emailStatus;
        if (current === outcome.status) return 'unchanged';
        if (current === undefined || current === 'queued') throw new MessageNotRecordedYetError(messageId);
        if (!allowedFrom[outcome.status].includes(current)) {
          // Already further on (a Delivery after its Bounce), or failed / suppressed: the status
          // stays. A complaint after a (transient) bounce still puts the address on the list.
          if ((rank[current] ?? 0) < (rank[outcome.status] ?? 0)) deps.log.warn('SES event for an account in an unexpected status', { messageId, status: current, eventType: event.eventType });
          if (suppression) await deps.store.suppress(message.userId, suppression);
          return 'unchanged';
        }
        from = current;
      }
      const result = await deps.store.moveStatus(message, { from, to: outcome.status, error: outcome.error, at: outcome.at, suppression });
      if (result === 'moved') return 'moved';
      if (result === 'project-gone') {
        deps.log.info('SES event for an account whose project is gone', { messageId, projectId: message.projectId });
        if (suppression) await deps.store.suppress(message.userId, suppression);
        return 'superseded';
      }
    }
    throw new Error(`The account of message ${messageId} kept changing; tried ${ATTEMPTS} times`);
  };

/**
 * A batch of SES events (the queue hands the worker up to 10): the plain ones (a tagged
 * credential e-mail's Delivery, Bounce or Complaint without a suppression, one per account, its
 * account found in the status the event leaves) are applied together, one read of all their
 * accounts and blocks and one transaction of all their moves (each account under the same
 * condition as alone, each project's counters moved by the sum), instead of two reads and a
 * transaction each. Everything else, and every event of a batch whose read or transaction did
 * not go through, is applied on its own by applyMailEvent, with the same rules. The answer of
 * each event, in order: what it did, or the error it failed with (that record is retried).
 */
export const applyMailEvents = (deps: { store: MailEventStore; log: MailEventLog; now: () => Date }) => {
  const one = applyMailEvent(deps);
  return async (events: readonly SesEvent[]): Promise<(AppliedResult | Error)[]> => {
    const results: (AppliedResult | Error | undefined)[] = events.map(() => undefined);
    const alone = (i: number) =>
      one(events[i]!).then(
        (result) => void (results[i] = result),
        (error: unknown) => void (results[i] = error instanceof Error ? error : new Error(String(error))),
      );
    // The candidates: tagged, an outcome that moves a status, no suppression, one per account.
    const together: { index: number; message: MailMessageRecord; status: keyof typeof allowedFrom; error?: string; at: string }[] = [];
    const rest: number[] = [];
    const accounts = new Set<string>();
    const { readAccounts, moveStatuses } = deps.store;
    events.forEach((event, index) => {
      if (outcomeOf(event, undefined, deps.now).kind === 'ignore') {
        results[index] = 'ignored';
        return;
      }
      const tagged = readAccounts && moveStatuses ? taggedRecord(event) : undefined;
      const outcome = tagged ? outcomeOf(event, tagged.email, deps.now) : undefined;
      const key = tagged ? `${tagged.accountPK}\n${tagged.accountSK}` : '';
      if (!tagged || !outcome || outcome.kind === 'ignore' || outcome.suppress || accounts.has(key)) {
        rest.push(index);
        return;
      }
      accounts.add(key);
      together.push({ index, message: tagged, status: outcome.status, error: outcome.error, at: outcome.at });
    });
    if (together.length < 2) rest.push(...together.splice(0).map((c) => c.index));
    if (together.length) {
      let moved = false;
      try {
        const states = await readAccounts!(together.map((c) => c.message));
        const moves: { message: MailMessageRecord; move: StatusMove }[] = [];
        for (const candidate of together) {
          const state = states.get(candidate.message.messageId);
          const current = state?.emailMessageId === candidate.message.messageId ? state.emailStatus : undefined;
          // Only a move the event makes from where the account is; anything else (superseded,
          // unchanged, not recorded yet, further on) is decided on its own below.
          if (current && current !== candidate.status && allowedFrom[candidate.status].includes(current)) {
            moves.push({ message: candidate.message, move: { from: current, to: candidate.status, error: candidate.error, at: candidate.at } });
          } else rest.push(candidate.index);
        }
        if (moves.length) moved = (await moveStatuses!(moves)) === 'moved';
        const movedIndexes = new Set(moves.map((m) => together.find((c) => c.message === m.message)!.index));
        for (const index of movedIndexes) {
          if (moved) results[index] = 'moved';
          else rest.push(index);
        }
      } catch (error) {
        deps.log.warn('SES events: the batch was not applied together, each is applied on its own', { events: together.length, error: error instanceof Error ? error.message : String(error) });
        for (const candidate of together) if (results[candidate.index] === undefined && !rest.includes(candidate.index)) rest.push(candidate.index);
      }
    }
    for (const index of [...new Set(rest)].sort((a, b) => a - b)) await alone(index);
    return results.map((result) => result ?? new Error('SES event not applied'));
  };
};

/** A tagged credential e-mail's account (the tags name it), without any read. */
function taggedRecord(event: SesEvent): MailMessageRecord | undefined {
  return taggedMessage(event.mail.messageId, event);
}
