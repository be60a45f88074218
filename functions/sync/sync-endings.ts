import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';

/**
 * How a sync preview's reading ends when it fails (functions/sync/sync-preview.ts), apart so the
 * bulk-uploads dead-letter worker bundles only this (UpdateItem).
 */
export interface SyncMessage {
  type: 'sync-preview' | 'sync-apply';
  userId: string;
  previewId: string;
}

export async function failPreview(deps: { db: DynamoDBDocumentClient; tableName: string; now: () => Date }, userId: string, previewId: string, reason: string): Promise<void> {
  await deps.db
    .send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.syncPreview(userId, previewId),
        UpdateExpression: 'SET #status = :failed, reason = :reason, updatedAt = :now REMOVE readingSince',
        ConditionExpression: '#status = :reading',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed', ':reason': reason, ':now': deps.now().toISOString(), ':reading': 'reading' },
      }),
    )
    .catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    });
}

/** The dead-letter worker: a preview whose reading failed every delivery fails with a reason. */
export const recordDeadPreview = (deps: { db: DynamoDBDocumentClient; tableName: string; now: () => Date }) => (userId: string, previewId: string) =>
  failPreview(deps, userId, previewId, 'The file could not be read. Please upload it again.');

