// zod/mini: the worker's bundle stays small.
import * as z from 'zod/mini';

/**
 * One SES event-publishing record, as SES documents it ("Contents of event data that Amazon SES
 * publishes to Amazon SNS"): only the fields the worker reads; anything else a record holds is
 * ignored. Identity feedback notifications name the type `notificationType` instead of
 * `eventType` and are read the same way.
 */
const recipient = z.object({
  emailAddress: z.string(),
  diagnosticCode: z.optional(z.string()),
  status: z.optional(z.string()),
});

export const sesEventSchema = z.object({
  eventType: z.optional(z.string()),
  notificationType: z.optional(z.string()),
  mail: z.object({
    messageId: z.string().check(z.minLength(1)),
    timestamp: z.optional(z.string()),
    destination: z.optional(z.array(z.string())),
    /** The message's tags (SendEmail's EmailTags, and SES's own `ses:*` ones): name -> values. */
    tags: z.optional(z.record(z.string(), z.array(z.string()))),
  }),
  bounce: z.optional(
    z.object({
      bounceType: z.string(),
      bounceSubType: z.optional(z.string()),
      bouncedRecipients: z.array(recipient),
      timestamp: z.optional(z.string()),
    }),
  ),
  complaint: z.optional(
    z.object({
      complainedRecipients: z.array(z.object({ emailAddress: z.string() })),
      complaintFeedbackType: z.optional(z.string()),
      timestamp: z.optional(z.string()),
    }),
  ),
  delivery: z.optional(z.object({ timestamp: z.optional(z.string()), recipients: z.optional(z.array(z.string())) })),
});
export type SesEvent = z.infer<typeof sesEventSchema>;

/** SNS's envelope when raw message delivery is off (the CDK's subscription): the record is its Message, as a JSON string. */
const snsEnvelopeSchema = z.object({ Type: z.literal('Notification'), Message: z.string() });

/** What the mail-events queue carries: the SNS envelope, or the record itself (raw message delivery on). */
export const mailEventMessageSchema = z.union([snsEnvelopeSchema, sesEventSchema]);
export type MailEventMessage = z.infer<typeof mailEventMessageSchema>;

/** The SES record of a queue message; throws (the message goes back, then to the DLQ) when it holds none. */
export function sesEventOf(message: MailEventMessage): SesEvent {
  if (!('Type' in message)) return message;
  let inner: unknown;
  try {
    inner = JSON.parse(message.Message);
  } catch {
    throw new Error('The SNS notification does not hold JSON');
  }
  const parsed = z.safeParse(sesEventSchema, inner);
  if (!parsed.success) throw new Error(`The SNS notification does not hold an SES event: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/**
 * What an event means for the account it is about. Delivery: delivered. Bounce: bounced, with
 * SES's diagnostic; only a Permanent bounce suppresses the address (Transient: mailbox full, try
 * again later; Undetermined: SES could not tell). Complaint: complained, and suppressed. Send
 * and every other type change nothing (the sender recorded 'sent' when SES accepted the mail).
 */
export type EventOutcome =
  | { kind: 'ignore'; eventType: string }
  | { kind: 'status'; status: 'delivered' | 'bounced' | 'complained'; error?: string; suppress?: { reason: 'bounced' | 'complained'; detail: string }; at: string };

const firstOf = <T>(list: readonly T[], recipient: string | undefined, addressOf: (item: T) => string): T | undefined =>
  list.find((item) => recipient !== undefined && addressOf(item).trim().toLowerCase() === recipient.trim().toLowerCase()) ?? list[0];

/** `recipient`: the address the message was for (the account's), to pick its entry among several. */
export function outcomeOf(event: SesEvent, recipient: string | undefined, now: () => Date = () => new Date()): EventOutcome {
  const eventType = event.eventType ?? event.notificationType ?? '';
  const at = (value: string | undefined) => value ?? now().toISOString();
  if (eventType === 'Delivery') return { kind: 'status', status: 'delivered', at: at(event.delivery?.timestamp) };
  if (eventType === 'Bounce' && event.bounce) {
    const bounced = firstOf(event.bounce.bouncedRecipients, recipient, (r) => r.emailAddress);
    const kind = [event.bounce.bounceType, event.bounce.bounceSubType].filter(Boolean).join(' / ');
    const detail = bounced?.diagnosticCode?.trim() || `${kind} bounce${bounced?.status ? ` (${bounced.status})` : ''}`;
    return {
      kind: 'status',
      status: 'bounced',
      error: detail,
      ...(event.bounce.bounceType === 'Permanent' ? { suppress: { reason: 'bounced' as const, detail } } : {}),
      at: at(event.bounce.timestamp),
    };
  }
  if (eventType === 'Complaint' && event.complaint) {
    const type = event.complaint.complaintFeedbackType;
    const detail = `The recipient marked the e-mail as spam${type ? ` (${type})` : ''}`;
    return { kind: 'status', status: 'complained', error: detail, suppress: { reason: 'complained', detail }, at: at(event.complaint.timestamp) };
  }
  return { kind: 'ignore', eventType: eventType || 'unknown' };
}
