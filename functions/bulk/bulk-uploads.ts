import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { peopleCsvStream } from '../../shared/csv/read-people';
import { rejectedRowsCsv } from '../../shared/csv/read-people';
import { UTF8_BOM } from '../../shared/csv/write-csv';
import { isIdShaped } from '../../shared/schemas/ids';
import { PROJECT_COMPLETED_MESSAGE, PROJECT_EXPIRED_MESSAGE } from '../../shared/schemas/project';
import { userTimeZone } from '../analytics/counters';
import { projectHasExpired } from '../projects/project-expiry';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';
import type { BulkCreateInput } from '../../shared/schemas/bulk';
import {
  UPLOAD_CSV_MAX_BYTES,
  UPLOAD_MAX_ROWS,
  uploadMessages,
  uploadRejectedRowsPath,
  type BulkUpload,
  type BulkUploadForm,
  type BulkUploadOptions,
} from '../../shared/schemas/bulk-upload';
import { ConflictError, HttpError, NotFoundError, PayloadTooLargeError, ValidationError, WriteInterruptedError } from '../core/errors';
import { keys } from '../core/keys';
import type { CheckedRow } from './check-rows';
import { sortCsvRow } from './check-rows';
import type { CreateBulkAccountsResult, PreparedCreation } from './create-bulk-accounts';
import { inlineFailed, rejectedRowItems, reportParts, reportRows, type RejectedRow } from './rejected-rows';
import type { Item } from './bulk-store';
import { repeatedBases } from './usernames';
import { failUpload, recordQueued, uploadKey, type UploadItem } from './upload-endings';

export { recordDeadUpload, uploadKey } from './upload-endings';

/**
 * Bulk creation from a file uploaded straight to S3 (docs/bulk-files.md):
 *  1. POST /api/bulk-uploads: an upload item (`waiting`) and a presigned POST for
 *     `uploads/<user>/<id>.csv` (at most UPLOAD_CSV_MAX_BYTES, a few minutes to start it).
 *  2. POST /api/bulk-uploads/{id}/start: the options (the bulk-create request without rows, and
 *     checkOnly), the object's size checked, `started`, one message on the bulk-uploads queue.
 *  3. The worker (readUpload) claims the upload, reads the object as a stream with the shared
 *     reader (rowsRead as it goes), counting the valid rows and keeping the rejected ones, and
 *     keeps the per-row report (`checked`) or creates the job (`queued`: the job's id is the
 *     upload's; rows written are the job's), reading the same version of the object a second
 *     time for the job's chunks, made and stored as the rows come: no valid row is held.
 *     A file it cannot read fails the upload with a message; nothing is created.
 * The object is deleted when its reading ends with a job or a failure (a checked file is kept
 * for a start that creates); the bucket's lifecycle rule on `uploads/` removes any left behind.
 */

/** An upload item (and a checked file's report) lives this long (the table's TTL); a created project keeps its own report. */
export const UPLOAD_ITEM_DAYS = 7;
/**
 * A delivery that claimed the reading and then died (timeout, crash) leaves it `reading`; after
 * this long a later delivery may claim it again. Longer than the worker's timeout (150 s).
 */
export const READING_LEASE_MS = 5 * 60 * 1000;
/** rowsRead is written at most this often while reading. */
const PROGRESS_EVERY_MS = 1000;

export interface UploadObjects {
  /** A form for a browser POST straight to the bucket: this key only, at most UPLOAD_CSV_MAX_BYTES. */
  uploadForm(key: string): Promise<{ url: string; fields: Record<string, string> }>;
  /** The object's size; undefined when there is none. */
  size(key: string): Promise<number | undefined>;
  /** The object's bytes as they arrive; with `ifMatch`, only that version of it (undefined when it was replaced since). */
  read(key: string, ifMatch?: string): Promise<UploadObject | undefined>;
  remove(key: string): Promise<void>;
}

/** One reading of an uploaded object. */
export interface UploadObject {
  body: AsyncIterable<Uint8Array>;
  /** The version read (S3's ETag). */
  etag?: string;
  /** Ends a reading not taken to its end (its connection closed); harmless after the end. */
  cancel(): void;
}

export interface BulkUploadDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  objects: UploadObjects;
  now: () => Date;
  newId: (now: Date) => string;
}

/** What a route needs of the deps: the API function touches the file only through `signedUploadObjects` (upload-requests.ts). */
export type RequestDeps<Calls extends keyof UploadObjects> = Omit<BulkUploadDeps, 'objects'> & { objects: Pick<UploadObjects, Calls> };

/** The start message on the bulk-uploads queue. */
export interface UploadMessage {
  userId: string;
  uploadId: string;
}

