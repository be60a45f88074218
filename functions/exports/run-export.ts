import { accountPassword } from '../accounts/account-item';
import { Transform } from 'node:stream';
import type { ExportFormat, ExportRecord } from '../../shared/exports';
import type { Cipher } from '../core/encryption';
import { NotFoundError } from '../core/errors';
import type { ProjectStore } from '../projects/project-store';
import type { AccountPages } from './account-pages';
import { attachmentDisposition, exportContentTypes, exportFilename, exportObjectKey, kindOf } from './export-item';
import type { AccountDataSource } from './account-data/account-data-source';
import { writeAccountDataZip } from './account-data/write-account-data';
import type { ExportFiles } from './export-files';
import type { ExportMessage } from './export-message';
import type { ExportStore } from './export-store';
import { exportWriters, writeCsvTable, type ExportWriter, type RowPages } from './export-writers';
import { SECURITY_EVENTS_CSV_HEADER, securityEventCells } from '../security/security-event-list';
import type { SecurityEvent } from '../../shared/schemas/security';
import type { ExportSubject } from '../notifications/events';
import type { AccountView } from '../../shared/schemas/project';
import { attributesOf } from '../accounts/account-item';
import { projectAttributeKeys } from '../projects/project-item';
import { orderedAttributeKeys } from '../../shared/schemas/attributes';

export const EXPORT_FAILED = 'The export could not be written. Please try again.';

/** A failure that another attempt cannot fix: the export is marked failed at once, not retried. */
export class PermanentExportError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PermanentExportError';
  }
}
class StorageError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'StorageError';
  }
}

export interface RunExportDeps {
  exports: ExportStore;
  /** What Export All Data reads (account-data exports). */
  accountData: AccountDataSource;
  /** `list`: the user's projects, whose attribute keys are a directory export's extra columns (none: no extra columns). */
  projects: Pick<ProjectStore, 'get'> & Partial<Pick<ProjectStore, 'list'>>;
  accountPages: AccountPages;
  cipher: () => Promise<Cipher>;
  files: Pick<ExportFiles, 'upload' | 'remove'>;
  now: () => Date;
  writers?: Record<ExportFormat, ExportWriter>;
  /** A directory export's accounts ('Export All' in the Account Database), page after page, passwords shown: the stored selection read again. */
  directoryPages?: (userId: string, selection: Record<string, string>) => AsyncIterable<AccountView[]>;
  /** 'Export Logs': the user's security events, newest first, a page at a time (functions/security/security-event-list.ts). */
  securityEvents?: (userId: string) => AsyncIterable<SecurityEvent[]>;
  /** Tells the user the file is ready (the bell), a project's export or Export All Data alike; never fails the export. */
  notifyReady?: (input: { userId: string; exportId: string; subject: ExportSubject; format: string; rowCount: number; at: Date }) => Promise<void>;
  /** Tells the user the export failed for good (the bell); never fails anything itself. */
  notifyFailed?: (input: { userId: string; exportId: string; subject: ExportSubject; reason: string; at: Date }) => Promise<void>;
}

/** Which delivery of the message this is (SQS ApproximateReceiveCount) and how many there will be. */
export interface Attempt {
  number: number;
  max: number;
}

/**
 * Export worker, one export:
 * 1. pending (or processing: a redelivery restarts it from the start) -> processing; a completed
 *    or failed export is left alone.
 * 2. Stream the project's accounts, a Query page at a time, passwords decrypted, through the
 *    format's writer into the upload (a temporary file, then one PUT: export-upload.ts) at
 *    exports/<userId>/<exportId>.<ext>.
 * 3. completed with row count and size; or failed with a reason the user can read. A failure
 *    aborts the upload, so nothing half-written appears at the key. Errors that another attempt
 *    may fix are thrown (SQS delivers again) until the last attempt.
 */
