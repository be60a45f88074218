import * as z from 'zod/mini';

/** The start message on the bulk-uploads queue (functions/bulk/bulk-uploads.ts): which upload to read. */
export const uploadMessageSchema = z.object({ userId: z.string(), uploadId: z.string() });

/** A sync's messages on the same queue (functions/sync): read a preview's file, or take its apply a step further. */
export const syncMessageSchema = z.object({ type: z.enum(['sync-preview', 'sync-apply']), userId: z.string(), previewId: z.string() });

/** What the bulk-uploads queue carries. */
export const uploadQueueMessageSchema = z.union([syncMessageSchema, uploadMessageSchema]);
