import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { headerExtraColumns, peopleCsvStream, recordAttributes, type CsvRow } from '../../shared/csv/read-people';
import { ATTRIBUTE_MESSAGES, MAX_ATTRIBUTES } from '../../shared/schemas/attributes';
import { toCsv, UTF8_BOM } from '../../shared/csv/write-csv';
import { isIdShaped } from '../../shared/schemas/ids';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';
import { UPLOAD_CSV_MAX_BYTES, UPLOAD_MAX_ROWS, uploadMessages } from '../../shared/schemas/bulk-upload';
import {
  SYNC_PAGE_SIZE,
  syncMessages,
  syncSections,
  type SyncChangedRow,
  type SyncCounts,
  type SyncMatchKey,
  type SyncMissingAccount,
  type SyncNewRow,
  type SyncPreview,
  type SyncRejectedRow,
  type SyncRowsPage,
  type SyncSection,
  type SyncUnchangedRow,
} from '../../shared/schemas/account-sync';
import type { UploadObjects } from '../bulk/bulk-uploads';
import { textOf, UnreadableFile } from '../bulk/bulk-uploads';
import { uploadKey } from '../bulk/upload-endings';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
import { logger } from '../core/logger';
import { shardsOf } from '../accounts/account-partitions';
import { readStates } from '../accounts/account-states';
import { attributesOf } from '../accounts/account-item';
import { syncFields, valueAt, type SyncFieldDef, type SyncFileRow } from './sync-fields';
import { failPreview } from './sync-endings';
import { getPreview, previewExpiresAt, previewView, readPart, SYNC_PART_ENTRIES, sectionEntries, stampOf, writeItems, type SyncPreviewItem } from './sync-store';

/**
 * The preview of a sync (docs/sync.md): the uploaded file read with the creation's reader and
 * limits, the project's accounts read once, each row sorted into new, changed (each field's old
 * and new value), unchanged or rejected, and the accounts no row matched listed as missing, all
 * stored in parts beside the preview for the UI's pages and the CSV. A job on the bulk-uploads
 * queue, so a file of 50,000 rows never depends on a request's 29 s.
 */
export type { SyncMessage } from './sync-endings';
import type { SyncMessage } from './sync-endings';

export interface SyncPreviewDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  objects: UploadObjects;
  now: () => Date;
  /** Puts a message on the bulk-uploads queue (after `delaySeconds`). */
  queue: (message: SyncMessage, delaySeconds?: number) => Promise<void>;
}

/** A delivery that claimed the reading and died leaves it claimed; after this long another may claim it (longer than the worker's timeout). */
const READING_LEASE_MS = 5 * 60 * 1000;

/** POST /api/projects/{id}/sync-previews `{ uploadId }`: the project and the uploaded file checked, the preview queued. */
export const startSyncPreview =
  (deps: Omit<SyncPreviewDeps, 'objects'> & { objects: Pick<UploadObjects, 'size'> }) =>
  async (userId: string, projectId: string, uploadId: string): Promise<SyncPreview> => {
    const { Item: project } = isIdShaped(projectId) ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ConsistentRead: true })) : { Item: undefined };
    if (!project || project.entityType !== 'Project') throw new NotFoundError('Project not found');
    if (typeof project.activeProjectDeletion === 'string') throw new ConflictError(PROJECT_BEING_DELETED);
    const { Item: upload } = isIdShaped(uploadId) ? await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkUpload(userId, uploadId), ConsistentRead: true })) : { Item: undefined };
    if (!upload) throw new NotFoundError('Upload not found');
    if (upload.status !== 'waiting') throw new ConflictError(syncMessages.uploadUsed);
    const size = await deps.objects.size(uploadKey(userId, uploadId));
    if (size === undefined || size === 0) throw new ValidationError(syncMessages.uploadNotArrived);
    if (size > UPLOAD_CSV_MAX_BYTES) throw new PayloadTooLargeError(uploadMessages.tooLarge(size));
    const now = deps.now();
    const at = now.toISOString();
    try {
      // The upload is the preview's from now on: no creation can start from it.
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: keys.bulkUpload(userId, uploadId),
          UpdateExpression: 'SET #status = :started, syncPreviewId = :id, bytes = :bytes, updatedAt = :now',
          ConditionExpression: '#status = :waiting',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':started': 'started', ':id': uploadId, ':bytes': size, ':now': at, ':waiting': 'waiting' },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ConflictError(syncMessages.uploadUsed);
      throw error;
    }
    const item: SyncPreviewItem = { id: uploadId, projectId, status: 'reading', rowsRead: 0, createdAt: at, updatedAt: at };
    await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: { ...keys.syncPreview(userId, uploadId), entityType: 'SyncPreview', userId, ...item, expiresAt: previewExpiresAt(now) }, ConditionExpression: 'attribute_not_exists(PK)' }));
    try {
      await deps.queue({ type: 'sync-preview', userId, previewId: uploadId });
    } catch (error) {
      await failPreview(deps, userId, uploadId, 'The preview could not be queued. Upload the file again.');
      throw error;
    }
    return previewView(item);
  };

