/**
 * CSV writing (RFC 4180, CRLF line ends) with the OWASP guard against formula injection:
 * a spreadsheet must never see a cell from user data as a formula.
 */

export type CsvValue = string | number | boolean | null | undefined;

/** Prepend to the file so Excel reads it as UTF-8 (accents in names). */
export const UTF8_BOM = '\uFEFF';

/** Columns of the accounts export and of the bulk dialog's download (spec 7). */
export const ACCOUNT_CSV_HEADER = ['First Name', 'Last Name', 'Email', 'Username', 'Password'] as const;

/**
 * OWASP's list (= + - @ tab CR), plus the full-width forms of the first four, which some
 * spreadsheet apps also read as the start of a formula.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const NEEDS_QUOTES = /[",\r\n]|^[ \t]|[ \t]$/;

/** A value that a spreadsheet would take as a formula gets a leading apostrophe, which makes it text. */
export function neutraliseFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** One cell: strings neutralised, then quoted when needed (comma, quote, CR, LF, edge spaces), quotes doubled. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = neutraliseFormula(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, ending in CRLF. */
export function csvLine(values: readonly CsvValue[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}

/** A whole file without BOM (prepend UTF8_BOM for a download meant for Excel). */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const lines = [csvLine(header)];
  for (const row of rows) lines.push(csvLine(row));
  return lines.join('');
}
