import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BulkJob, PasswordSettings } from '../../shared/schemas/bulk';
import { keys } from '../core/keys';
import { projectItem, type ProjectRecord } from '../projects/project-item';
import type { CheckedRow } from './check-rows';
import type { UsernameSlot } from './usernames';
import type { BulkChunkMessage } from './bulk-chunk';

/** Rows per queue message: well under SQS's 256 KB, small enough to write in seconds. */
export const CHUNK_ROWS = 500;

export interface BulkJobStarter {
  start(job: {
    userId: string;
    project: ProjectRecord;
    rows: (CheckedRow & UsernameSlot)[];
    /** The user's accounts before this job: 0 means no username can clash with an older one. */
    existingAccounts: number;
    passwordSettings: PasswordSettings;
    lockOwner: string;
    now: Date;
  }): Promise<BulkJob>;
}

/** Writes the job and its project, then puts the rows on the bulk queue in chunks. */
export function sqsBulkJobStarter(db: DynamoDBDocumentClient, tableName: string, sqs: SQSClient, queueUrl: string): BulkJobStarter {
  return {
    async start({ userId, project, rows, existingAccounts, passwordSettings, lockOwner, now }) {
      const createdAt = now.toISOString();
      const chunks = Math.ceil(rows.length / CHUNK_ROWS);
      const job: BulkJob = {
        id: project.id,
        projectId: project.id,
        status: 'queued',
        total: rows.length,
        done: 0,
        failedCount: 0,
        createdAt,
        updatedAt: createdAt,
      };
      await db.send(new PutCommand({ TableName: tableName, Item: projectItem(project) }));
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.bulkJob(userId, job.id), entityType: 'BulkJob', ...job, chunks, lockOwner, startedAt: now.getTime(), projectName: project.name },
        }),
      );
      const messages: BulkChunkMessage[] = [];
      for (let c = 0; c < chunks; c++) {
        messages.push({
          userId,
          jobId: job.id,
          projectId: project.id,
          projectName: project.name,
          accountType: project.accountType,
          createdAt,
          passwordSettings,
          existingAccounts,
          chunk: c,
          rows: rows.slice(c * CHUNK_ROWS, (c + 1) * CHUNK_ROWS).map(({ row, firstName, lastName, email, base, k }) => ({ row, firstName, lastName, email, base, k })),
        });
      }
      const batches: BulkChunkMessage[][] = [];
      for (let i = 0; i < messages.length; i += 10) batches.push(messages.slice(i, i + 10));
      await Promise.all(
        batches.map(async (batch) => {
          const { Failed } = await sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: batch.map((m) => ({ Id: String(m.chunk), MessageBody: JSON.stringify(m) })),
            }),
          );
          if (Failed?.length) throw new Error(`Could not queue ${Failed.length} chunks of job ${job.id}`);
        }),
      );
      return job;
    },
  };
}
