import { EXPORT_FILE_DAYS, EXPORT_HISTORY_DAYS, type ExportFormat, type ExportView } from '../../shared/exports';
import { keys } from '../core/keys';
import { safeFilename } from '../projects/export-project-csv';

export type ExportStatus = ExportView['status'];

/** An export as stored under its owner. `expiresAt` (epoch seconds) is the table's TTL. */
export interface ExportRecord {
  id: string;
  userId: string;
  projectId: string;
  projectName: string;
  format: ExportFormat;
  status: ExportStatus;
  createdAt: string;
  updatedAt: string;
  fileExpiresAt: string;
  expiresAt: number;
  completedAt?: string;
  rowCount?: number;
  sizeBytes?: number;
  error?: string;
  attempts?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A new export, waiting for the worker: the file lives EXPORT_FILE_DAYS, the entry EXPORT_HISTORY_DAYS. */
export function newExportRecord(input: { id: string; userId: string; projectId: string; projectName: string; format: ExportFormat; now: Date }): ExportRecord {
  const created = input.now.toISOString();
  return {
    id: input.id,
    userId: input.userId,
    projectId: input.projectId,
    projectName: input.projectName,
    format: input.format,
    status: 'pending',
    createdAt: created,
    updatedAt: created,
    fileExpiresAt: new Date(input.now.getTime() + EXPORT_FILE_DAYS * DAY_MS).toISOString(),
    expiresAt: Math.floor((input.now.getTime() + EXPORT_HISTORY_DAYS * DAY_MS) / 1000),
  };
}

export const exportItem = (record: ExportRecord) => ({ ...keys.export(record.userId, record.id), entityType: 'Export', ...record });

/** Where the file of an export lives in the export bucket. */
export const exportObjectKey = (userId: string, exportId: string, format: ExportFormat): string => `exports/${userId}/${exportId}.${format}`;

export const exportContentTypes: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  json: 'application/json; charset=utf-8',
};

/** The name the browser saves the file as: {projectName}_accounts.<ext>. */
export const exportFilename = (projectName: string, format: ExportFormat): string => `${safeFilename(projectName)}_accounts.${format}`;

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266). */
export const attachmentDisposition = (filename: string): string =>
  `attachment; filename="${filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`;

export const isExpired = (record: Pick<ExportRecord, 'fileExpiresAt'>, now: Date): boolean => now.getTime() > Date.parse(record.fileExpiresAt);

export function exportView(record: Record<string, unknown> | ExportRecord, now: Date, downloadUrl?: string): ExportView {
  const item = record as Record<string, unknown>;
  const view: ExportView = {
    id: String(item.id),
    projectId: String(item.projectId),
    projectName: String(item.projectName),
    format: item.format as ExportFormat,
    status: item.status as ExportStatus,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    fileExpiresAt: String(item.fileExpiresAt),
    expired: isExpired({ fileExpiresAt: String(item.fileExpiresAt) }, now),
  };
  if (typeof item.completedAt === 'string') view.completedAt = item.completedAt;
  if (typeof item.rowCount === 'number') view.rowCount = item.rowCount;
  if (typeof item.sizeBytes === 'number') view.sizeBytes = item.sizeBytes;
  if (typeof item.error === 'string') view.error = item.error;
  if (downloadUrl !== undefined) view.downloadUrl = downloadUrl;
  return view;
}
