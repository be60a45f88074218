import { describe, expect, it } from 'vitest';
import { safeParse } from 'zod/v4/core';
import type { EmailStatus } from '../../shared/schemas/email-status';
import { applyMailEvent, applyMailEvents, MessageNotRecordedYetError, type MailEventStore, type MailMessageRecord, type StatusMove, type SuppressionEntry } from '../../functions/mail-events/apply-mail-event';
import { mailEventMessageSchema, outcomeOf, sesEventOf, type SesEvent } from '../../functions/mail-events/ses-event';
import { acceptedMailOf } from '../../bin/local/emulators';
import { sesEventsOf, simulatorOutcome, snsEnvelope, type AcceptedMail } from '../../bin/local/ses-events';
import { dynamoMailEventStore, taggedMessage } from '../../functions/mail-events/mail-event-store';
import { mailTags } from '../../functions/mail/send-credentials';
import { overlayState } from '../../functions/accounts/account-states';
import { keys } from '../../functions/core/keys';

/** SES's documented Bounce record (event publishing to SNS), fields as the documentation lists them. */
const documentedBounce = {
  eventType: 'Bounce',
  bounce: {
    bounceType: 'Permanent',
    bounceSubType: 'General',
    bouncedRecipients: [{ emailAddress: 'recipient@example.com', action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
    timestamp: '2017-08-05T00:41:02.669Z',
    feedbackId: '01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000',
    reportingMTA: 'dsn; mta.example.com',
  },
  mail: {
    timestamp: '2017-08-05T00:40:02.012Z',
    source: 'Sender Name <sender@example.com>',
    sourceArn: 'arn:aws:ses:us-east-1:123456789012:identity/sender@example.com',
    sendingAccountId: '123456789012',
    messageId: 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000',
    destination: ['recipient@example.com'],
    headersTruncated: false,
    tags: { 'ses:configuration-set': ['ConfigSet'] },
  },
};

const parseBody = (body: unknown): SesEvent => {
  const parsed = safeParse(mailEventMessageSchema, JSON.parse(JSON.stringify(body)));
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message);
  return sesEventOf(parsed.data);
};

describe('SES event records on the mail-events queue', () => {
  it('reads a record inside an SNS envelope (raw message delivery off) and a bare record alike', () => {
    const enveloped = parseBody({ Type: 'Notification', MessageId: 'x', TopicArn: 'arn:aws:sns:us-east-1:1:t', Message: JSON.stringify(documentedBounce) });
    const bare = parseBody(documentedBounce);
    expect(enveloped).toEqual(bare);
    expect(bare.mail.messageId).toBe(documentedBounce.mail.messageId);
    expect(outcomeOf(bare, 'recipient@example.com')).toEqual({
      kind: 'status',
      status: 'bounced',
      error: 'smtp; 550 5.1.1 user unknown',
      suppress: { reason: 'bounced', detail: 'smtp; 550 5.1.1 user unknown' },
      at: '2017-08-05T00:41:02.669Z',
    });
  });

  it('refuses what holds no SES record (it goes back, then to the dead-letter queue)', () => {
    expect(() => parseBody({ Type: 'Notification', Message: 'not json' })).toThrow(/does not hold JSON/);
    expect(() => parseBody({ Type: 'Notification', Message: JSON.stringify({ eventType: 'Bounce' }) })).toThrow(/does not hold an SES event/);
    expect(safeParse(mailEventMessageSchema, { Type: 'SubscriptionConfirmation', Message: '{}' }).success).toBe(false);
    expect(safeParse(mailEventMessageSchema, { eventType: 'Delivery', mail: { messageId: '' } }).success).toBe(false);
  });

  it('maps each event type: Delivery, Bounce (only Permanent suppresses), Complaint, and ignores Send and the rest', () => {
    const mail = { messageId: 'm1', destination: ['a@example.com'] };
    expect(outcomeOf({ eventType: 'Delivery', mail, delivery: { timestamp: '2026-01-01T00:00:00.000Z' } }, 'a@example.com')).toEqual({ kind: 'status', status: 'delivered', at: '2026-01-01T00:00:00.000Z' });
    const transient = outcomeOf({ eventType: 'Bounce', mail, bounce: { bounceType: 'Transient', bounceSubType: 'MailboxFull', bouncedRecipients: [{ emailAddress: 'a@example.com', status: '4.2.2' }] } }, 'a@example.com');
    expect(transient).toMatchObject({ kind: 'status', status: 'bounced', error: 'Transient / MailboxFull bounce (4.2.2)' });
    expect(transient).not.toHaveProperty('suppress');
    expect(outcomeOf({ eventType: 'Complaint', mail, complaint: { complainedRecipients: [{ emailAddress: 'a@example.com' }], complaintFeedbackType: 'abuse' } }, 'a@example.com')).toMatchObject({
      status: 'complained',
      suppress: { reason: 'complained', detail: 'The recipient marked the e-mail as spam (abuse)' },
    });
    // Identity notifications name the type notificationType.
    expect(outcomeOf({ notificationType: 'Delivery', mail }, undefined)).toMatchObject({ status: 'delivered' });
    for (const eventType of ['Send', 'Open', 'Click', 'Rendering Failure', 'DeliveryDelay']) expect(outcomeOf({ eventType, mail }, undefined)).toEqual({ kind: 'ignore', eventType });
  });

  it("picks the account's own entry among several bounced recipients", () => {
    const event: SesEvent = {
      eventType: 'Bounce',
      mail: { messageId: 'm', destination: ['x@example.com', 'me@example.com'] },
      bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'x@example.com', diagnosticCode: 'smtp; 550 x' }, { emailAddress: 'Me@Example.com', diagnosticCode: 'smtp; 550 mine' }] },
    };
    expect(outcomeOf(event, 'me@example.com')).toMatchObject({ error: 'smtp; 550 mine' });
  });
});

