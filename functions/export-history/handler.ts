import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { downloadExport } from '../exports/download-export';
import { s3DownloadLinks } from '../exports/export-links';
import { dynamoExportStore } from '../exports/export-store';
import { listExports } from '../exports/list-exports';
import { requestOrigin } from '../security/security-events';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const exports = dynamoExportStore(db, tableName);
const now = () => new Date();
const list = listExports({ exports, now });
const download = downloadExport({ exports, files: s3DownloadLinks(requireEnv('EXPORT_BUCKET')), events: { db, tableName }, now });

export const handler = httpHandler({
  'GET /api/exports/history': route({ run: ({ userId }) => list(userId) }),
  'POST /api/exports/{id}/download': route({ run: ({ userId, pathParameters, event }) => download(userId, pathParameters.id ?? '', requestOrigin(event)) }),
});