export const runExport =
  (deps: RunExportDeps) =>
  async (message: ExportMessage, attempt: Attempt = { number: 1, max: 1 }): Promise<void> => {
    const { userId, exportId } = message;
    const item = await deps.exports.start(userId, exportId, deps.now());
    if (!item) return;
    const kind = kindOf(item);
    if (kind === 'account-data') return runAccountDataExport(deps, message, String(item.createdAt), attempt);
    if (kind === 'directory') return runDirectoryExport(deps, message, item, attempt);
    if (kind === 'security-events') return runSecurityEventsExport(deps, message, String(item.createdAt), attempt);
    const format = item.format as ExportFormat;
    const projectName = String(item.projectName);
    await settle(deps, message, attempt, { kind: 'project', projectName }, format, async () => {
      const project = await deps.projects.get(userId, String(item.projectId)).catch((error: unknown) => {
        throw error instanceof NotFoundError ? new PermanentExportError('The project no longer exists.') : error;
      });
      const cipher = await deps.cipher();
      const key = exportObjectKey(userId, exportId, format);
      const written = await writeAndUpload({
        files: deps.files,
        writer: (deps.writers ?? exportWriters)[format],
        pages: exportRows(deps.accountPages(userId, String(item.projectId)), cipher, projectName),
        // The project's extra columns, known before its first account (docs/accounts.md).
        attributeKeys: projectAttributeKeys(project),
        key,
        contentType: exportContentTypes[format],
        contentDisposition: attachmentDisposition(exportFilename(projectName, format)),
      });
      return { key, ...written };
    });
  };

/**
 * Writes the export's file with `write`, then marks it completed and tells the user (the bell); or
 * records why it failed: at once when another attempt cannot help, else on the last attempt (an
 * earlier one throws, and SQS delivers the message again).
 */
async function settle(
  deps: RunExportDeps,
  { userId, exportId }: ExportMessage,
  attempt: Attempt,
  subject: ExportSubject,
  format: string,
  write: () => Promise<{ key: string; rowCount: number; sizeBytes: number }>,
): Promise<void> {
  try {
    const { key, rowCount, sizeBytes } = await write();
    const at = deps.now();
    if (!(await completeOrRemove(deps, userId, exportId, key, { rowCount, sizeBytes, now: at }))) return;
    await deps.notifyReady?.({ userId, exportId, subject, format, rowCount, at });
  } catch (error) {
    const permanent = error instanceof PermanentExportError;
    if (!permanent && attempt.number < attempt.max) throw error;
    await failAndNotify(deps, userId, exportId, subject, `${EXPORT_FAILED} ${reasonOf(error)}`);
  }
}

/**
 * 'Export All' in the Account Database: the accounts its stored selection picks now (filters,
 * term, sort), in the same writers, with the same formula neutralising, at the same key.
 */
async function runDirectoryExport(deps: RunExportDeps, message: ExportMessage, item: Record<string, unknown>, attempt: Attempt): Promise<void> {
  const { userId, exportId } = message;
  const format = item.format as ExportFormat;
  const projectName = String(item.projectName);
  await settle(deps, message, attempt, { kind: 'project', projectName }, format, async () => {
    if (!deps.directoryPages) throw new PermanentExportError('This export cannot be made here.');
    const selection = (item.selection ?? {}) as Record<string, string>;
    const key = exportObjectKey(userId, exportId, format);
    const written = await writeAndUpload({
      files: deps.files,
      writer: (deps.writers ?? exportWriters)[format],
      pages: directoryRows(deps.directoryPages(userId, selection)),
      attributeKeys: await directoryAttributeKeys(deps, userId, selection),
      key,
      contentType: exportContentTypes[format],
      contentDisposition: attachmentDisposition(exportFilename(projectName, format)),
    });
    return { key, ...written };
  });
}

/**
 * 'Export Logs' (Security Center): every security event of the user, newest first, a Query page at
 * a time through the CSV writer into the same streamed upload (a year of events never sits in
 * memory, nor in one answer); rowCount is the number of events.
 */
