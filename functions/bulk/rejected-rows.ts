import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryItems } from '../core/query-pages';
import { rejectedRowsCsv, type CsvRow } from '../../shared/csv/read-people';
import { UTF8_BOM } from '../../shared/csv/write-csv';
import { FAILED_ROWS_INLINE_MAX, type FailedRow } from '../../shared/schemas/bulk';
import { NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { safeFilename } from '../projects/export-project-csv';
import type { Item } from './bulk-store';

/** A row that was not created, with what the person sent: one line of the rejected-rows report. */
export interface RejectedRow extends FailedRow {
  firstName: string;
  lastName: string;
}

/** Report cells are cut here: a rejected row may carry 1,000 characters a field, a report needs less. */
const CELL_MAX = 300;
/** One report item's rows at most (JSON), well under DynamoDB's 400 KB item limit. */
export const REPORT_PART_MAX_BYTES = 300 * 1024;
/** What rows of a job that could not be stored say when their chunk recorded no reason. */
export const NOT_STORED_MESSAGE = 'Could not be stored';

type Cells = [row: number, firstName: string, lastName: string, email: string, message: string];
const cellsOf = (r: RejectedRow): Cells => [r.row, r.firstName.slice(0, CELL_MAX), r.lastName.slice(0, CELL_MAX), (r.email ?? '').slice(0, CELL_MAX), r.message.slice(0, CELL_MAX)];

/** The rejected rows as an answer lists them, without the names. */
export const failedRowsOf = (rejected: readonly RejectedRow[]): FailedRow[] =>
  rejected.map(({ row, field, email, message }) => ({ row, ...(field ? { field } : {}), ...(email ? { email } : {}), message }));

/** What a response lists of the rejected rows: the first FAILED_ROWS_INLINE_MAX. */
export const inlineFailed = (rejected: readonly RejectedRow[]): FailedRow[] => failedRowsOf(rejected.slice(0, FAILED_ROWS_INLINE_MAX));

/**
 * The items that keep a project's full report: rows in order, split into parts of at most
 * REPORT_PART_MAX_BYTES, so any number of rejections fits (the response lists only the first few).
 * `partKey`: the creation's parts (the default), or an add's (keys.rejectedRowsAddPart).
 */
export function rejectedRowItems(userId: string, projectId: string, rejected: readonly RejectedRow[], partKey: (part: number) => { PK: string; SK: string } = (part) => keys.rejectedRowsPart(userId, projectId, part)): Item[] {
  const items: Item[] = [];
  let current: Cells[] = [];
  let size = 2;
  const flush = () => {
    items.push({ ...partKey(items.length), entityType: 'RejectedRows', count: current.length, rows: JSON.stringify(current) });
    current = [];
    size = 2;
  };
  for (const row of rejected) {
    const cells = cellsOf(row);
    const cellSize = Buffer.byteLength(JSON.stringify(cells)) + 1;
    if (current.length && size + cellSize > REPORT_PART_MAX_BYTES) flush();
    current.push(cells);
    size += cellSize;
  }
  if (current.length) flush();
  return items;
}

/** The parts of a report kept under `id` (a project's, or an uploaded file's checked first). */
export const reportParts = (deps: { db: DynamoDBDocumentClient; tableName: string }, userId: string, id: string) =>
  queryItems(deps.db, { TableName: deps.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.rejectedRowsOf(userId, id).PK }, ConsistentRead: true });

/** A report's parts back to rows, in order. */
export function reportRows(parts: readonly Record<string, unknown>[]): CsvRow[] {
  const rows: CsvRow[] = [];
  for (const part of parts) {
    for (const [row, firstName, lastName, email, message] of JSON.parse(String(part.rows)) as Cells[]) rows.push({ row, firstName, lastName, email, raw: [], issues: [{ message }] });
  }
  return rows;
}

/**
 * GET /api/projects/{id}/rejected-rows: every row of the project that was not created, as CSV
 * (the shared rejected-rows writer: formulas neutralised; BOM for spreadsheets, like the export). Rows refused up front come from the
 * project's report; rows a background job could not store from its chunk records. Then the rows
 * each later add of people refused, add by add (its rows numbered as in what was added).
 */
export const rejectedRowsReport =
  (deps: { db: DynamoDBDocumentClient; tableName: string }) =>
  async (userId: string, projectId: string): Promise<{ filename: string; body: string }> => {
    const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, projectId), ProjectionExpression: '#name', ExpressionAttributeNames: { '#name': 'name' } }));
    if (!project) throw new NotFoundError('Project not found');
    const [parts, chunks] = await Promise.all([
      reportParts(deps, userId, projectId),
      // A job's id is its project's id.
      queryItems(deps.db, {
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :chunks)',
        FilterExpression: 'failed > :zero',
        ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':chunks': `${keys.bulkJob(userId, projectId).SK}#CHUNK#`, ':zero': 0 },
        ProjectionExpression: 'failedRows, reason',
        ConsistentRead: true,
      }),
    ]);
    const isAdd = (part: Record<string, unknown>) => String(part.SK).startsWith('ADD#');
    const rows = reportRows(parts.filter((part) => !isAdd(part)));
    const add = (row: number, firstName: string, lastName: string, email: string, message: string) =>
      rows.push({ row, firstName, lastName, email, raw: [], issues: [{ message }] });
    for (const chunk of chunks) {
      const message = typeof chunk.reason === 'string' ? chunk.reason : NOT_STORED_MESSAGE;
      for (const r of (chunk.failedRows ?? []) as { row: number; firstName: string; lastName: string; email: string }[]) add(r.row, r.firstName, r.lastName, r.email, message);
    }
    rows.sort((a, b) => a.row - b.row);
    // `ADD#<time-ordered job id>#<part>`: the adds in the order they were made, each one's parts in order.
    rows.push(...reportRows(parts.filter(isAdd).sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1))));
    return { filename: `${safeFilename(String(project.name))}_rejected_rows.csv`, body: UTF8_BOM + rejectedRowsCsv(rows) };
  };
