import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { RenderedEmail } from '../../shared/email/render-email';
import type { SendPauseReason } from '../../shared/schemas/mail-send';

/**
 * What SES said to one credential e-mail:
 * - sent: accepted, with its MessageId (SES events name only that id);
 * - throttled: over the account's sending rate (429): wait and send again;
 * - retryable: SES failed on its side (5xx) or could not be reached: it did not take the message;
 * - paused: the installation's SES account may not send for now (the daily quota is used, sending is
 *   paused or the account suspended): nothing is wrong with this e-mail, it waits (never fails);
 * - refused: a permanent refusal of this e-mail (rejected message, unverified recipient ...), in SES's words;
 * - unknown: the call died after it left (a timeout): SES may or may not have sent it.
 */
export type SendOutcome =
  | { kind: 'sent'; messageId: string }
  | { kind: 'throttled'; message: string }
  | { kind: 'retryable'; message: string }
  | { kind: 'paused'; reason: SendPauseReason; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'unknown'; message: string };

/** Why SES takes no e-mail for now: its rolling 24-hour quota is used; sending is paused (by AWS for a bounce or complaint rate, or by the operator); the account is suspended. */
export type { SendPauseReason };

export interface CredentialMailer {
  /** `tags`: the e-mail's SES message tags (published with each of its events). */
  send(email: RenderedEmail & { to: string }, tags: Record<string, string>): Promise<SendOutcome>;
}

/** What SES allows in a message tag's value (SESv2 MessageTag). */
const TAG_VALUE = /^[A-Za-z0-9_-]{1,256}$/;

const THROTTLED = new Set(['TooManyRequestsException', 'ThrottlingException', 'Throttling']);
/** Errors of a connection that never reached SES (nothing was sent). */
const NOT_REACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** SESv2's (and SES v1's) names for a paused account or configuration set. */
const PAUSED = new Set(['SendingPausedException', 'AccountSendingPausedException', 'ConfigurationSetSendingPausedException']);

export function classifySendError(error: unknown): Exclude<SendOutcome, { kind: 'sent' }> {
  const e = error as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const message = (e?.message || e?.name || 'SES did not answer').slice(0, 500);
  const status = e?.$metadata?.httpStatusCode;
  // The daily quota comes back as a throttling error ("Daily message quota exceeded") but a retry
  // within seconds cannot pass: it is a pause until the 24-hour window frees room.
  if (/daily message quota exceeded/i.test(message)) return { kind: 'paused', reason: 'quota', message };
  if (PAUSED.has(e?.name ?? '')) return { kind: 'paused', reason: 'paused', message };
  if (e?.name === 'AccountSuspendedException') return { kind: 'paused', reason: 'suspended', message };
  // SES's "Maximum sending rate exceeded" is a LimitExceededException with 429 or a throttling name.
  if (THROTTLED.has(e?.name ?? '') || status === 429 || /maximum sending rate exceeded/i.test(message)) return { kind: 'throttled', message };
  if (status !== undefined && status >= 500) return { kind: 'retryable', message };
  if (status !== undefined) return { kind: 'refused', message };
  if (NOT_REACHED.has(e?.code ?? '') || NOT_REACHED.has(e?.name ?? '')) return { kind: 'retryable', message };
  return { kind: 'unknown', message };
}

/** SESv2 SendEmail under the configuration set (its event destination reports deliveries, bounces, complaints). */
export function sesCredentialMailer(client: SESv2Client, from: string, configurationSet?: string): CredentialMailer {
  return {
    async send(email, tags) {
      try {
        const { MessageId } = await client.send(
          new SendEmailCommand({
            FromEmailAddress: from,
            Destination: { ToAddresses: [email.to] },
            ConfigurationSetName: configurationSet,
            // SES takes only [A-Za-z0-9_-], at most 256 characters: a value that is not such is left out, never altered (the events worker reads the tags as keys).
            EmailTags: Object.entries(tags)
              .filter(([, Value]) => TAG_VALUE.test(Value))
              .map(([Name, Value]) => ({ Name, Value })),
            Content: {
              Simple: {
                Subject: { Data: email.subject, Charset: 'UTF-8' },
                Body: { Html: { Data: email.html, Charset: 'UTF-8' }, Text: { Data: email.text, Charset: 'UTF-8' } },
              },
            },
          }),
        );
        if (!MessageId) return { kind: 'unknown', message: 'SES answered without a message id' };
        return { kind: 'sent', messageId: MessageId };
      } catch (error) {
        return classifySendError(error);
      }
    },
  };
}
