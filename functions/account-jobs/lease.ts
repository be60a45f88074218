import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import type { ChunkLease, JobChunk } from './chunk-runner';
import { idsOf } from './chunk-runner';
import type { AccountJobKind, JobDeps } from './kind';

/**
 * One delivery of a chunk works at a time: it takes the chunk's lease (a conditional put of
 * `PROVLEASE#<job>#<chunk>`, job ids being unique across kinds) for as long as its worker may run,
 * and gives it back at the end. A copy of the chunk that finds the lease held (a resume queued it
 * again while it ran, a start that ran twice) goes back on the queue instead of calling the
 * platform for the same people; a crashed holder's lease lapses.
 */

/** How long a delivery holds its chunk: the provisioning worker's timeout (150 s), after which a crashed one's lease lapses. */
export const LEASE_MS = 150_000;
/** How long a copy that found the lease held waits on the queue. */
export const LEASE_RETRY_SECONDS = 60;

/** A chunk of a job: who holds it. */
export interface LeasedChunk {
  userId: string;
  jobId: string;
  chunk: number;
}

export async function takeLease(deps: Pick<JobDeps, 'db' | 'tableName' | 'now'>, message: LeasedChunk, holder: string): Promise<boolean> {
  const now = deps.now().getTime();
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: { ...keys.provisioningLease(message.userId, message.jobId, message.chunk), entityType: 'ProvisioningLease', holder, until: now + LEASE_MS, expiresAt: Math.floor(now / 1000) + 86_400 },
        ConditionExpression: 'attribute_not_exists(PK) OR #until < :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function releaseLease(deps: Pick<JobDeps, 'db' | 'tableName'>, message: LeasedChunk, holder: string): Promise<void> {
  try {
    await deps.db.send(
      new DeleteCommand({ TableName: deps.tableName, Key: keys.provisioningLease(message.userId, message.jobId, message.chunk), ConditionExpression: 'holder = :me', ExpressionAttributeValues: { ':me': holder } }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** The chunk lease of a kind that keeps it in this item (provisioning runs, password resets). */
export const leaseItem = <Chunk extends JobChunk>(kind: AccountJobKind<unknown, Chunk>): ChunkLease<Chunk> => ({
  take: (deps, message, holder) => takeLease(deps, idsOf(kind as AccountJobKind<unknown, JobChunk>, message), holder),
  give: (deps, message, holder) => releaseLease(deps, idsOf(kind as AccountJobKind<unknown, JobChunk>, message), holder),
  retrySeconds: LEASE_RETRY_SECONDS,
});