describe('the local stack publishes what SES publishes (bin/local/ses-events.ts)', () => {
  const accepted = (to: string): AcceptedMail => ({ messageId: 'local-1', from: 'no-reply@bulkonboard.local', to: [to], subject: 'Hi', configurationSet: 'bulkonboard', at: new Date('2026-01-01T00:00:00.000Z') });
  const later = new Date('2026-01-01T00:00:01.000Z');

  it('follows the mailbox simulator: bounce, complaint, suppressionlist, success and any other address', () => {
    expect(simulatorOutcome('bounce@simulator.amazonses.com')).toBe('bounce');
    expect(simulatorOutcome('Bounce+label-1@Simulator.AmazonSES.com')).toBe('bounce');
    expect(simulatorOutcome('complaint@simulator.amazonses.com')).toBe('complaint');
    expect(simulatorOutcome('suppressionlist@simulator.amazonses.com')).toBe('suppressed');
    expect(simulatorOutcome('success@simulator.amazonses.com')).toBe('delivered');
    expect(simulatorOutcome('bounce@example.com')).toBe('delivered');
  });

  it('Send, then Delivery; Bounce alone; Delivery then Complaint; each read back by the worker as SES documents it', () => {
    const types = (to: string) => {
      const { send, outcomes } = sesEventsOf(accepted(to), later);
      return [send, ...outcomes].map((record) => record.eventType);
    };
    expect(types('success@simulator.amazonses.com')).toEqual(['Send', 'Delivery']);
    expect(types('bounce@simulator.amazonses.com')).toEqual(['Send', 'Bounce']);
    expect(types('complaint@simulator.amazonses.com')).toEqual(['Send', 'Delivery', 'Complaint']);

    const { send, outcomes } = sesEventsOf(accepted('bounce@simulator.amazonses.com'), later);
    const readBack = [send, ...outcomes].map((record) => parseBody(snsEnvelope(record, later)));
    expect(readBack.map((e) => [e.eventType, e.mail.messageId, e.mail.destination])).toEqual([
      ['Send', 'local-1', ['bounce@simulator.amazonses.com']],
      ['Bounce', 'local-1', ['bounce@simulator.amazonses.com']],
    ]);
    expect(outcomeOf(readBack[1]!, 'bounce@simulator.amazonses.com')).toMatchObject({ status: 'bounced', error: 'smtp; 550 5.1.1 user unknown', suppress: { reason: 'bounced' } });
    const complaint = sesEventsOf(accepted('complaint@simulator.amazonses.com'), later).outcomes.map((record) => parseBody(snsEnvelope(record, later)));
    expect(complaint.map((e) => outcomeOf(e, 'complaint@simulator.amazonses.com'))).toMatchObject([{ status: 'delivered' }, { status: 'complained' }]);
  });

  it('takes the MessageId from the emulator\'s SendEmail answer', () => {
    const request = { FromEmailAddress: 'f@x.test', Destination: { ToAddresses: ['t@x.test'] }, Content: { Simple: { Subject: { Data: 'S' } } }, ConfigurationSetName: 'cs' };
    expect(acceptedMailOf(request, JSON.stringify({ MessageId: 'abc' }), later)).toEqual({ messageId: 'abc', from: 'f@x.test', to: ['t@x.test'], cc: [], bcc: [], subject: 'S', configurationSet: 'cs', at: later });
    expect(acceptedMailOf(request, '{"message":"Bad Request"}', later)).toBeUndefined();
    expect(acceptedMailOf(request, 'not json', later)).toBeUndefined();
    expect(acceptedMailOf(undefined, '{"MessageId":"abc"}', later)).toBeUndefined();
  });
});

