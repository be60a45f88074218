import { readPeopleCsv, type CsvRow } from '../../shared/csv/read-people';
import { personSchema, type FailedRow, type Person } from '../../shared/schemas/bulk';
import { ValidationError } from '../core/errors';
import { checkAttributes, type AccountAttributes } from '../../shared/schemas/attributes';
import type { RejectedRow } from './rejected-rows';

export interface CheckedRow extends Person {
  /** 1-based position in the request. */
  row: number;
  /** The person's extra columns (department, title...), normalised keys; absent when none. */
  attributes?: AccountAttributes;
}

/** What a request row may carry: the three fields and, optionally, its extra columns. */
export type RequestRow = { firstName: string; lastName: string; email: string; attributes?: Readonly<Record<string, string>> };

/**
 * Checks every row on its own (spec 5 messages) and flags an e-mail that repeats within the
 * request; valid rows are created, the others are reported with their reason.
 */
export function checkRows(rows: readonly RequestRow[]): { valid: CheckedRow[]; failed: FailedRow[]; rejected: RejectedRow[] } {
  const valid: CheckedRow[] = [];
  const failed: FailedRow[] = [];
  /** The same rows with the names sent, for the full report. */
  const rejected: RejectedRow[] = [];
  const reject = (input: { firstName: string; lastName: string }, row: FailedRow) => {
    failed.push(row);
    rejected.push({ ...row, firstName: input.firstName, lastName: input.lastName });
  };
  const firstRowOfEmail = new Map<string, number>();
  rows.forEach((input, index) => {
    const row = index + 1;
    const parsed = personSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path[0] as FailedRow['field'];
      reject(input, { row, field, message: issue.message, ...(input.email ? { email: input.email.slice(0, 254) } : {}) });
      return;
    }
    const extra = checkAttributes(input.attributes);
    if (extra.problems.length) {
      reject(input, { row, message: extra.problems.join('; '), email: parsed.data.email });
      return;
    }
    const key = parsed.data.email.toLowerCase();
    const first = firstRowOfEmail.get(key);
    if (first !== undefined) {
      reject(input, { row, field: 'email', email: parsed.data.email, message: `Duplicate email (also in row ${first})` });
      return;
    }
    firstRowOfEmail.set(key, row);
    valid.push({ row, ...parsed.data, ...(Object.keys(extra.attributes).length ? { attributes: extra.attributes } : {}) });
  });
  return { valid, failed, rejected };
}

/**
 * The bytes of a request's rows, as the decision between answering at once and a job counts them
 * (shared/bulk-limits.ts answersAtOnce): a CSV's text as sent, or each row's three fields and
 * their separators (what the same rows take as a CSV). Measured before anything is written.
 */
export function rowBytes(input: { csvText?: string; csvData?: readonly RequestRow[] }): number {
  if (input.csvText !== undefined) return Buffer.byteLength(input.csvText);
  let bytes = 0;
  for (const row of input.csvData ?? []) {
    bytes += Buffer.byteLength(row.firstName) + Buffer.byteLength(row.lastName) + Buffer.byteLength(row.email) + 3;
    // Each extra value and its separator, as the same row's CSV would carry it.
    for (const value of Object.values(row.attributes ?? {})) bytes += Buffer.byteLength(value) + 1;
  }
  return bytes;
}

/** One row of the shared CSV reader as the creation takes it: a person to create, or a rejected row with its problems. */
export function sortCsvRow(row: CsvRow): { valid: CheckedRow } | { rejected: RejectedRow } {
  const { issues, email, firstName, lastName, attributes } = row;
  if (issues.length === 0) return { valid: { row: row.row, firstName, lastName, email, ...(attributes && Object.keys(attributes).length ? { attributes } : {}) } };
  // The report puts the field's name before the message: only true when every problem is about that
  // one field. Problems with several fields are listed by their own messages, which name them.
  const field = issues[0]?.field;
  const oneField = field && issues.every((issue) => issue.field === field) ? field : undefined;
  return {
    rejected: {
      row: row.row,
      ...(oneField ? { field: oneField } : {}),
      ...(email ? { email: email.slice(0, 254) } : {}),
      message: issues.map((issue) => issue.message).join('; '),
      firstName,
      lastName,
    },
  };
}

/** The same, for a CSV file sent as text: read with the shared reader; rows are the file's lines. */
export function checkCsvText(text: string): { valid: CheckedRow[]; failed: FailedRow[]; rejected: RejectedRow[]; total: number } {
  const result = readPeopleCsv(text);
  if (result.fileError) throw new ValidationError(result.fileError);
  const valid: CheckedRow[] = [];
  const rejected: RejectedRow[] = [];
  for (const row of result.rows) {
    const sorted = sortCsvRow(row);
    if ('valid' in sorted) valid.push(sorted.valid);
    else rejected.push(sorted.rejected);
  }
  return { total: result.rows.length, valid, failed: rejected.map(({ firstName: _f, lastName: _l, ...failed }) => failed), rejected };
}
