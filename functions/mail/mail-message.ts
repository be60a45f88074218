import * as z from 'zod/mini';

/**
 * A credentials send's step on the mail queue (functions/mail/credential-sends.ts): without a
 * chunk, plan the send (once its project's accounts exist) and queue its chunks; with one, e-mail
 * the accounts of one shard of the project between two rows.
 */
export const credentialsMessageSchema = z.object({
  type: z.literal('credentials'),
  userId: z.string().check(z.minLength(1)),
  sendId: z.string().check(z.minLength(1)),
  chunk: z.optional(z.number()),
  shard: z.optional(z.number()),
  fromRow: z.optional(z.number()),
  toRow: z.optional(z.number()),
  requeues: z.optional(z.number()),
});
export type CredentialsMessage = z.infer<typeof credentialsMessageSchema>;
export type CredentialsChunkMessage = CredentialsMessage & { chunk: number; shard: number; fromRow: number; toRow: number };

/** Messages on the mail queue (zod/mini: workers stay small). */
export const mailMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), userId: z.string().check(z.minLength(1)) }),
  credentialsMessageSchema,
]);
export type MailMessage = z.infer<typeof mailMessageSchema>;

/** Sends credentials messages to the mail queue; `delaySeconds` (at most 900) for one that must wait. */
export interface CredentialsQueue {
  send(messages: readonly CredentialsMessage[], delaySeconds?: number): Promise<void>;
}