/** The store port over a map: the transitions' rules alone (the DynamoDB store runs in test/integration/mail-events.test.ts). */
function memoryStore(initial: { status?: EmailStatus; messageId?: string }) {
  const message: MailMessageRecord = { messageId: 'm1', userId: 'u', projectId: 'p', accountId: 'p.000001', accountPK: 'A', accountSK: 'B', email: 'Holder@Example.com' };
  const state = { account: { emailStatus: initial.status, emailMessageId: initial.messageId ?? 'm1' } as { emailStatus?: EmailStatus; emailMessageId?: string; emailError?: string }, counters: {} as Record<string, number>, suppressions: new Map<string, SuppressionEntry>(), moves: [] as StatusMove[], reads: 0 };
  const store: MailEventStore = {
    findMessage: async (id) => (id === 'm1' ? message : undefined),
    readAccount: async () => {
      state.reads++;
      return { ...state.account };
    },
    moveStatus: async (m, move) => {
      // The DynamoDB store's condition: still in `from`, still about this message.
      if (state.account.emailStatus !== move.from || state.account.emailMessageId !== m.messageId) return 'account-changed';
      state.moves.push(move);
      state.account = { ...state.account, emailStatus: move.to, ...(move.error ? { emailError: move.error } : {}) };
      state.counters[move.from] = (state.counters[move.from] ?? 0) - 1;
      state.counters[move.to] = (state.counters[move.to] ?? 0) + 1;
      if (move.suppression && !state.suppressions.has(move.suppression.email)) state.suppressions.set(move.suppression.email, move.suppression);
      return 'moved';
    },
    suppress: async (_u, entry) => {
      if (!state.suppressions.has(entry.email)) state.suppressions.set(entry.email, entry);
    },
  };
  const logs: string[] = [];
  const apply = applyMailEvent({ store, log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) }, now: () => new Date('2026-01-02T00:00:00.000Z') });
  return { state, apply, logs };
}

