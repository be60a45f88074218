import * as z from 'zod/mini';

/** One message on the account-deletion queue: whose account to erase. */
export const deletionMessageSchema = z.object({
  userId: z.string().check(z.minLength(1)),
});
export type DeletionMessage = z.infer<typeof deletionMessageSchema>;
