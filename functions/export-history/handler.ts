import { dynamo, s3 } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { s3DownloadLinks } from '../exports/export-links';
import { dynamoExportStore } from '../exports/export-store';
import { listExports } from '../exports/list-exports';

const list = listExports({
  exports: dynamoExportStore(dynamo(), requireEnv('TABLE_NAME')),
  files: s3DownloadLinks(s3(), requireEnv('EXPORT_BUCKET')),
  now: () => new Date(),
});

export const handler = httpHandler({
  'GET /api/exports/history': route({ run: ({ userId }) => list(userId) }),
});
