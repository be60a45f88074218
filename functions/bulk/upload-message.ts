import * as z from 'zod/mini';

/** The start message on the bulk-uploads queue (functions/bulk/bulk-uploads.ts): which upload to read. */
export const uploadMessageSchema = z.object({ userId: z.string(), uploadId: z.string() });