const expiresAt = (now: Date) => Math.floor(now.getTime() / 1000) + UPLOAD_ITEM_DAYS * 24 * 3600;

function viewOf(item: UploadItem): BulkUpload {
  return {
    id: item.id,
    status: item.status,
    checkOnly: item.checkOnly === true,
    ...(item.bytes !== undefined ? { bytes: item.bytes } : {}),
    bytesRead: item.bytesRead ?? 0,
    rowsRead: item.rowsRead ?? 0,
    ...(item.total !== undefined ? { total: item.total, validCount: item.validCount ?? 0, failedCount: item.failedCount ?? 0, failed: item.failed ?? [] } : {}),
    ...((item.status === 'checked' || item.status === 'failed') && item.failedCount ? { rejectedRowsUrl: uploadRejectedRowsPath(item.id) } : {}),
    ...(item.project ? { project: item.project } : {}),
    ...(item.job ? { job: item.job } : {}),
    ...(item.summary ? { summary: item.summary } : {}),
    ...(item.reason ? { reason: item.reason } : {}),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

async function getUpload(deps: Pick<BulkUploadDeps, 'db' | 'tableName'>, userId: string, uploadId: string): Promise<UploadItem> {
  // Another user's id, or one that cannot exist, is simply not found (404), as every route answers.
  if (!isIdShaped(uploadId)) throw new NotFoundError('Upload not found');
  const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkUpload(userId, uploadId), ConsistentRead: true }));
  if (!Item) throw new NotFoundError('Upload not found');
  return Item as UploadItem;
}

/** POST /api/bulk-uploads: a new upload and the form that puts the file at its key. */
export const createUploadForm =
  (deps: RequestDeps<'uploadForm'>) =>
  async (userId: string): Promise<BulkUploadForm> => {
    const now = deps.now();
    const id = deps.newId(now);
    const item: UploadItem = { id, status: 'waiting', bytesRead: 0, rowsRead: 0, createdAt: now.toISOString(), updatedAt: now.toISOString() };
    await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: { ...keys.bulkUpload(userId, id), entityType: 'BulkUpload', ...item, expiresAt: expiresAt(now) } }));
    return { id, ...(await deps.objects.uploadForm(uploadKey(userId, id))), maxBytes: UPLOAD_CSV_MAX_BYTES };
  };

/** GET /api/bulk-uploads/{id}. */
export const readUploadState = (deps: Pick<BulkUploadDeps, 'db' | 'tableName'>) => async (userId: string, uploadId: string): Promise<BulkUpload> => viewOf(await getUpload(deps, userId, uploadId));

/**
 * POST /api/bulk-uploads/{id}/start: the file must have arrived and be within the limit (a larger
 * one is deleted and refused, 413); then the options are kept and the reading queued. A waiting
 * upload, or one checked first, may start; one being read or already creating answers 409.
 */
export const startUpload =
  (deps: RequestDeps<'size' | 'remove'> & { queue: (message: UploadMessage) => Promise<void> }) =>
  async (userId: string, uploadId: string, options: BulkUploadOptions): Promise<BulkUpload> => {
    const item = await getUpload(deps, userId, uploadId);
    if (item.status !== 'waiting' && item.status !== 'checked') throw new ConflictError(uploadMessages.notStartable(item.status));
    // People added to a project: another user's 404, a completed or expired one 409, before the file is read
    // (the creation checks again, atomically, when it reserves the rows).
    if (options.projectId !== undefined) {
      const { Item: project } = isIdShaped(options.projectId)
        ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, options.projectId), ConsistentRead: true, ProjectionExpression: '#status, activeProjectDeletion, expiredAt, expirationDate', ExpressionAttributeNames: { '#status': 'status' } }))
        : { Item: undefined };
      if (!project) throw new NotFoundError('Project not found');
      if (project.status === 'completed') throw new ConflictError(PROJECT_COMPLETED_MESSAGE);
      if (typeof project.activeProjectDeletion === 'string') throw new ConflictError(PROJECT_BEING_DELETED);
      if (projectHasExpired(project, deps.now(), await userTimeZone(deps.db, deps.tableName, userId))) throw new ConflictError(PROJECT_EXPIRED_MESSAGE);
    }
    const size = await deps.objects.size(uploadKey(userId, uploadId));
    if (size === undefined || size === 0) throw new ValidationError(uploadMessages.notArrived);
    if (size > UPLOAD_CSV_MAX_BYTES) {
      // S3 refuses a larger POST by its policy; this holds wherever the policy is not checked.
      await failUpload(deps, userId, uploadId, uploadMessages.tooLarge(size));
      throw new PayloadTooLargeError(uploadMessages.tooLarge(size));
    }
    const now = deps.now().toISOString();
    try {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: keys.bulkUpload(userId, uploadId),
          UpdateExpression: 'SET #status = :started, options = :options, checkOnly = :checkOnly, bytes = :bytes, bytesRead = :zero, rowsRead = :zero, updatedAt = :now',
          ConditionExpression: '#status = :was',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':started': 'started', ':options': options, ':checkOnly': options.checkOnly, ':bytes': size, ':zero': 0, ':now': now, ':was': item.status },
        }),
      );
    } catch (error) {
      // Two starts at once: the first wins.
      if (error instanceof ConditionalCheckFailedException) throw new ConflictError(uploadMessages.notStartable('started'));
      throw error;
    }
    try {
      await deps.queue({ userId, uploadId });
    } catch (error) {
      // Not queued: back to where it was, so the same start may be sent again.
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: keys.bulkUpload(userId, uploadId),
          UpdateExpression: 'SET #status = :was',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':was': item.status },
        }),
      );
      throw error;
    }
    return viewOf({ ...item, status: 'started', checkOnly: options.checkOnly, bytes: size, bytesRead: 0, rowsRead: 0, updatedAt: now });
  };

