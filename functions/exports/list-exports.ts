import type { ExportView } from '../../shared/exports';
import { exportView } from './export-item';
import type { ExportStore } from './export-store';

/** The history shows the latest exports; older ones expire from the table (TTL). */
export const HISTORY_LIMIT = 50;

/**
 * GET /api/exports/history: the caller's exports, newest first. No download links: a file is
 * downloaded through POST /api/exports/{id}/download, which mints a short-lived link and records
 * the download as a security event (a link in every read of the list would be a download no one
 * sees).
 */
export const listExports =
  (deps: { exports: ExportStore; now: () => Date }) =>
  async (userId: string): Promise<ExportView[]> => {
    const now = deps.now();
    return (await deps.exports.list(userId, HISTORY_LIMIT)).map((item) => exportView(item, now));
  };
