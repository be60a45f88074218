import * as z from 'zod/mini';

const id = z.string().check(z.minLength(1));

/** What a job's message on the mail queue carries besides its ids: a chunk (one shard's rows between two rows) and how its deliveries went. */
const jobChunkFields = {
  chunk: z.optional(z.number()),
  shard: z.optional(z.number()),
  fromRow: z.optional(z.number()),
  toRow: z.optional(z.number()),
  requeues: z.optional(z.number()),
  /** Deliveries put back because SES took no e-mail for now (quota used, sending paused, the daily cap): not counted as requeues. */
  pauses: z.optional(z.number()),
  /** Set by the dead-letter worker: the chunk failed every delivery; its accounts not reached fail with the reason. */
  givenUp: z.optional(z.boolean()),
};

/**
 * A credentials send's step on the mail queue (functions/mail/credential-sends.ts): without a
 * chunk, plan the send (once its project's accounts exist) and queue its chunks; with one, e-mail
 * the accounts of one shard of the project between two rows.
 */
export const credentialsMessageSchema = z.object({ type: z.literal('credentials'), userId: id, sendId: id, ...jobChunkFields });
export type CredentialsMessage = z.infer<typeof credentialsMessageSchema>;
export type CredentialsChunkMessage = CredentialsMessage & { chunk: number; shard: number; fromRow: number; toRow: number };

/** An expiry reminder's job on the mail queue (functions/schedules/expiry-reminder-job.ts): without a chunk, its plan; with one, the accounts of one shard between two rows. */
export const reminderJobMessageSchema = z.object({ type: z.literal('expiry-reminder-job'), userId: id, jobId: id, ...jobChunkFields });
export type ReminderJobMessage = z.infer<typeof reminderJobMessageSchema>;
export type ReminderChunkMessage = ReminderJobMessage & { chunk: number; shard: number; fromRow: number; toRow: number };

/** Times a notification e-mail went back on the queue because SES took no e-mail for now (functions/mail/paced-mailer.ts). */
const pauses = z.optional(z.number());

/** Messages on the mail queue (zod/mini: workers stay small). */
export const mailMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), userId: id, pauses }),
  // The user's own notification e-mails (functions/mail/notification-mail.ts decides who gets them).
  z.object({
    type: z.literal('project-completion'),
    userId: id,
    projectId: id,
    projectName: z.string(),
    outcome: z.enum(['completed', 'failed']),
    created: z.number(),
    failed: z.number(),
    reason: z.optional(z.string()),
    pauses,
  }),
  z.object({ type: z.literal('security-alert'), userId: id, title: z.string(), detail: z.string(), at: z.string(), pauses }),
  /** A project's expiration date arrived: its accounts are being deactivated (here, and on `platform` when they are there). */
  z.object({ type: z.literal('project-expired'), userId: id, projectId: id, projectName: z.string(), expirationDate: z.string(), accounts: z.number(), platform: z.optional(z.string()), pauses }),
  /** `week`: the Monday (UTC, YYYY-MM-DD) the digest covers the seven days before. */
  z.object({ type: z.literal('weekly-digest'), userId: id, week: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)), pauses }),
  credentialsMessageSchema,
  /**
   * A project's expiry reminder is due (functions/schedules/expiry-reminders.ts): its job starts
   * (expiry-reminder-job.ts). `shard`, `afterRow`: a walk's cursor, on messages queued before reminders were jobs (ignored).
   */
  z.object({
    type: z.literal('expiry-reminder'),
    userId: id,
    projectId: id,
    expirationDate: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)),
    days: z.number(),
    shard: z.optional(z.number()),
    afterRow: z.optional(z.number()),
  }),
  reminderJobMessageSchema,
]);
export type MailMessage = z.infer<typeof mailMessageSchema>;
export type NotificationMailMessage = Extract<MailMessage, { type: 'project-completion' | 'project-expired' | 'security-alert' | 'weekly-digest' }>;

/** Sends credentials messages to the mail queue; `delaySeconds` (at most 900) for one that must wait. */
export interface CredentialsQueue {
  send(messages: readonly CredentialsMessage[], delaySeconds?: number): Promise<void>;
}