/** GET /api/bulk-uploads/{id}/rejected-rows: the rows a 'check first' found that cannot be created, as CSV. */
export const uploadRejectedRows =
  (deps: Pick<BulkUploadDeps, 'db' | 'tableName'>) =>
  async (userId: string, uploadId: string): Promise<{ filename: string; body: string }> => {
    const item = await getUpload(deps, userId, uploadId);
    const rows = reportRows(await reportParts(deps, userId, uploadId));
    const name = item.options?.projectName ?? 'upload';
    return { filename: `${name.replace(/[^\w.-]+/g, '_').slice(0, 100)}_rejected_rows.csv`, body: UTF8_BOM + rejectedRowsCsv(rows) };
  };

/** Opening bytes of files that are not CSV text: zip (xlsx, docx ...), gzip, old Excel, PDF. */
const BINARY_SIGNATURES = [[0x50, 0x4b, 0x03, 0x04], [0x50, 0x4b, 0x05, 0x06], [0x1f, 0x8b], [0xd0, 0xcf, 0x11, 0xe0], [0x25, 0x50, 0x44, 0x46]];
/** UTF-16 and UTF-32 byte order marks: text, but not UTF-8. */
const UTF16_MARKS = [[0xff, 0xfe], [0xfe, 0xff]];
const startsWith = (bytes: Uint8Array, signature: readonly number[]) => signature.every((byte, i) => bytes[i] === byte);

/** What a file's first bytes say it is not; undefined when it may be UTF-8 CSV text. */
export function sniffNotCsv(head: Uint8Array): string | undefined {
  if (UTF16_MARKS.some((mark) => startsWith(head, mark))) return uploadMessages.notUtf8;
  if (BINARY_SIGNATURES.some((signature) => startsWith(head, signature))) return uploadMessages.notText;
  // Text has no NUL bytes; binaries nearly always do early on.
  if (head.subarray(0, 4096).includes(0)) return uploadMessages.notText;
  return undefined;
}

/** A file the worker refuses: its message becomes the upload's reason. */
export class UnreadableFile extends Error {}

export type CreateFromRows = (userId: string, input: BulkCreateInput, prepared: PreparedCreation) => Promise<CreateBulkAccountsResult>;

/**
 * The bulk-uploads worker: one message per started upload. Redelivery-safe: the reading is
 * claimed by a conditional update (a second delivery of a finished or running reading does
 * nothing), and the job's id is the upload's, so a delivery that finds the job already started
 * (its predecessor died after starting it) only records it. Errors a user can cause end the
 * upload with their message and the file deleted; anything else is thrown for a retry, with the
 * claim given back (the dead-letter worker fails the upload after the last try).
 */
