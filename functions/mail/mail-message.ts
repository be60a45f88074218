import { z } from 'zod';

/** Messages on the mail queue. */
export const mailMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), userId: z.string().min(1) }),
]);
export type MailMessage = z.infer<typeof mailMessageSchema>;