const event = (eventType: string, extra: Partial<SesEvent> = {}): SesEvent => ({ eventType, mail: { messageId: 'm1', destination: ['holder@example.com'] }, ...extra });
const delivery = event('Delivery', { delivery: { timestamp: '2026-01-01T00:00:01.000Z' } });
const bounce = (bounceType = 'Permanent') => event('Bounce', { bounce: { bounceType, bouncedRecipients: [{ emailAddress: 'holder@example.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] } });
const complaint = event('Complaint', { complaint: { complainedRecipients: [{ emailAddress: 'holder@example.com' }] } });

describe('e-mail status transitions (only forward)', () => {
  it('sent -> delivered -> bounced, counters moved with each step; the same events again change nothing', async () => {
    const { state, apply } = memoryStore({ status: 'sent' });
    expect(await apply(event('Send'))).toBe('ignored');
    expect(await apply(delivery)).toBe('moved');
    expect(await apply(delivery)).toBe('unchanged');
    expect(await apply(bounce())).toBe('moved');
    expect(await apply(bounce())).toBe('unchanged');
    expect(state.account).toMatchObject({ emailStatus: 'bounced', emailError: 'smtp; 550 5.1.1 user unknown' });
    expect(state.counters).toEqual({ sent: -1, delivered: 0, bounced: 1 });
    // The first Delivery moved on the guess 'sent' without a read; the rest each read once.
    expect(state.reads).toBe(3);
    expect([...state.suppressions.values()]).toEqual([{ email: 'holder@example.com', reason: 'bounced', detail: 'smtp; 550 5.1.1 user unknown', createdAt: '2026-01-02T00:00:00.000Z', projectId: 'p' }]);
  });

  it('out of order: a Delivery after the Bounce leaves it bounced; a complaint after a delivery wins', async () => {
    const bounced = memoryStore({ status: 'sent' });
    await bounced.apply(bounce());
    expect(await bounced.apply(delivery)).toBe('unchanged');
    expect(bounced.state.account.emailStatus).toBe('bounced');
    expect(bounced.state.moves).toHaveLength(1);

    const complained = memoryStore({ status: 'delivered' });
    expect(await complained.apply(complaint)).toBe('moved');
    expect(complained.state.account.emailStatus).toBe('complained');
    expect([...complained.state.suppressions.values()].map((s) => s.reason)).toEqual(['complained']);
  });

  it('a Transient bounce marks the account bounced but does not suppress the address; a later complaint does', async () => {
    const { state, apply } = memoryStore({ status: 'sent' });
    expect(await apply(bounce('Transient'))).toBe('moved');
    expect(state.suppressions.size).toBe(0);
    expect(await apply(complaint)).toBe('unchanged');
    expect(state.account.emailStatus).toBe('bounced');
    expect([...state.suppressions.values()].map((s) => s.reason)).toEqual(['complained']);
  });

  it('an event before the sender recorded "sent" is given back; an unknown message or a superseded one is dropped', async () => {
    await expect(memoryStore({ status: 'queued' }).apply(delivery)).rejects.toBeInstanceOf(MessageNotRecordedYetError);
    const unknown = memoryStore({ status: 'sent' });
    expect(await unknown.apply({ ...delivery, mail: { messageId: 'nobody' } })).toBe('unknown-message');
    expect(unknown.logs).toEqual(['SES event for an unknown message: dropped']);
    const resent = memoryStore({ status: 'sent', messageId: 'newer' });
    expect(await resent.apply(bounce())).toBe('superseded');
    expect(resent.state.account.emailStatus).toBe('sent');
    // The address did bounce: it goes on the list all the same.
    expect(resent.state.suppressions.size).toBe(1);
  });

  it('never moves a failed or suppressed account', async () => {
    for (const status of ['failed', 'suppressed'] as const) {
      const { state, apply } = memoryStore({ status });
      expect(await apply(delivery)).toBe('unchanged');
      expect(await apply(bounce('Transient'))).toBe('unchanged');
      expect(state.account.emailStatus).toBe(status);
      expect(state.moves).toEqual([]);
    }
  });
});

describe('credential e-mails found by their SES tags', () => {
  const later = new Date('2026-01-01T00:00:01.000Z');
  const tags = mailTags({ userId: 'a1b2c3d4-0000-4000-8000-000000000001', projectId: '01900000-0000-7000-8000-000000000002', row: 7, shards: 3, sendId: '01900000-0000-7000-8000-000000000003' });
  const published = (mailTagsOf?: Record<string, string>) =>
    parseBody(snsEnvelope(sesEventsOf({ messageId: 'm7', from: 'f@x.test', to: ['holder@example.com'], subject: 'S', configurationSet: 'cs', at: later, tags: mailTagsOf }, later).outcomes[0]!, later));

  it('the local stack publishes the tags SendEmail had (mail.tags, name -> [value]) and the worker finds the account by them', () => {
    const event = published(tags);
    expect(event.mail.tags).toMatchObject({ 'ses:configuration-set': ['cs'], row: ['7'], shards: ['3'], sendId: [tags.sendId] });
    expect(taggedMessage('m7', event)).toEqual({
      messageId: 'm7',
      tagged: { sendId: tags.sendId, row: 7, shards: 3 },
      userId: tags.userId,
      projectId: tags.projectId,
      accountId: keys.accountId(tags.projectId!, 7),
      ...Object.fromEntries(Object.entries(keys.account(tags.userId!, tags.projectId!, 7, 3)).map(([k, v]) => [`account${k}`, v])),
      email: 'holder@example.com',
    });
    const fromEmulator = acceptedMailOf({ Destination: { ToAddresses: ['t@x.test'] }, EmailTags: Object.entries(tags).map(([Name, Value]) => ({ Name, Value })) }, '{"MessageId":"abc"}', later);
    expect(fromEmulator?.tags).toEqual(tags);
  });

  it('an e-mail without the tags, or with tags that name no account, is looked up by its message record instead', () => {
    expect(taggedMessage('m7', published())).toBeUndefined();
    for (const bad of [{ row: '0' }, { row: 'x' }, { shards: '17' }, { projectId: 'p#1' }, { sendId: '' }] as Record<string, string>[]) expect(taggedMessage('m7', published({ ...tags, ...bad })), JSON.stringify(bad)).toBeUndefined();
  });

  it("an event recorded on the account item decides the status of the MAIL entry's own e-mail, never of another one", () => {
    const item = { PK: 'P', SK: 'ACCOUNT#000007', row: 7, emailStatus: 'sent', emailMessageId: 'old', emailEventMessageId: 'm7', emailEventStatus: 'bounced', emailEventAt: '2026-01-01T00:00:00.000Z', emailEventError: 'smtp; 550' };
    const states = (entry: Record<string, string>) => ({ PROV: new Map(), MAIL: new Map([[7, entry]]) });
    expect(overlayState(item, states({ emailStatus: 'sent', emailMessageId: 'm7', emailSentAt: 'x' }))).toMatchObject({ emailStatus: 'bounced', emailError: 'smtp; 550', emailStatusAt: '2026-01-01T00:00:00.000Z', emailMessageId: 'm7' });
    const newer = overlayState(item, states({ emailStatus: 'sent', emailMessageId: 'm8' }));
    expect(newer).toMatchObject({ emailStatus: 'sent', emailMessageId: 'm8' });
    expect(newer).not.toHaveProperty('emailError');
    expect(overlayState(item, states({ emailStatus: 'queued', mailClaim: 'sending' }))).toMatchObject({ emailStatus: 'queued' });
    // No entry: the item's own status (an e-mail recorded before state blocks).
    expect(overlayState(item, { PROV: new Map(), MAIL: new Map() })).toMatchObject({ emailStatus: 'sent', emailMessageId: 'old' });
  });
});

/**
 * A batch over a store of several tagged accounts (message m<row> is for row <row>): the plain
 * events go in one read and one all-or-nothing transaction; everything else alone, by the same rules.
 */
describe('a batch of SES events applied together', () => {
  const ids = { userId: 'a1b2c3d4-0000-4000-8000-000000000001', projectId: '01900000-0000-7000-8000-000000000002', sendId: '01900000-0000-7000-8000-000000000003' };
  const tagged = (eventType: string, row: number, extra: Partial<SesEvent> = {}): SesEvent => ({
    eventType,
    mail: { messageId: `m${row}`, destination: [`holder${row}@example.com`], tags: Object.fromEntries(Object.entries(mailTags({ ...ids, row, shards: 1 })).map(([name, value]) => [name, [value]])) },
    ...extra,
  });
  const deliveryOf = (row: number) => tagged('Delivery', row, { delivery: { timestamp: '2026-01-01T00:00:01.000Z' } });
  const bounceOf = (row: number) => tagged('Bounce', row, { bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: `holder${row}@example.com`, diagnosticCode: 'smtp; 550' }] } });

  function batchStore(statuses: Record<number, EmailStatus>, options: { cancelFirstTransaction?: boolean } = {}) {
    const accounts = new Map(Object.entries(statuses).map(([row, status]) => [`m${row}`, { emailStatus: status as EmailStatus, emailMessageId: `m${row}` }]));
    const state = { counters: {} as Record<string, number>, suppressions: new Map<string, SuppressionEntry>(), reads: 0, batchReads: 0, transactions: 0, batchTransactions: 0 };
    const cancel = { next: options.cancelFirstTransaction === true };
    const canMove = (m: MailMessageRecord, move: StatusMove) => accounts.get(m.messageId)?.emailStatus === move.from;
    const move = (m: MailMessageRecord, change: StatusMove) => {
      accounts.get(m.messageId)!.emailStatus = change.to;
      state.counters[change.from] = (state.counters[change.from] ?? 0) - 1;
      state.counters[change.to] = (state.counters[change.to] ?? 0) + 1;
      if (change.suppression && !state.suppressions.has(change.suppression.email)) state.suppressions.set(change.suppression.email, change.suppression);
    };
    const store: MailEventStore = {
      findMessage: async (id, e) => taggedMessage(id, e),
      readAccount: async (m) => {
        state.reads++;
        const account = accounts.get(m.messageId);
        return account && { ...account };
      },
      readAccounts: async (messages) => {
        state.batchReads++;
        return new Map(messages.map((m) => [m.messageId, accounts.has(m.messageId) ? { ...accounts.get(m.messageId)! } : undefined]));
      },
      moveStatus: async (m, change) => {
        state.transactions++;
        if (!canMove(m, change)) return 'account-changed';
        move(m, change);
        return 'moved';
      },
      moveStatuses: async (moves) => {
        state.batchTransactions++;
        // All or nothing, as one transaction: a race (another copy moved one first) cancels it.
        if (cancel.next) {
          cancel.next = false;
          accounts.get(moves[0]!.message.messageId)!.emailStatus = moves[0]!.move.to;
          return 'not-moved';
        }
        if (!moves.every(({ message, move: change }) => canMove(message, change))) return 'not-moved';
        for (const { message, move: change } of moves) move(message, change);
        return 'moved';
      },
      suppress: async (_u, entry) => {
        if (!state.suppressions.has(entry.email)) state.suppressions.set(entry.email, entry);
      },
    };
    const apply = applyMailEvents({ store, log: { info: () => undefined, warn: () => undefined }, now: () => new Date('2026-01-02T00:00:00.000Z') });
    return { accounts, state, apply };
  }

  it("the plain Deliveries in one read and one transaction; a Send ignored, a duplicate, a bounce with its suppression and an unrecorded e-mail each on their own", async () => {
    const { accounts, state, apply } = batchStore({ 1: 'sent', 2: 'sent', 3: 'queued', 4: 'sent', 5: 'sent' });
    const results = await apply([tagged('Send', 1), deliveryOf(1), deliveryOf(2), deliveryOf(1), deliveryOf(3), bounceOf(4), deliveryOf(4), deliveryOf(5)]);
    expect(results.slice(0, 4)).toEqual(['ignored', 'moved', 'moved', 'unchanged']);
    expect(results[4]).toBeInstanceOf(MessageNotRecordedYetError);
    expect(results.slice(5)).toEqual(['moved', 'moved', 'moved']);
    expect(Object.fromEntries([...accounts].map(([id, a]) => [id, a.emailStatus]))).toEqual({ m1: 'delivered', m2: 'delivered', m3: 'queued', m4: 'bounced', m5: 'delivered' });
    // m1, m2, m4 (delivered before its bounce) and m5 together; m1 again, m3 and m4's bounce alone.
    expect(state).toMatchObject({ batchReads: 1, batchTransactions: 1, reads: 3, transactions: 1 });
    expect(state.counters).toEqual({ sent: -4, delivered: 3, bounced: 1 });
    expect([...state.suppressions.keys()]).toEqual(['holder4@example.com']);
  });

  it('a transaction that does not go through moves nothing: each event is applied on its own then, and nothing counts twice', async () => {
    const { accounts, state, apply } = batchStore({ 1: 'sent', 2: 'sent', 3: 'delivered' }, { cancelFirstTransaction: true });
    // m1 is moved by "another copy" while the batch's transaction is cancelled; m3 is further on already.
    expect(await apply([deliveryOf(1), deliveryOf(2), deliveryOf(3)])).toEqual(['unchanged', 'moved', 'unchanged']);
    expect([...accounts.values()].map((a) => a.emailStatus)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(state.counters).toEqual({ sent: -1, delivered: 1 });
    expect(state).toMatchObject({ batchReads: 1, batchTransactions: 1, reads: 3, transactions: 1 });
  });
});

describe('SES events store: keys DynamoDB leaves unprocessed', () => {
  it('reads them again (DynamoDB Local never leaves any; AWS does under throttling) and fails only when the budget is spent', async () => {
    const account = (n: number): MailMessageRecord => ({
      messageId: `ses-${n}`,
      tagged: { sendId: 's', row: n, shards: 1 },
      userId: 'u',
      projectId: 'p',
      accountId: `a${n}`,
      accountPK: `USER#u#PROJECT#p`,
      accountSK: `ACCOUNT#${n}`,
      email: `person${n}@example.com`,
    });
    const requested: number[] = [];
    let calls = 0;
    // A document client that answers the first BatchGetItem with half of its keys unprocessed.
    const db = {
      send: async (command: { input: { RequestItems: Record<string, { Keys: { PK: string; SK: string }[] }> } }) => {
        const wanted = command.input.RequestItems.t!.Keys;
        requested.push(wanted.length);
        calls++;
        const [now, later] = calls === 1 ? [wanted.slice(0, 2), wanted.slice(2)] : [wanted, []];
        return {
          Responses: { t: now.filter((k) => k.SK.startsWith('ACCOUNT#')).map((k) => ({ ...k, emailEventMessageId: `ses-${k.SK.slice(8)}`, emailEventStatus: 'delivered' })) },
          ...(later.length ? { UnprocessedKeys: { t: { Keys: later } } } : {}),
        };
      },
    };
    const fast = { budgetMs: 1_000, baseMs: 1, capMs: 2 };
    const store = dynamoMailEventStore(db as never, 't', fast);
    const states = await store.readAccounts!([account(1), account(2)]);
    // Their one state block (rows 1 and 2) and 2 accounts asked first, the 1 left unprocessed asked again.
    expect(requested).toEqual([3, 1]);
    expect([...states.keys()]).toEqual(['ses-1', 'ses-2']);

    const stuck = dynamoMailEventStore({ send: async (command: { input: { RequestItems: Record<string, { Keys: unknown[] }> } }) => ({ UnprocessedKeys: { t: { Keys: command.input.RequestItems.t!.Keys } } }) } as never, 't', fast);
    await expect(stuck.readAccounts!([account(1)])).rejects.toThrow(/still refused after \d+ attempts/);
  });
});