/** The header names that name the match column (compared as lower-case letters only). */
const ID_HEADERS = ['id', 'accountid'];
const EMPLOYEE_ID_HEADERS = ['employeeid', 'employeenumber', 'employeeno'];
const headerKey = (cell: string) => cell.toLowerCase().replace(/[^a-z]/g, '');

/** The file as the preview reads it: its rows checked by the shared reader, its header (the match column). */
interface ReadFile {
  rows: CsvRow[];
  header: string[];
  fileError?: string;
}

async function readFile(deps: SyncPreviewDeps, userId: string, previewId: string): Promise<ReadFile> {
  const object = await deps.objects.read(uploadKey(userId, previewId));
  if (!object) return { rows: [], header: [], fileError: uploadMessages.notArrived };
  const rows: CsvRow[] = [];
  let header: string[] = [];
  const people = peopleCsvStream({ maxRows: UPLOAD_MAX_ROWS, onRow: (row) => rows.push(row), onHeader: (cells) => (header = cells.map((cell) => cell.trim())) });
  let lastProgress = Date.now();
  try {
    for await (const text of textOf(object.body, { bytes: 0 })) {
      if (!people.push(text)) break;
      if (Date.now() - lastProgress > 1000) {
        lastProgress = Date.now();
        await deps.db.send(new UpdateCommand({ TableName: deps.tableName, Key: keys.syncPreview(userId, previewId), UpdateExpression: 'SET rowsRead = :rows', ExpressionAttributeValues: { ':rows': rows.length } }));
      }
    }
  } finally {
    object.cancel();
  }
  const { fileError } = people.end();
  return { rows, header, ...(fileError ? { fileError } : {}) };
}

/** The project's accounts: every shard read at once (only what the diff needs), their ACT entries overlaid (isActive). */
async function readAccounts(deps: Pick<SyncPreviewDeps, 'db' | 'tableName'>, userId: string, projectId: string, project: Record<string, unknown>, fields: readonly SyncFieldDef[]) {
  const shards = shardsOf(project);
  const names = new Set(['id', 'row', 'username', 'isActive', 'attributes', ...fields.map((f) => f.path[0]!)]);
  const projection = [...names].map((_, i) => `#a${i}`).join(', ');
  const attributeNames = Object.fromEntries([...names].map((name, i) => [`#a${i}`, name]));
  const parts = await Promise.all(
    keys.accountPartitions(userId, projectId, shards).map((pk) =>
      queryItems(deps.db, {
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :account)',
        ExpressionAttributeValues: { ':pk': pk, ':account': 'ACCOUNT#' },
        ProjectionExpression: projection,
        ExpressionAttributeNames: attributeNames,
        ConsistentRead: true,
      }),
    ),
  );
  const accounts = parts.flat().sort((a, b) => Number(a.row) - Number(b.row));
  const states = await readStates(deps.db, deps.tableName, { userId, projectId, shards }, 1, 999_999, { consistent: true, channels: ['ACT'] });
  for (const account of accounts) {
    const entry = states.ACT?.get(Number(account.row));
    if (entry && typeof entry.isActive === 'boolean') account.isActive = entry.isActive;
  }
  return accounts;
}

export interface SyncDiff {
  matchKey: SyncMatchKey;
  counts: SyncCounts;
  sections: { new: SyncNewRow[]; changed: SyncChangedRow[]; unchanged: SyncUnchangedRow[]; missing: SyncMissingAccount[]; rejected: SyncRejectedRow[] };
}

