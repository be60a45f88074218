import { DOWNLOAD_URL_SECONDS, type ExportFileFormat, type ExportView } from '../../shared/exports';
import { attachmentDisposition, exportFilename, exportObjectKey, exportView, isExpired, kindOf } from './export-item';
import type { ExportFiles } from './export-files';
import type { ExportStore } from './export-store';

/** The history shows the latest exports; older ones expire from the table (TTL). */
export const HISTORY_LIMIT = 50;

/**
 * GET /api/exports/history: the caller's exports, newest first. A completed export whose file
 * still exists gets a fresh presigned link on every read (links are short-lived).
 */
export const listExports =
  (deps: { exports: ExportStore; files: Pick<ExportFiles, 'downloadUrl'>; now: () => Date }) =>
  async (userId: string): Promise<ExportView[]> => {
    const now = deps.now();
    const items = await deps.exports.list(userId, HISTORY_LIMIT);
    return Promise.all(
      items.map(async (item) => {
        const format = item.format as ExportFileFormat;
        const downloadable = item.status === 'completed' && !isExpired({ fileExpiresAt: String(item.fileExpiresAt) }, now);
        const url = downloadable
          ? await deps.files.downloadUrl(
              exportObjectKey(userId, String(item.id), format),
              attachmentDisposition(exportFilename(String(item.projectName), format, kindOf(item), String(item.createdAt))),
              DOWNLOAD_URL_SECONDS,
            )
          : undefined;
        return exportView(item, now, url);
      }),
    );
  };