export const readUpload =
  (deps: BulkUploadDeps & { create: CreateFromRows }) =>
  async ({ userId, uploadId }: UploadMessage): Promise<void> => {
    const claimed = await claimReading(deps, userId, uploadId);
    if (!claimed) return;
    const options = claimed.options!;
    try {
      if (!options.checkOnly) {
        const { Item: job } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, uploadId), ConsistentRead: true }));
        if (job) {
          // An earlier delivery started the job and stopped before recording it: record it, create nothing.
          await recordQueued(deps, userId, uploadId, claimed, undefined);
          return;
        }
      }
      const read = await readRows(deps, userId, uploadId);
      const total = read.validCount + read.rejected.length;
      if (options.checkOnly) {
        await recordChecked(deps, userId, uploadId, read.validCount, read.rejected, read);
        return;
      }
      // The second reading, for the job's chunks, opened before anything is created: the version
      // of the file the first one checked, or the upload fails (a second POST of the form replaced it).
      const again = await deps.objects.read(uploadKey(userId, uploadId), read.etag);
      if (!again || again.etag !== read.etag) {
        again?.cancel();
        throw new UnreadableFile(uploadMessages.changed);
      }
      const { checkOnly: _checkOnly, ...request } = options;
      let result: CreateBulkAccountsResult;
      try {
        const rejectedRows = new Set(read.rejected.map((row) => row.row));
        const valid = { length: read.validCount, baseMayRepeat: read.baseMayRepeat, [Symbol.asyncIterator]: () => validRowsAgain(again.body, read.validCount, rejectedRows) };
        result = await deps.create(userId, request, { checked: { valid, rejected: read.rejected, total }, projectId: uploadId, asJob: true });
      } catch (error) {
        // Refusals the user can act on (no valid row, plan limits, another creation running, a
        // Pro option): the message, nothing created. A creation stopped part-way says so too.
        if (error instanceof HttpError) {
          // The per-row report stays readable (why none of the rows can be created, say).
          await recordChecked(deps, userId, uploadId, read.validCount, read.rejected, read, error.message);
          await deps.objects.remove(uploadKey(userId, uploadId));
          return;
        }
        if (error instanceof WriteInterruptedError) {
          await failUpload(deps, userId, uploadId, `Creating "${error.projectName}" stopped part-way. Check Projects for what was created.`);
          return;
        }
        throw error;
      } finally {
        // Refused before its rows were read: the second reading's connection is not left open.
        again.cancel();
      }
      if (result.kind !== 'queued') throw new Error('An uploaded file is created as a job');
      await recordQueued(deps, userId, uploadId, { ...claimed, total, validCount: read.validCount, failedCount: read.rejected.length, rowsRead: total, bytesRead: read.bytesRead }, result);
    } catch (error) {
      if (error instanceof UnreadableFile) {
        await failUpload(deps, userId, uploadId, error.message);
        return;
      }
      // Given back, so the retry may claim it at once.
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: keys.bulkUpload(userId, uploadId),
          UpdateExpression: 'SET #status = :started REMOVE readingSince',
          ConditionExpression: '#status = :reading',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':started': 'started', ':reading': 'reading' },
        }),
      ).catch(() => undefined);
      throw error;
    }
  };

/** Takes the reading for this delivery; undefined when it is not to be read (over, or another delivery's). */
async function claimReading(deps: BulkUploadDeps, userId: string, uploadId: string): Promise<UploadItem | undefined> {
  const now = deps.now();
  try {
    const { Attributes } = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.bulkUpload(userId, uploadId),
        UpdateExpression: 'SET #status = :reading, readingSince = :now, rowsRead = :zero, bytesRead = :zero, updatedAt = :iso',
        ConditionExpression: '#status = :started OR (#status = :reading AND readingSince < :stale)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':reading': 'reading', ':started': 'started', ':now': now.getTime(), ':stale': now.getTime() - READING_LEASE_MS, ':zero': 0, ':iso': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as UploadItem;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * The object's text as it arrives: UTF-8 decoded strictly, a file that is not text refused at its
 * first bytes, the size limit held while reading (the reading stops at the first byte over);
 * `read.bytes` counts the bytes so far.
 */
export async function* textOf(body: AsyncIterable<Uint8Array>, read: { bytes: number }): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (bytes?: Uint8Array) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw new UnreadableFile(uploadMessages.notUtf8);
    }
  };
  for await (const bytes of body) {
    if (read.bytes === 0) {
      const problem = sniffNotCsv(bytes);
      if (problem) throw new UnreadableFile(problem);
    }
    read.bytes += bytes.length;
    if (read.bytes > UPLOAD_CSV_MAX_BYTES) throw new UnreadableFile(uploadMessages.tooLarge(read.bytes));
    yield decode(bytes);
  }
  if (read.bytes === 0) throw new UnreadableFile(uploadMessages.notArrived);
  yield decode();
}

/**
 * The first reading: every row checked with the shared reader, the row limit held (the reading
 * stops at the first row over), rowsRead written about once a second. Only the count of valid
 * rows is kept (the second reading gives them to the job), a 4-byte hash of each one's username
 * base (which bases may repeat: the job's slots then count only those), and the rejected rows for
 * the report.
 */