/**
 * The differences between the file's rows and the project's accounts. Rows are matched by the
 * file's id column (the account's id; an id of no account of the project is rejected) or
 * employeeId column (the account's `attributes.employeeId`; none found: by e-mail), else by
 * e-mail, case-insensitive. An account matched by an earlier row rejects the later one; a changed
 * e-mail another account of the project has is rejected (two accounts would share it).
 */
export function diffRows(file: { rows: readonly CsvRow[]; header: readonly string[] }, accounts: readonly Record<string, unknown>[]): SyncDiff {
  const idColumn = file.header.findIndex((cell) => ID_HEADERS.includes(headerKey(cell)));
  const employeeColumn = idColumn >= 0 ? -1 : file.header.findIndex((cell) => EMPLOYEE_ID_HEADERS.includes(headerKey(cell)));
  const matchKey: SyncMatchKey = idColumn >= 0 ? 'id' : employeeColumn >= 0 ? 'employeeId' : 'email';
  // The extra columns compared: the reader's, without the id column (the account's id, no attribute).
  const extras = headerExtraColumns(file.header, idColumn >= 0 ? [idColumn] : []);
  const fields = syncFields(extras.map((column) => column.key));
  const byId = new Map<string, Record<string, unknown>>();
  const byEmail = new Map<string, Record<string, unknown>>();
  const byEmployee = new Map<string, Record<string, unknown>>();
  for (const account of accounts) {
    byId.set(String(account.id), account);
    byEmail.set(String(account.email ?? '').toLowerCase(), account);
    const employee = valueAt(account, ['attributes', 'employeeId']);
    if (employee) byEmployee.set(employee, account);
  }
  const matchedRow = new Map<string, number>();
  const sections: SyncDiff['sections'] = { new: [], changed: [], unchanged: [], missing: [], rejected: [] };
  const reject = (row: CsvRow, problem: string) => sections.rejected.push({ row: row.row, firstName: row.firstName.slice(0, 200), lastName: row.lastName.slice(0, 200), email: row.email.slice(0, 254), problem });
  for (const row of file.rows) {
    if (row.issues.length) {
      reject(row, row.issues.map((issue) => issue.message).join('; '));
      continue;
    }
    const columns = recordAttributes(row.raw, extras);
    if (columns.problems.length) {
      reject(row, columns.problems.join('; '));
      continue;
    }
    const fileRow: SyncFileRow = { row: row.row, firstName: row.firstName, lastName: row.lastName, email: row.email, attributes: columns.attributes };
    let account: Record<string, unknown> | undefined;
    let matchedBy: SyncMatchKey = 'email';
    const key = (row.raw[idColumn >= 0 ? idColumn : employeeColumn] ?? '').trim();
    if (idColumn >= 0 && key) {
      account = byId.get(key);
      matchedBy = 'id';
      if (!account) {
        reject(row, `No account of this project has the id ${key.slice(0, 100)}`);
        continue;
      }
    } else if (employeeColumn >= 0 && key && byEmployee.has(key)) {
      account = byEmployee.get(key);
      matchedBy = 'employeeId';
    }
    account ??= byEmail.get(row.email.toLowerCase());
    if (!account) {
      // The new person's extra columns go with them (created as at creation: functions/bulk/add-people.ts).
      sections.new.push({ row: row.row, firstName: row.firstName, lastName: row.lastName, email: row.email, ...(columns.attributes && Object.keys(columns.attributes).length ? { attributes: columns.attributes } : {}) });
      continue;
    }
    const accountId = String(account.id);
    const earlier = matchedRow.get(accountId);
    if (earlier !== undefined) {
      reject(row, `Matches the same account as row ${earlier} (${String(account.username)})`);
      continue;
    }
    const changes = fields.flatMap((field) => {
      const to = field.ofRow(fileRow);
      const from = valueAt(account, field.path);
      return to === undefined || to === from ? [] : [{ field: field.field, label: field.label, from, to }];
    });
    const newEmail = changes.find((change) => change.field === 'email')?.to.toLowerCase();
    const holder = newEmail !== undefined ? byEmail.get(newEmail) : undefined;
    if (holder && holder !== account) {
      reject(row, `Another account of this project has this e-mail (${String(holder.username)})`);
      continue;
    }
    // The account's extra columns with the file's: within the caps of one person.
    const kept = new Set(Object.keys(attributesOf(account) ?? {}));
    for (const change of changes) {
      if (!change.field.startsWith('attributes.')) continue;
      if (change.to) kept.add(change.field.slice('attributes.'.length));
      else kept.delete(change.field.slice('attributes.'.length));
    }
    if (kept.size > MAX_ATTRIBUTES) {
      reject(row, ATTRIBUTE_MESSAGES.tooMany(kept.size));
      continue;
    }
    matchedRow.set(accountId, row.row);
    const username = String(account.username ?? '');
    if (changes.length) sections.changed.push({ row: row.row, accountId, username, matchedBy, changes });
    else sections.unchanged.push({ row: row.row, accountId, username, firstName: row.firstName, lastName: row.lastName, email: row.email });
  }
  for (const account of accounts) {
    const accountId = String(account.id);
    if (matchedRow.has(accountId)) continue;
    sections.missing.push({ accountId, username: String(account.username ?? ''), firstName: String(account.firstName ?? ''), lastName: String(account.lastName ?? ''), email: String(account.email ?? ''), isActive: account.isActive !== false });
  }
  const counts: SyncCounts = {
    rows: file.rows.length,
    new: sections.new.length,
    changed: sections.changed.length,
    unchanged: sections.unchanged.length,
    rejected: sections.rejected.length,
    accounts: accounts.length,
    matched: matchedRow.size,
    missing: sections.missing.length,
    missingActive: sections.missing.filter((m) => m.isActive).length,
  };
  return { matchKey, counts, sections };
}

