import { personSchema, type FailedRow, type Person } from '../../shared/schemas/bulk';

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
