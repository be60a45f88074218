/**
 * Export Center constants and shapes, free of zod so the export worker's bundle stays small.
 * The request schema is in shared/schemas/export.ts.
 */
/** csv for everyone; xlsx and json are Pro (spec 2, 3, 4, 6). */
export const exportFormats = ['csv', 'xlsx', 'json'] as const;
export type ExportFormat = (typeof exportFormats)[number];
export const proExportFormats: readonly ExportFormat[] = ['xlsx', 'json'];
/**
 * What the Export Center makes: a project's accounts in a format, everything of the user as one zip
 * (Settings > Data), the Account Database's accounts the filters select, or the user's security
 * events as CSV ('Export Logs' in the Security Center).
 */
export const exportKinds = ['project', 'account-data', 'directory', 'security-events'] as const;
export type ExportKind = (typeof exportKinds)[number];
/** A file's format: a project export's, or the zip of Export All Data. */
export type ExportFileFormat = ExportFormat | 'zip';
/** The name Export All Data shows in the history. */
export const ACCOUNT_DATA_EXPORT_NAME = 'All your data';
/** The name 'Export Logs' (every security event of the last year, as CSV) shows in the history. */
export const SECURITY_EVENTS_EXPORT_NAME = 'Security events';
/** The name an export of the Account Database (its 'Export All', what the filters select) shows in the history. */
export const DIRECTORY_EXPORT_NAME = 'Account Database';

/** Export files and their download links live this long (the bucket's lifecycle matches). */
export const EXPORT_FILE_DAYS = 7;
/** History entries stay this long, marked expired after the file is gone ('Export again'). */
export const EXPORT_HISTORY_DAYS = 30;
/** Presigned download links are minted per download (POST /api/exports/{id}/download) and last this long. */
export const DOWNLOAD_URL_SECONDS = 15 * 60;

export const PRO_FORMAT_MESSAGE = 'Advanced Export Formats (Excel and JSON) are part of the Pro plan.';

/** An export as POST /api/exports and GET /api/exports/history return it. */
export interface ExportView {
  id: string;
  kind: ExportKind;
  /** '' for an account-data export. */
  projectId: string;
  /** ACCOUNT_DATA_EXPORT_NAME for an account-data export. */
  projectName: string;
  format: ExportFileFormat;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /** Accounts written (completed only); events, for a security-events export. */
  rowCount?: number;
  /** File size in bytes (completed only). */
  sizeBytes?: number;
  /** Why it failed, in words a user can act on (failed only). */
  error?: string;
  /** When the file (and so the download) stops existing. */
  fileExpiresAt: string;
  /** The file is gone: offer 'Export again'. */
  expired: boolean;
}

/**
 * POST /api/exports/{id}/download: a presigned S3 GET URL to the file, valid DOWNLOAD_URL_SECONDS,
 * minted per download (each is recorded as a security event; the history carries no links).
 */
export interface ExportDownload {
  url: string;
  filename: string;
  expiresInSeconds: number;
}

/** The columns of every export format, in order (spec: First Name ... Password, plus these). */
export const EXPORT_COLUMNS = [
  { key: 'firstName', header: 'First Name' },
  { key: 'lastName', header: 'Last Name' },
  { key: 'email', header: 'Email' },
  { key: 'username', header: 'Username' },
  { key: 'password', header: 'Password' },
  { key: 'projectName', header: 'Project' },
  { key: 'accountType', header: 'Account Type' },
  { key: 'createdAt', header: 'Created' },
  { key: 'externalStatus', header: 'External Status' },
] as const;
export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number]['key'], string>;
/** A row with the account's extra columns (department, title...): written after the standard ones, in the export's attribute columns. */
export type ExportRecord = ExportRow & { attributes?: Record<string, string> };

/**
 * GET /api/projects/{id}/export builds the whole CSV in one 512 MB Lambda of 10 s and returns it
 * in one response (6 MB at most): a project above this many accounts is refused there (409) and
 * its CSV is made by the Export Center's worker (POST /api/exports). Measured in bench/exports.ts;
 * the reasoning is in docs/deploy.md, Project CSV downloads.
 */
export const SYNC_EXPORT_MAX_ACCOUNTS = 10_000;

/** The 409 of a project too large to download at once; `atLeast` when it was found while reading. */
export const exportCenterMessage = (accountCount: number, atLeast = false): string =>
  `This project has ${atLeast ? 'more than ' : ''}${accountCount.toLocaleString('en-US')} accounts: its CSV is prepared in the Export Center.`;