/** The worker's part: claim the reading, read the file and the accounts at once, store the sections, ready. */
export const runSyncPreview =
  (deps: SyncPreviewDeps) =>
  async (userId: string, previewId: string): Promise<void> => {
    const now = deps.now();
    try {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: keys.syncPreview(userId, previewId),
          UpdateExpression: 'SET readingSince = :now',
          ConditionExpression: '#status = :reading AND (attribute_not_exists(readingSince) OR readingSince < :lapsed)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':now': now.getTime(), ':lapsed': now.getTime() - READING_LEASE_MS, ':reading': 'reading' },
        }),
      );
    } catch (error) {
      // Read already, or another delivery reads it.
      if (error instanceof ConditionalCheckFailedException) return;
      throw error;
    }
    const item = await getPreview(deps.db, deps.tableName, userId, previewId);
    const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, item.projectId), ConsistentRead: true }));
    if (!project) return failPreview(deps, userId, previewId, 'The project was deleted.');
    // Read before the accounts: a change while they are read makes the preview stale.
    const stamp = stampOf(project);
    const started = Date.now();
    let file: ReadFile;
    let accounts: Record<string, unknown>[];
    try {
      const fileRead = readFile(deps, userId, previewId);
      // The three fields and the `attributes` map are always read: the header decides the rest.
      const accountsRead = readAccounts(deps, userId, item.projectId, project, syncFields());
      [file, accounts] = await Promise.all([fileRead, accountsRead]);
    } catch (error) {
      if (error instanceof UnreadableFile) return failPreview(deps, userId, previewId, error.message);
      throw error;
    }
    if (file.fileError) return failPreview(deps, userId, previewId, file.fileError);
    const diff = diffRows(file, accounts);
    const at = deps.now();
    const ttl = previewExpiresAt(at);
    const parts: Record<string, unknown>[] = [];
    const partCounts: Partial<Record<SyncSection, number>> = {};
    for (const section of syncSections) {
      const entries = diff.sections[section] as unknown[];
      partCounts[section] = Math.ceil(entries.length / SYNC_PART_ENTRIES);
      for (let part = 0; part * SYNC_PART_ENTRIES < entries.length; part++) {
        parts.push({ ...keys.syncPreviewPart(userId, previewId, section, part), entityType: 'SyncPreviewPart', userId, section, part, entries: entries.slice(part * SYNC_PART_ENTRIES, (part + 1) * SYNC_PART_ENTRIES), expiresAt: ttl });
      }
    }
    await writeItems(deps.db, deps.tableName, parts);
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.syncPreview(userId, previewId),
        UpdateExpression: 'SET #status = :ready, matchKey = :key, counts = :counts, parts = :parts, stamp = :stamp, rowsRead = :rows, updatedAt = :now, readMs = :ms REMOVE readingSince',
        ConditionExpression: '#status = :reading',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':ready': 'ready', ':key': diff.matchKey, ':counts': diff.counts, ':parts': partCounts, ':stamp': stamp, ':rows': diff.counts.rows, ':now': at.toISOString(), ':ms': Date.now() - started, ':reading': 'reading' },
      }),
    );
    // The file is not needed any more: the new people's rows are in the preview.
    await deps.objects.remove(uploadKey(userId, previewId)).catch((error: unknown) => logger.warn('A synced file could not be removed (the bucket lifecycle will)', { previewId, error: String(error) }));
  };