async function runSecurityEventsExport(deps: RunExportDeps, message: ExportMessage, createdAt: string, attempt: Attempt): Promise<void> {
  const { userId, exportId } = message;
  await settle(deps, message, attempt, { kind: 'security-events' }, 'csv', async () => {
    const events = deps.securityEvents;
    if (!events) throw new PermanentExportError('This export cannot be made here.');
    const key = exportObjectKey(userId, exportId, 'csv');
    const written = await writeAndUpload({
      files: deps.files,
      writer: (_pages, out) => writeCsvTable(SECURITY_EVENTS_CSV_HEADER, mapPages(events(userId), (page) => page.map(securityEventCells)), out),
      pages: noPages(),
      key,
      contentType: exportContentTypes.csv,
      contentDisposition: attachmentDisposition(exportFilename('', 'csv', 'security-events', createdAt)),
    });
    return { key, ...written };
  });
}

async function* mapPages<T, U>(pages: AsyncIterable<T>, map: (page: T) => U): AsyncIterable<U> {
  for await (const page of pages) yield map(page);
}

const noPages = (): RowPages => (async function* () {})();

/**
 * A directory export's extra columns: those of the project it is filtered to, else those of all
 * the user's projects (one Query of the project items, as many as the plan allows).
 */
async function directoryAttributeKeys(deps: RunExportDeps, userId: string, selection: Record<string, string>): Promise<string[]> {
  if (selection.projectId) {
    const project = await deps.projects.get(userId, selection.projectId).catch(() => undefined);
    return project ? projectAttributeKeys(project) : [];
  }
  if (!deps.projects.list) return [];
  return orderedAttributeKeys((await deps.projects.list(userId)).flatMap(projectAttributeKeys));
}

/** The Account Database's accounts (as lists show them, passwords read) become export rows. */
async function* directoryRows(pages: AsyncIterable<AccountView[]>): RowPages {
  for await (const views of pages) {
    yield views.map((view): ExportRecord => {
      if (view.password === undefined) throw new PermanentExportError('A stored password could not be read.');
      return {
        firstName: view.firstName,
        lastName: view.lastName,
        email: view.email,
        username: view.username,
        password: view.password,
        projectName: view.projectName,
        accountType: view.accountType,
        createdAt: view.createdAt,
        externalStatus: view.externalStatus,
        ...(view.attributes ? { attributes: view.attributes } : {}),
      };
    });
  }
}

/** The export failed for good: recorded, and told in the bell when this call is the one that ended it. */
async function failAndNotify(deps: Pick<RunExportDeps, 'exports' | 'now' | 'notifyFailed'>, userId: string, exportId: string, subject: ExportSubject, reason: string): Promise<void> {
  const at = deps.now();
  if (await deps.exports.fail(userId, exportId, reason, at)) await deps.notifyFailed?.({ userId, exportId, subject, reason, at });
}

/**
 * Export All Data: the zip of writeAccountDataZip through the same streamed upload, at
 * exports/<userId>/<exportId>.zip; rowCount is the number of accounts in it.
 */
async function runAccountDataExport(deps: RunExportDeps, message: ExportMessage, createdAt: string, attempt: Attempt): Promise<void> {
  const { userId, exportId } = message;
  // The same notification as a project's export: the file is in the Export Center's history.
  await settle(deps, message, attempt, { kind: 'account-data' }, 'zip', async () => {
    const cipher = await deps.cipher();
    const key = exportObjectKey(userId, exportId, 'zip');
    const written = await writeAndUpload({
      files: deps.files,
      writer: (_pages, out) => writeAccountDataZip({ source: deps.accountData, cipher, rows: exportRows, userId, now: deps.now() }, out),
      pages: noPages(),
      key,
      contentType: exportContentTypes.zip,
      contentDisposition: attachmentDisposition(exportFilename('', 'zip', 'account-data', createdAt)),
    });
    return { key, ...written };
  });
}

