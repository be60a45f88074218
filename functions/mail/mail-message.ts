import * as z from 'zod/mini';

/** Messages on the mail queue (zod/mini: workers stay small). */
export const mailMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), userId: z.string().check(z.minLength(1)) }),
]);
export type MailMessage = z.infer<typeof mailMessageSchema>;