/** GET /api/sync-previews/{id}/rows?section=&page=: one page (SYNC_PAGE_SIZE) of a section, from the one part that holds it. */
export const syncRowsPage =
  (deps: Pick<SyncPreviewDeps, 'db' | 'tableName'>) =>
  async (userId: string, previewId: string, sectionParam: string | undefined, pageParam: string | undefined): Promise<SyncRowsPage> => {
    const item = await getPreview(deps.db, deps.tableName, userId, previewId);
    const section = (syncSections as readonly string[]).includes(sectionParam ?? '') ? (sectionParam as SyncSection) : undefined;
    if (!section) throw new ValidationError(`section must be one of ${syncSections.join(', ')}`);
    const page = pageParam === undefined ? 0 : Number(pageParam);
    if (!Number.isInteger(page) || page < 0 || page > 100_000) throw new ValidationError('page must be a whole number from 0');
    const total = Number(item.counts?.[section] ?? 0);
    const first = page * SYNC_PAGE_SIZE;
    const part = Math.floor(first / SYNC_PART_ENTRIES);
    const rows = first < total ? (await readPart<never>(deps.db, deps.tableName, userId, previewId, section, part)).slice(first % SYNC_PART_ENTRIES, (first % SYNC_PART_ENTRIES) + SYNC_PAGE_SIZE) : [];
    return { section, page, pageSize: SYNC_PAGE_SIZE, total, rows };
  };

export const SYNC_CSV_HEADER = ['Section', 'Row', 'Account ID', 'Username', 'First Name', 'Last Name', 'Email', 'Changes', 'Problem'] as const;

/** GET /api/sync-previews/{id}/csv: every section, one line per row or missing account, formula-safe (toCsv). */
export const syncPreviewCsv =
  (deps: Pick<SyncPreviewDeps, 'db' | 'tableName'>) =>
  async (userId: string, previewId: string): Promise<{ filename: string; body: string }> => {
    const item = await getPreview(deps.db, deps.tableName, userId, previewId);
    if (item.status === 'reading' || item.status === 'failed') throw new ConflictError(syncMessages.notReady(item.status));
    const read = <T>(section: SyncSection) => sectionEntries<T>(deps.db, deps.tableName, userId, previewId, section);
    const [added, changed, unchanged, missing, rejected] = await Promise.all([read<SyncNewRow>('new'), read<SyncChangedRow>('changed'), read<SyncUnchangedRow>('unchanged'), read<SyncMissingAccount>('missing'), read<SyncRejectedRow>('rejected')]);
    const lines = [
      ...added.map((r) => ['New', r.row, '', '', r.firstName, r.lastName, r.email, '', '']),
      ...changed.map((r) => ['Changed', r.row, r.accountId, r.username, '', '', '', r.changes.map((c) => `${c.label}: ${c.from} -> ${c.to}`).join('; '), '']),
      ...unchanged.map((r) => ['Unchanged', r.row, r.accountId, r.username, r.firstName, r.lastName, r.email, '', '']),
      ...missing.map((r) => [r.isActive ? 'Missing from the file' : 'Missing from the file (deactivated)', '', r.accountId, r.username, r.firstName, r.lastName, r.email, '', '']),
      ...rejected.map((r) => ['Rejected', r.row, '', '', r.firstName, r.lastName, r.email, '', r.problem]),
    ];
    return { filename: `sync-preview-${previewId}.csv`, body: UTF8_BOM + toCsv(SYNC_CSV_HEADER, lines) };
  };
