import * as z from 'zod/mini';
import { accountTypes } from '../../shared/schemas/bulk';

/** One message on the bulk queue: a chunk of a job's rows with their usernames already given. */
export const bulkChunkMessageSchema = z.object({
  userId: z.string(),
  jobId: z.string(),
  projectId: z.string(),
  projectName: z.string(),
  accountType: z.enum(accountTypes),
  createdAt: z.string(),
  passwordSettings: z.object({
    minLength: z.number(),
    includeUppercase: z.boolean(),
    includeLowercase: z.boolean(),
    includeNumbers: z.boolean(),
    includeSpecialChars: z.boolean(),
    avoidAmbiguous: z.boolean(),
  }),
  /** The user's accounts before the job (0: no username lookups needed). */
  existingAccounts: z.number(),
  /** The user's timezone when the job started: its rows are counted in the user's months (none: read from the settings). */
  timeZone: z.optional(z.string()),
  chunk: z.number(),
  /**
   * Chunks of the job on the queue at once (bulk-jobs.ts CHUNK_WINDOW): once recorded, this chunk
   * releases chunk `chunk + window`, which waits in DynamoDB until then. Messages queued before
   * windows existed have none: every chunk of their job was queued at the start.
   */
  window: z.optional(z.number()),
  /** The project's account shards (messages queued before sharding have none: 1). */
  shards: z.optional(z.number()),
  /** Rows with their username slot: base and occurrence index within the file. */
  rows: z.array(
    z.object({
      row: z.number(),
      firstName: z.string(),
      lastName: z.string(),
      email: z.string(),
      base: z.string(),
      k: z.number(),
      /** The person's extra columns, checked already (messages queued before them have none). */
      attributes: z.optional(z.record(z.string(), z.string())),
    }),
  ),
});
export type BulkChunkMessage = z.infer<typeof bulkChunkMessageSchema>;
