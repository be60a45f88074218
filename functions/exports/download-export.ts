import { DOWNLOAD_URL_SECONDS, type ExportDownload, type ExportFileFormat } from '../../shared/exports';
import { ConflictError, NotFoundError } from '../core/errors';
import { isId } from '../core/ids';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from '../security/security-events';
import { attachmentDisposition, exportFilename, exportObjectKey, isExpired, kindOf } from './export-item';
import type { ExportFiles } from './export-files';
import type { ExportStore } from './export-store';
import { plural } from '../../shared/text/plural';

export const EXPORT_NOT_READY_MESSAGE = 'This export is not ready yet. It can be downloaded once it is completed.';
export const EXPORT_EXPIRED_MESSAGE = 'This export has expired and its file is deleted. Export again for a new file.';

/**
 * POST /api/exports/{id}/download: a fresh presigned link to a finished export's file, valid
 * DOWNLOAD_URL_SECONDS, and the download recorded as a security event (the file holds
 * passwords). The history lists exports without links, so every download of a file goes
 * through here and leaves its trace.
 */
export const downloadExport =
  (deps: { exports: Pick<ExportStore, 'get'>; files: Pick<ExportFiles, 'downloadUrl'>; events: SecurityEventDeps; now: () => Date }) =>
  async (userId: string, exportId: string, origin: RequestOrigin): Promise<ExportDownload> => {
    const item = isId(exportId) ? await deps.exports.get(userId, exportId) : undefined;
    if (!item) throw new NotFoundError('Export not found');
    if (item.status !== 'completed') throw new ConflictError(EXPORT_NOT_READY_MESSAGE);
    const now = deps.now();
    // 409, not 410: the app takes a 410 for an account being deleted and signs out.
    if (isExpired({ fileExpiresAt: String(item.fileExpiresAt) }, now)) throw new ConflictError(EXPORT_EXPIRED_MESSAGE);
    const format = item.format as ExportFileFormat;
    const kind = kindOf(item);
    const formatLabels: Record<ExportFileFormat, string> = { csv: 'CSV', xlsx: 'Excel', json: 'JSON', zip: 'ZIP' };
    const filename = exportFilename(String(item.projectName), format, kind, String(item.createdAt));
    const url = await deps.files.downloadUrl(exportObjectKey(userId, exportId, format), attachmentDisposition(filename), DOWNLOAD_URL_SECONDS);
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'export_downloaded',
      description:
        kind === 'account-data'
          ? 'Export of all your data (ZIP) downloaded'
          : `Export of the project "${String(item.projectName)}" (${formatLabels[format] ?? format}${typeof item.rowCount === 'number' ? `, ${plural(item.rowCount, 'account')}` : ''}) downloaded`,
      severity: 'medium',
      at: now,
      ...origin,
    });
    return { url, filename, expiresInSeconds: DOWNLOAD_URL_SECONDS };
  };
