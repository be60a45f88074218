import * as z from 'zod/mini';

const id = z.string().check(z.minLength(1));

/** Messages on the mail queue (zod/mini: workers stay small). */
export const mailMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), userId: id }),
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
  }),
  z.object({ type: z.literal('security-alert'), userId: id, title: z.string(), detail: z.string(), at: z.string() }),
  /** `week`: the Monday (UTC, YYYY-MM-DD) the digest covers the seven days before. */
  z.object({ type: z.literal('weekly-digest'), userId: id, week: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)) }),
]);
export type MailMessage = z.infer<typeof mailMessageSchema>;
export type NotificationMailMessage = Extract<MailMessage, { type: 'project-completion' | 'security-alert' | 'weekly-digest' }>;
