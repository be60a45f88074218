import * as z from 'zod/mini';

/** One message on the account-deletion queue: whose account to erase. */
export const deletionMessageSchema = z.object({
  userId: z.string().check(z.minLength(1)),
  /** How often the dead-letter worker has put this deletion back on the queue (none: never). */
  redrives: z.optional(z.number().check(z.int(), z.nonnegative())),
});
export type DeletionMessage = z.infer<typeof deletionMessageSchema>;
