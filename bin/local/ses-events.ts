import { randomUUID } from 'node:crypto';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { REGION } from './settings';

/**
 * SES event publishing, locally. On AWS the configuration set publishes each message's events
 * (Send, then Delivery, Bounce or Complaint) to an SNS topic that the mail-events queue is
 * subscribed to. The SES emulator publishes nothing, so the local stack does it: for every
 * message the emulator accepts (bin/local/emulators.ts sees each SendEmail answer), the same
 * event JSON, in the same SNS envelope (raw message delivery off), goes to the local mail-events
 * queue. SES's mailbox simulator addresses behave as on AWS: bounce@simulator.amazonses.com
 * bounces (Permanent), complaint@... is delivered and then complained about, suppressionlist@...
 * bounces as suppressed, success@... and every other address is delivered.
 */

const ACCOUNT_ID = '000000000000';
export const localEventsTopicArn = `arn:aws:sns:${REGION}:${ACCOUNT_ID}:bulkonboard-mail-events`;

/** A message the SES emulator accepted: what SendEmail was asked and the MessageId it answered. */
export interface AcceptedMail {
  messageId: string;
  from: string;
  to: readonly string[];
  cc?: readonly string[];
  bcc?: readonly string[];
  subject: string;
  configurationSet?: string;
  /** SendEmail's EmailTags (name -> value): SES publishes them with every event of the message. */
  tags?: Record<string, string>;
  at: Date;
}

type SimulatorOutcome = 'delivered' | 'bounce' | 'complaint' | 'suppressed';

/** What SES's mailbox simulator does with an address (labels as in bounce+test1@... are allowed). */
export function simulatorOutcome(address: string): SimulatorOutcome {
  const match = /^([a-z]+)(?:\+[^@]*)?@simulator\.amazonses\.com$/i.exec(address.trim());
  switch (match?.[1]?.toLowerCase()) {
    case 'bounce':
      return 'bounce';
    case 'complaint':
      return 'complaint';
    case 'suppressionlist':
      return 'suppressed';
    default:
      return 'delivered';
  }
}

export type SesEventRecord = Record<string, unknown> & { eventType: string };

const feedbackId = () => `${randomUUID()}-000000`;

/**
 * The records SES publishes for one message, in the order it publishes them: Send, then per
 * recipient a Delivery, a Bounce, or a Delivery followed by a Complaint. `now` is when the
 * outcome is known (SES delivers in about a second).
 */