/**
 * Marks the export completed; when it stopped being one to complete while its file was written
 * (its account is being deleted, or it was deleted with it), deletes the file instead: an erased
 * account's passwords must not stay in the bucket until the lifecycle rule. Answers whether this
 * delivery completed it.
 */
async function completeOrRemove(
  deps: Pick<RunExportDeps, 'exports' | 'files'>,
  userId: string,
  exportId: string,
  key: string,
  result: { rowCount: number; sizeBytes: number; now: Date },
): Promise<boolean> {
  if (await deps.exports.complete(userId, exportId, result)) return true;
  // Another delivery of the same message completed it with the same file at the same key: keep it.
  if ((await deps.exports.get(userId, exportId))?.status !== 'completed') await deps.files.remove(key);
  return false;
}

const reasonOf = (error: unknown): string => {
  if (error instanceof PermanentExportError) return error.reason;
  if (error instanceof StorageError) return 'The file could not be stored.';
  return 'The accounts could not be read.';
};

/** Account items become export rows; a password that cannot be decrypted will not decrypt on a retry either. */
export async function* exportRows(pages: AsyncIterable<Record<string, unknown>[]>, cipher: Cipher, projectName: string): RowPages {
  const text = (value: unknown, fallback = '') => (value === undefined || value === null ? fallback : String(value));
  for await (const items of pages) {
    yield items.map((item): ExportRecord => {
      let password: string;
      try {
        password = accountPassword(cipher, item);
      } catch {
        throw new PermanentExportError('A stored password could not be read.');
      }
      const attributes = attributesOf(item);
      return {
        ...(attributes ? { attributes } : {}),
        firstName: text(item.firstName),
        lastName: text(item.lastName),
        email: text(item.email),
        username: text(item.username),
        password,
        // The project's name when the export started (a renamed project's accounts carry the new one).
        projectName,
        accountType: text(item.accountType),
        createdAt: text(item.createdAt),
        externalStatus: text(item.externalStatus, 'pending'),
      };
    });
  }
}

/**
 * The writer fills a stream that the upload drains (into its temporary file): the writer waits
 * whenever the stream's buffer is full, so memory holds a Query page and the stream buffer.
 */
async function writeAndUpload(input: {
  files: Pick<ExportFiles, 'upload'>;
  writer: ExportWriter;
  pages: RowPages;
  attributeKeys?: readonly string[];
  key: string;
  contentType: string;
  contentDisposition: string;
}): Promise<{ rowCount: number; sizeBytes: number }> {
  let sizeBytes = 0;
  const body = new Transform({
    highWaterMark: 1024 * 1024,
    transform(chunk: Buffer, _encoding, callback) {
      sizeBytes += chunk.length;
      callback(null, chunk);
    },
  });
  const upload = input.files.upload({ key: input.key, body, contentType: input.contentType, contentDisposition: input.contentDisposition });
  const stopped = new Error('Export stopped');
  let storageError: StorageError | undefined;
  const uploading = upload.done().catch((error: unknown) => {
    // An upload we stopped because the writing failed is not a storage failure.
    const ours = error === stopped || (error instanceof Error && error.name === 'AbortError');
    if (!ours) storageError = new StorageError(error);
    throw storageError ?? error;
  });
  const writing = input.writer(input.pages, body, { attributeKeys: input.attributeKeys ?? [] });
  try {
    const [rowCount] = await Promise.all([writing, uploading]);
    return { rowCount, sizeBytes };
  } catch (error) {
    writing.catch(() => undefined);
    // The upload closed the body under the writer: the storage side failed, whatever the writer saw.
    const closedByUpload = body.destroyed && !(error instanceof PermanentExportError);
    const settled = uploading.then(
      () => undefined,
      () => undefined,
    );
    // Abort first, then end the body with an error: the upload must never see a clean end of a partial file.
    await upload.abort().catch(() => undefined);
    body.destroy(stopped);
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    // Whichever side noticed first, a failed upload is reported as such.
    throw storageError ?? (closedByUpload ? new StorageError(error) : error);
  }
}