async function readRows(deps: BulkUploadDeps, userId: string, uploadId: string) {
  let validCount = 0;
  const rejected: RejectedRow[] = [];
  const bases = repeatedBases();
  const people = peopleCsvStream({
    maxRows: UPLOAD_MAX_ROWS,
    onRow: (row) => {
      const sorted = sortCsvRow(row);
      if ('valid' in sorted) {
        validCount++;
        bases.add(sorted.valid);
      } else rejected.push(sorted.rejected);
    },
  });
  const object = await deps.objects.read(uploadKey(userId, uploadId));
  if (!object) throw new UnreadableFile(uploadMessages.notArrived);
  const read = { bytes: 0 };
  let lastProgress = deps.now().getTime();
  try {
    for await (const text of textOf(object.body, read)) {
      if (!people.push(text)) break;
      const now = deps.now().getTime();
      if (now - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = now;
        await deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: keys.bulkUpload(userId, uploadId),
            UpdateExpression: 'SET rowsRead = :rows, bytesRead = :bytes, updatedAt = :iso',
            ExpressionAttributeValues: { ':rows': validCount + rejected.length, ':bytes': read.bytes, ':iso': new Date(now).toISOString() },
          }),
        );
      }
    }
  } finally {
    object.cancel();
  }
  const outcome = people.end();
  if (outcome.fileError) throw new UnreadableFile(outcome.fileError);
  return { validCount, rejected, bytesRead: read.bytes, etag: object.etag, baseMayRepeat: bases.seal() };
}

/**
 * The second reading, as the job's chunks are made: the same version of the file through the same
 * reader and checks, its valid rows handed on as each piece of the file is read (none kept). A
 * repeated e-mail is known from the first reading (`rejectedRows`: every row it rejected, by line),
 * so this one keeps no e-mail per row. It must give exactly the first reading's `validCount` rows
 * (the plan's reservation): never more.
 */
async function* validRowsAgain(body: AsyncIterable<Uint8Array>, validCount: number, rejectedRows: ReadonlySet<number>): AsyncGenerator<CheckedRow> {
  const ready: CheckedRow[] = [];
  let given = 0;
  const people = peopleCsvStream({
    maxRows: UPLOAD_MAX_ROWS,
    repeats: false,
    onRow: (row) => {
      if (rejectedRows.has(row.row)) return;
      const sorted = sortCsvRow(row);
      if ('valid' in sorted) ready.push(sorted.valid);
      else throw new Error(`Row ${row.row} of the file read again is not the row first read`);
    },
  });
  const handOn = function* () {
    given += ready.length;
    if (given > validCount) throw new Error(`The file read again has more than the ${validCount} valid rows first read`);
    yield* ready.splice(0);
  };
  for await (const text of textOf(body, { bytes: 0 })) {
    if (!people.push(text)) break;
    yield* handOn();
  }
  people.end();
  yield* handOn();
  if (given !== validCount) throw new Error(`The file read again has ${given} valid rows, not the ${validCount} first read`);
}

/** 'Check first': the report kept (under the upload's id, for its TTL), the counts and the first problems on the upload. */
async function recordChecked(deps: BulkUploadDeps, userId: string, uploadId: string, validCount: number, rejected: readonly RejectedRow[], read: { bytesRead: number }, failedReason?: string) {
  const now = deps.now();
  const ttl = expiresAt(now);
  const parts: Item[] = rejectedRowItems(userId, uploadId, rejected).map((part) => ({ ...part, expiresAt: ttl }));
  if (parts.length) await writeParts(deps, parts);
  const total = validCount + rejected.length;
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.bulkUpload(userId, uploadId),
      UpdateExpression:
        `SET #status = :checked, #total = :total, validCount = :valid, failedCount = :failedCount, failed = :failed, rowsRead = :total, bytesRead = :bytes, updatedAt = :iso, expiresAt = :ttl${failedReason ? ', reason = :reason' : ''} REMOVE readingSince`,
      ExpressionAttributeNames: { '#status': 'status', '#total': 'total' },
      ExpressionAttributeValues: {
        ':checked': failedReason ? 'failed' : 'checked',
        ...(failedReason ? { ':reason': failedReason } : {}),
        ':total': total,
        ':valid': validCount,
        ':failedCount': rejected.length,
        ':failed': inlineFailed(rejected),
        ':bytes': read.bytesRead,
        ':iso': now.toISOString(),
        ':ttl': ttl,
      },
    }),
  );
}

async function writeParts(deps: BulkUploadDeps, parts: readonly Item[]) {
  // A report part is at most 300 KB: one PutItem each (a BatchWrite takes 16 MB at most).
  for (const part of parts) await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: part }));
}

