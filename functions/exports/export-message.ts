import * as z from 'zod/mini';

/** One message on the exports queue: which export of which user to write. */
export const exportMessageSchema = z.object({
  userId: z.string().check(z.minLength(1)),
  exportId: z.string().check(z.minLength(1)),
});
export type ExportMessage = z.infer<typeof exportMessageSchema>;
