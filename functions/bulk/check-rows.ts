import { readPeopleCsv } from '../../shared/csv/read-people';
import { personSchema, type FailedRow, type Person } from '../../shared/schemas/bulk';
import { ValidationError } from '../core/errors';

export interface CheckedRow extends Person {
  /** 1-based position in the request. */
  row: number;
}

/**
 * Checks every row on its own (spec 5 messages) and flags an e-mail that repeats within the
 * request; valid rows are created, the others are reported with their reason.
 */
export function checkRows(rows: readonly { firstName: string; lastName: string; email: string }[]): { valid: CheckedRow[]; failed: FailedRow[] } {
  const valid: CheckedRow[] = [];
  const failed: FailedRow[] = [];
  const firstRowOfEmail = new Map<string, number>();
  rows.forEach((input, index) => {
    const row = index + 1;
    const parsed = personSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path[0] as FailedRow['field'];
      failed.push({ row, field, message: issue.message, ...(input.email ? { email: input.email.slice(0, 254) } : {}) });
      return;
    }
    const key = parsed.data.email.toLowerCase();
    const first = firstRowOfEmail.get(key);
    if (first !== undefined) {
      failed.push({ row, field: 'email', email: parsed.data.email, message: `Duplicate email (also in row ${first})` });
      return;
    }
    firstRowOfEmail.set(key, row);
    valid.push({ row, ...parsed.data });
  });
  return { valid, failed };
}

/** The same, for a CSV file sent as text: read with the shared reader; rows are the file's lines. */
export function checkCsvText(text: string): { valid: CheckedRow[]; failed: FailedRow[]; total: number } {
  const result = readPeopleCsv(text);
  if (result.fileError) throw new ValidationError(result.fileError);
  return {
    total: result.rows.length,
    valid: result.valid.map(({ row, firstName, lastName, email }) => ({ row, firstName, lastName, email })),
    failed: result.invalid.map(({ row, email, issues }) => ({
      row,
      ...(issues[0]?.field ? { field: issues[0].field } : {}),
      ...(email ? { email: email.slice(0, 254) } : {}),
      message: issues.map((issue) => issue.message).join('; '),
    })),
  };
}
