import { ACCOUNT_DATA_EXPORT_NAME, DIRECTORY_EXPORT_NAME, SECURITY_EVENTS_EXPORT_NAME, EXPORT_FILE_DAYS, EXPORT_HISTORY_DAYS, type ExportFileFormat, type ExportFormat, type ExportKind, type ExportView } from '../../shared/exports';
import { keys } from '../core/keys';
import { safeFilename } from '../projects/export-project-csv';

export type ExportStatus = ExportView['status'];

/** An export as stored under its owner. `expiresAt` (epoch seconds) is the table's TTL. */
export interface ExportRecord {
  id: string;
  /** Absent on exports stored before account-data exports existed: 'project'. */
  kind?: ExportKind;
  userId: string;
  projectId: string;
  projectName: string;
  format: ExportFileFormat;
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
  /** A directory export: the Account Database's filters, term and sort it was started with. */
  selection?: Record<string, string>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A new export, waiting for the worker: the file lives EXPORT_FILE_DAYS, the entry EXPORT_HISTORY_DAYS. */
export function newExportRecord(input: { id: string; userId: string; projectId: string; projectName: string; format: ExportFormat; now: Date }): ExportRecord {
  return newRecord({ ...input, kind: 'project' });
}

/** Export All Data (Settings > Data): everything of the user in one zip, through the same queue, worker and history. */
export function newAccountDataExportRecord(input: { id: string; userId: string; now: Date }): ExportRecord {
  return newRecord({ ...input, kind: 'account-data', projectId: '', projectName: ACCOUNT_DATA_EXPORT_NAME, format: 'zip' });
}

/** 'Export All' in the Account Database: the accounts its filters select, in a format, through the same queue, worker and history. */
export function newDirectoryExportRecord(input: { id: string; userId: string; format: ExportFormat; selection: Record<string, string>; now: Date }): ExportRecord {
  return { ...newRecord({ ...input, kind: 'directory', projectId: '', projectName: DIRECTORY_EXPORT_NAME }), selection: input.selection };
}

/** 'Export Logs' (Security Center): every security event of the user as CSV, through the same queue, worker and history. */
export function newSecurityEventsExportRecord(input: { id: string; userId: string; now: Date }): ExportRecord {
  return newRecord({ ...input, kind: 'security-events', projectId: '', projectName: SECURITY_EVENTS_EXPORT_NAME, format: 'csv' });
}

function newRecord(input: { id: string; kind: ExportKind; userId: string; projectId: string; projectName: string; format: ExportFileFormat; now: Date }): ExportRecord {
  const created = input.now.toISOString();
  return {
    id: input.id,
    kind: input.kind,
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
export const exportObjectKey = (userId: string, exportId: string, format: ExportFileFormat): string => `exports/${userId}/${exportId}.${format}`;

export const exportContentTypes: Record<ExportFileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  json: 'application/json; charset=utf-8',
  zip: 'application/zip',
};

export const kindOf = (item: Record<string, unknown> | ExportRecord): ExportKind => {
  const kind = (item as { kind?: unknown }).kind;
  return kind === 'account-data' || kind === 'directory' || kind === 'security-events' ? kind : 'project';
};

/**
 * The name the browser saves the file as: {projectName}_accounts.<ext>, bulkonboard-data_<date>.zip
 * for all data, security-events-<date>.csv for the security events.
 */
export const exportFilename = (projectName: string, format: ExportFileFormat, kind: ExportKind = 'project', createdAt = ''): string =>
  kind === 'account-data'
    ? `bulkonboard-data_${createdAt.slice(0, 10) || 'export'}.zip`
    : kind === 'security-events'
      ? `security-events-${createdAt.slice(0, 10) || 'export'}.csv`
      : `${safeFilename(projectName)}_accounts.${format}`;

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266). */
export const attachmentDisposition = (filename: string): string =>
  `attachment; filename="${filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`;

export const isExpired = (record: Pick<ExportRecord, 'fileExpiresAt'>, now: Date): boolean => now.getTime() > Date.parse(record.fileExpiresAt);

export function exportView(record: Record<string, unknown> | ExportRecord, now: Date): ExportView {
  const item = record as Record<string, unknown>;
  const view: ExportView = {
    id: String(item.id),
    kind: kindOf(item),
    projectId: String(item.projectId),
    projectName: String(item.projectName),
    format: item.format as ExportFileFormat,
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
  return view;
}
