import * as z from 'zod/mini';

/**
 * Messages on the provisioning queue:
 * - start: plan a run's chunks (once its project's accounts exist) and queue them;
 * - chunk: provision the accounts of one shard of the project between two rows;
 * - resume: an integration passed its test: paused runs on it go on;
 * - reset-start / reset-chunk: a Reset Passwords job (functions/security/reset-passwords.ts), planned
 *   and chunked like a run: new passwords for a shard's accounts between two rows.
 * - delete-start / delete-chunk: a project's deletion (functions/projects/project-deletion.ts): a
 *   shard's accounts removed from their platform and erased; its last chunk (shard -1) the project.
 * - attribute-recount: a step of the recount of a project's Attribute filter counters
 *   (functions/accounts/attribute-recount.ts): table work only, one step at a time per project.
 */
export const provisioningMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), userId: z.string(), jobId: z.string() }),
  z.object({ type: z.literal('chunk'), userId: z.string(), jobId: z.string(), chunk: z.number(), shard: z.number(), fromRow: z.number(), toRow: z.number(), requeues: z.optional(z.number()) }),
  z.object({ type: z.literal('resume'), userId: z.string(), integrationId: z.string() }),
  z.object({ type: z.literal('reset-start'), userId: z.string(), jobId: z.string() }),
  z.object({ type: z.literal('reset-chunk'), userId: z.string(), jobId: z.string(), chunk: z.number(), shard: z.number(), fromRow: z.number(), toRow: z.number(), requeues: z.optional(z.number()) }),
  z.object({ type: z.literal('delete-start'), userId: z.string(), jobId: z.string() }),
  z.object({ type: z.literal('delete-chunk'), userId: z.string(), jobId: z.string(), chunk: z.number(), shard: z.number(), fromRow: z.number(), toRow: z.number(), requeues: z.optional(z.number()) }),
  z.object({ type: z.literal('action-start'), userId: z.string(), jobId: z.string() }),
  z.object({ type: z.literal('action-chunk'), userId: z.string(), jobId: z.string(), chunk: z.number(), shard: z.number(), fromRow: z.number(), toRow: z.number(), requeues: z.optional(z.number()) }),
  z.object({ type: z.literal('attribute-recount'), userId: z.string(), projectId: z.string(), recountId: z.string() }),
]);
export type ProvisioningMessage = z.infer<typeof provisioningMessageSchema>;
export type ChunkMessage = Extract<ProvisioningMessage, { type: 'chunk' }>;
export type ResetChunkMessage = Extract<ProvisioningMessage, { type: 'reset-chunk' }>;
export type DeleteChunkMessage = Extract<ProvisioningMessage, { type: 'delete-chunk' }>;
export type ActionChunkMessage = Extract<ProvisioningMessage, { type: 'action-chunk' }>;
export type AttributeRecountMessage = Extract<ProvisioningMessage, { type: 'attribute-recount' }>;

/** Sends messages to the provisioning queue; `delaySeconds` (at most 900) for a message that must wait. */
export interface ProvisioningQueue {
  send(messages: readonly ProvisioningMessage[], delaySeconds?: number): Promise<void>;
}
