import { queues } from '../../shared/queues';
import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { env, requireEnv } from '../core/env';
import { queueWorker } from '../core/queue-worker';
import { dynamoAccountPages } from '../exports/account-pages';
import { dynamoAccountDataSource } from '../exports/account-data/account-data-source';
import { s3Uploads } from '../exports/export-upload';
import { exportMessageSchema } from '../exports/export-message';
import { dynamoExportStore } from '../exports/export-store';
import { runExport } from '../exports/run-export';
import { exportFailed, exportReady } from '../notifications/events';
import { dynamoProjectStore } from '../projects/project-store';
import { browseAccounts } from '../accounts/browse-accounts';
import { directoryQuerySchema, DIRECTORY_PAGE_MAX } from '../../shared/schemas/account-directory';
import { securityEventPages } from '../security/security-event-list';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const maxAttempts = queues.find((q) => q.name === 'exports')?.maxReceiveCount ?? 1;
const browse = browseAccounts({ db, tableName, cipher: appCipher });
const run = runExport({
  exports: dynamoExportStore(db, tableName),
  projects: dynamoProjectStore(db, tableName),
  accountPages: dynamoAccountPages(db, tableName),
  accountData: dynamoAccountDataSource(db, tableName),
  // The Account Database's own pages, with passwords, one after another until the last.
  directoryPages: async function* (userId, selection) {
    let cursor: string | undefined;
    do {
      const page = await browse(userId, directoryQuerySchema.parse({ ...selection, limit: String(DIRECTORY_PAGE_MAX), showPasswords: 'true', ...(cursor ? { cursor } : {}) }));
      if (page.items.length) yield page.items;
      cursor = page.nextCursor;
    } while (cursor);
  },
  securityEvents: (userId) => securityEventPages({ db, tableName, now: () => new Date() }, userId),
  cipher: appCipher,
  // One presigned PUT of a temporary file, without the S3 client (functions/exports/export-upload.ts).
  files: s3Uploads(requireEnv('EXPORT_BUCKET'), undefined, { directory: env().EXPORT_TEMP_DIR }),
  now: () => new Date(),
  notifyReady: (input) => exportReady({ db, tableName }, input),
  notifyFailed: (input) => exportFailed({ db, tableName }, input),
});

export const handler = queueWorker(exportMessageSchema, (message, record) =>
  run(message, { number: Number(record.attributes?.ApproximateReceiveCount ?? 1), max: maxAttempts }),
);