export function sesEventsOf(mail: AcceptedMail, now: Date): { send: SesEventRecord; outcomes: SesEventRecord[] } {
  const destination = [...mail.to, ...(mail.cc ?? []), ...(mail.bcc ?? [])];
  const mailObject = {
    timestamp: mail.at.toISOString(),
    source: mail.from,
    sourceArn: `arn:aws:ses:${REGION}:${ACCOUNT_ID}:identity/${mail.from.split('@')[1] ?? mail.from}`,
    sendingAccountId: ACCOUNT_ID,
    messageId: mail.messageId,
    destination,
    headersTruncated: false,
    commonHeaders: { from: [mail.from], to: [...mail.to], messageId: mail.messageId, subject: mail.subject },
    // As SES publishes them: its own tags and each of SendEmail's EmailTags, name -> [value].
    tags: {
      ...(mail.configurationSet ? { 'ses:configuration-set': [mail.configurationSet] } : {}),
      'ses:source-ip': ['127.0.0.1'],
      ...Object.fromEntries(Object.entries(mail.tags ?? {}).map(([name, value]) => [name, [value]])),
    },
  };
  const at = now.toISOString();
  const byOutcome = (outcome: SimulatorOutcome) => destination.filter((address) => simulatorOutcome(address) === outcome);
  const delivered = [...byOutcome('delivered'), ...byOutcome('complaint')];
  const outcomes: SesEventRecord[] = [];
  if (delivered.length) {
    outcomes.push({
      eventType: 'Delivery',
      mail: mailObject,
      delivery: {
        timestamp: at,
        processingTimeMillis: Math.max(0, now.getTime() - mail.at.getTime()),
        recipients: delivered,
        smtpResponse: '250 2.6.0 Message received',
        reportingMTA: 'a8-70.smtp-out.amazonses.com',
      },
    });
  }
  const bounced = byOutcome('bounce');
  if (bounced.length) {
    outcomes.push({
      eventType: 'Bounce',
      mail: mailObject,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: bounced.map((emailAddress) => ({ emailAddress, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' })),
        timestamp: at,
        feedbackId: feedbackId(),
        reportingMTA: 'dns; amazonses.com',
      },
    });
  }
  const suppressed = byOutcome('suppressed');
  if (suppressed.length) {
    outcomes.push({
      eventType: 'Bounce',
      mail: mailObject,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'Suppressed',
        bouncedRecipients: suppressed.map((emailAddress) => ({
          emailAddress,
          action: 'failed',
          status: '5.1.1',
          diagnosticCode: 'Amazon SES has suppressed sending to this address because it has a recent history of bouncing as an invalid address.',
        })),
        timestamp: at,
        feedbackId: feedbackId(),
        reportingMTA: 'dns; amazonses.com',
      },
    });
  }
  const complained = byOutcome('complaint');
  if (complained.length) {
    outcomes.push({
      eventType: 'Complaint',
      mail: mailObject,
      complaint: {
        complainedRecipients: complained.map((emailAddress) => ({ emailAddress })),
        timestamp: at,
        feedbackId: feedbackId(),
        userAgent: 'Amazon SES Mailbox Simulator',
        complaintFeedbackType: 'abuse',
        arrivalDate: at,
      },
    });
  }
  return { send: { eventType: 'Send', mail: mailObject, send: {} }, outcomes };
}

/** SNS's notification envelope around a record, as SNS delivers it to SQS with raw message delivery off. */
export function snsEnvelope(record: SesEventRecord, now: Date): Record<string, string> {
  return {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: localEventsTopicArn,
    Message: JSON.stringify(record),
    Timestamp: now.toISOString(),
    SignatureVersion: '1',
    Signature: 'local',
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/local.pem',
    UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
  };
}

export interface SesEventPublisher {
  publish(mail: AcceptedMail): void;
  /** Drops the outcomes not yet due and waits for the batches in flight. */
  stop(): Promise<void>;
}

/**
 * Puts each accepted message's Send event on the queue at once and its outcome after
 * `deliveryDelayMs` (SES takes about a second to deliver; the sender records the message after
 * SendEmail answers, so an outcome never overtakes that record). Events go out in batches of ten.
 */
export function startSesEventPublisher(options: {
  client: SQSClient;
  queueUrl: string;
  deliveryDelayMs?: number;
  log: (message: string) => void;
  now?: () => Date;
}): SesEventPublisher {
  const now = options.now ?? (() => new Date());
  const delay = options.deliveryDelayMs ?? 1000;
  const pending: SesEventRecord[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let flushScheduled = false;
  let stopped = false;

  const sendBatch = async (records: SesEventRecord[]) => {
    try {
      const at = now();
      const { Failed } = await options.client.send(
        new SendMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: records.map((record, i) => ({ Id: String(i), MessageBody: JSON.stringify(snsEnvelope(record, at)) })),
        }),
      );
      if (Failed?.length) options.log(`SES events: ${Failed.length} could not be queued (${Failed[0]?.Message ?? Failed[0]?.Code})`);
    } catch (error) {
      if (!stopped) options.log(`SES events: could not queue ${records.length} events: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const flush = () => {
    flushScheduled = false;
    while (pending.length) {
      const batch = pending.splice(0, 10);
      const sent = sendBatch(batch).finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    }
  };
  const enqueue = (records: SesEventRecord[]) => {
    if (stopped || records.length === 0) return;
    pending.push(...records);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  return {
    publish(mail) {
      if (stopped) return;
      const events = sesEventsOf(mail, mail.at);
      enqueue([events.send]);
      const timer = setTimeout(() => {
        timers.delete(timer);
        enqueue(sesEventsOf(mail, now()).outcomes);
      }, delay);
      timers.add(timer);
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      pending.length = 0;
      await Promise.all([...inFlight]);
    },
  };
}
