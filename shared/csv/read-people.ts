import { CSV_MAX_BYTES, MAX_ROWS_PER_REQUEST, personSchema } from '../schemas/bulk';
import { csvRecordStream, readCsvRecords, type CsvRecordHandler } from './read-records';
import { toCsv } from './write-csv';
import { attributeKey, checkAttributes, type AccountAttributes } from '../schemas/attributes';

/**
 * Reading the people of a bulk-creation CSV (spec 5, issue 3). The browser runs it for the
 * preview and the server for the truth, so both report the same rows and messages.
 */

export type PersonField = 'firstName' | 'lastName' | 'email';

export interface CsvRowIssue {
  field?: PersonField;
  message: string;
}

export interface CsvRow {
  /** 1-based line of the file on which the record starts, header and blank lines counted. */
  row: number;
  firstName: string;
  lastName: string;
  email: string;
  /** The record's cells as parsed, untrimmed. */
  raw: string[];
  /**
   * The row's other columns (a file with a header only): department, title... under normalised
   * keys (shared/schemas/attributes.ts), empty cells left out.
   */
  attributes?: AccountAttributes;
  issues: CsvRowIssue[];
}

export interface CsvReadResult {
  /** Every data row, valid or not, in file order. */
  rows: CsvRow[];
  valid: CsvRow[];
  invalid: CsvRow[];
  header: boolean;
  /** Set when the file as a whole cannot be used; rows are then empty. */
  fileError?: string;
}

const MB = 1024 * 1024;

/** Every message the reader gives, so callers can tell them apart (toast titles) without copying text. */
export const csvMessages = {
  notCsv: 'Please upload a CSV file.',
  noData: 'Please upload a CSV file with user data.',
  missingColumns: 'The CSV needs First Name, Last Name and Email columns.',
  badQuotes: 'Unclosed or misplaced quote ("): put the whole value in quotes and double each quote inside it',
  tooManyRows: (rows: number, limit: number) =>
    `The file has ${rows.toLocaleString('en-US')} rows; the limit is ${limit.toLocaleString('en-US')} per file.`,
  /** A streamed file stops being read at the first row over the limit. */
  moreRowsThan: (limit: number) => `The file has more than ${limit.toLocaleString('en-US')} rows; the limit is ${limit.toLocaleString('en-US')} per file.`,
  tooLarge: (bytes: number, limit: number = CSV_MAX_BYTES) =>
    `The file is ${(Math.ceil((bytes / MB) * 10) / 10).toLocaleString('en-US')} MB; the limit is ${limit / MB} MB.`,
  duplicateEmail: (firstRow: number) => `Duplicate email (also in row ${firstRow})`,
} as const;

const FIELDS: readonly PersonField[] = ['firstName', 'lastName', 'email'];

/** Header spellings, compared as lower-case letters only ('First Name', 'first_name', 'firstName' -> 'firstname'). */
const HEADER_ALIASES: Readonly<Record<PersonField, readonly string[]>> = {
  firstName: ['firstname', 'first', 'givenname', 'given', 'forename', 'fname'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'family', 'lname'],
  email: ['email', 'emailaddress', 'mail', 'mailaddress', 'emailid'],
};
/** Looser matches, used only for a field no column names exactly ('First Name (required)'). */
const HEADER_HINTS: Readonly<Record<PersonField, RegExp>> = {
  firstName: /first|given|forename/,
  lastName: /last|surname|family/,
  email: /mail/,
};

const headerKey = (cell: string) => cell.toLowerCase().replace(/[^a-z]/g, '');
const exactHeaderField = (cell: string): PersonField | undefined => {
  const key = headerKey(cell);
  return FIELDS.find((field) => HEADER_ALIASES[field].includes(key));
};

/** Whether a header cell names one of the person's own fields (first name, last name, e-mail) by a usual spelling. */
export const namesPersonField = (cell: string): boolean => exactHeaderField(cell) !== undefined;

/**
 * The spec's rule (the first line is a header when it contains 'first') plus header names
 * without 'first' ('Given Name', 'Surname', 'E-mail'). A line holding an address is a person,
 * even when the address contains 'first' (first.last@example.com); a header may still show an
 * example address in its e-mail column ('Email (name@company.com)').
 */
function isHeader(cells: readonly string[]): boolean {
  const holdsAddress = (cell: string) =>
    cell.includes('@') && (!/mail/i.test(cell) || personSchema.shape.email.safeParse(cell).success);
  if (cells.some(holdsAddress)) return false;
  return cells.some((cell) => /first/i.test(cell) || exactHeaderField(cell) !== undefined);
}

/** A header's other columns: each one's index and attribute key (the first of two columns with one key wins). */
export type ExtraColumns = readonly { index: number; key: string }[];

function extraColumns(cells: readonly string[], columns: Record<PersonField, number>, skip: readonly number[] = []): ExtraColumns {
  const used = new Set([...Object.values(columns), ...skip]);
  const seen = new Set<string>();
  const extras: { index: number; key: string }[] = [];
  cells.forEach((cell, index) => {
    if (used.has(index)) return;
    const key = attributeKey(cell);
    if (!key || seen.has(key)) return;
    seen.add(key);
    extras.push({ index, key });
  });
  return extras;
}

/**
 * A header's extra columns as the reader keeps them (none when the header lacks a field), leaving
 * out the columns at `skip`: a sync's id column names the account, it is no attribute.
 */
export function headerExtraColumns(cells: readonly string[], skip: readonly number[] = []): ExtraColumns {
  const columns = mapHeader(cells);
  return columns ? extraColumns(cells, columns, skip) : [];
}

/** Column index of each field, or undefined when the header lacks one. */
function mapHeader(cells: readonly string[]): Record<PersonField, number> | undefined {
  const columns: Partial<Record<PersonField, number>> = {};
  cells.forEach((cell, index) => {
    const field = exactHeaderField(cell);
    if (field && columns[field] === undefined) columns[field] = index;
  });
  for (const field of FIELDS) {
    if (columns[field] !== undefined) continue;
    const index = cells.findIndex(
      (cell, i) => HEADER_HINTS[field].test(headerKey(cell)) && !Object.values(columns).includes(i),
    );
    if (index >= 0) columns[field] = index;
  }
  const { firstName, lastName, email } = columns;
  return firstName === undefined || lastName === undefined || email === undefined ? undefined : { firstName, lastName, email };
}

const isBlank = (cells: readonly string[]) => cells.every((cell) => cell.trim() === '');

/**
 * Comma as the spec says; a file whose first record splits into three or more fields only on
 * ';' or tab (Excel's "CSV" in many European locales) is read with that delimiter instead.
 */
function detectDelimiter(text: string): string {
  // The opening 16 KB hold the first record of any sensible file.
  const start = text.slice(0, 16 * 1024);
  for (const delimiter of [',', ';', '\t']) {
    let first: string[] | undefined;
    readCsvRecords(start, delimiter, (cells) => {
      if (isBlank(cells)) return true;
      first = cells;
      return false;
    });
    if (first && first.length >= 3) return delimiter;
  }
  return ',';
}

const fileFailure = (fileError: string, header = false): CsvReadResult => ({ rows: [], valid: [], invalid: [], header, fileError });

/**
 * Checks one record against the spec's rules; `firstRowOfEmail` carries the file's e-mails seen so
 * far (none: repeats are not looked for, see peopleCsvStream).
 */
function checkRecord(row: number, cells: string[], columns: Record<PersonField, number>, firstRowOfEmail: Map<string, number> | undefined, extras: ExtraColumns = []): CsvRow {
  const firstName = (cells[columns.firstName] ?? '').trim();
  const lastName = (cells[columns.lastName] ?? '').trim();
  const email = (cells[columns.email] ?? '').trim();
  const issues: CsvRowIssue[] = [];
  const checked = personSchema.safeParse({ firstName, lastName, email });
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const field = issue.path[0] as PersonField;
      if (!issues.some((known) => known.field === field)) issues.push({ field, message: issue.message });
    }
  }
  const extra = recordAttributes(cells, extras);
  for (const message of extra.problems) issues.push({ message });
  if (firstRowOfEmail && !issues.some((issue) => issue.field === 'email')) {
    const key = email.toLowerCase();
    const firstRow = firstRowOfEmail.get(key);
    if (firstRow === undefined) firstRowOfEmail.set(key, row);
    else issues.push({ field: 'email', message: csvMessages.duplicateEmail(firstRow) });
  }
  return { row, firstName, lastName, email, raw: cells, issues, ...(Object.keys(extra.attributes).length ? { attributes: extra.attributes } : {}) };
}

/** A record's other columns as the account keeps them, with the problems that reject the row. */
export function recordAttributes(cells: readonly string[], extras: ExtraColumns) {
  if (!extras.length) return { attributes: {}, problems: [] };
  const values: Record<string, string> = {};
  for (const { index, key } of extras) values[key] = cells[index] ?? '';
  return checkAttributes(values);
}

/**
 * A line whose quoting is malformed: rejected for that alone. Its cells are only the line split
 * at the delimiter, so its values are shown as typed and its e-mail is not taken as seen.
 */
function badQuoteRecord(row: number, cells: string[], columns: Record<PersonField, number>): CsvRow {
  const value = (field: PersonField) => (cells[columns[field]] ?? '').trim();
  return {
    row,
    firstName: value('firstName'),
    lastName: value('lastName'),
    email: value('email'),
    raw: cells,
    issues: [{ message: csvMessages.badQuotes }],
  };
}

/**
 * The rules of a people file, record by record (header, blank lines, columns, each row's checks,
 * repeated e-mails), shared by the whole-text reader and the streaming one. `onRow` gets each data
 * row while the file is within `maxRows`; past it, `stopAtLimit` stops the reading (a stream),
 * otherwise the rows are only counted (the message then says how many).
 */
function peopleRecords(maxRows: number, onRow: (row: CsvRow) => void, onOverLimit: () => void, stopAtLimit: boolean, repeats = true, onHeader?: (cells: string[]) => void) {
  let seenFirstRecord = false;
  let header = false;
  let columns: Record<PersonField, number> | undefined = { firstName: 0, lastName: 1, email: 2 };
  let extras: ExtraColumns = [];
  let dataRows = 0;
  let firstRowOfEmail = repeats ? new Map<string, number>() : undefined;
  const onRecord: CsvRecordHandler = (cells, line, badQuote) => {
    if (isBlank(cells)) return true;
    if (!seenFirstRecord) {
      seenFirstRecord = true;
      if (isHeader(cells)) {
        header = true;
        columns = mapHeader(cells);
        if (columns) extras = extraColumns(cells, columns);
        onHeader?.(cells);
        return columns !== undefined;
      }
    }
    dataRows++;
    if (dataRows <= maxRows) {
      onRow(badQuote ? badQuoteRecord(line, cells, columns!) : checkRecord(line, cells, columns!, firstRowOfEmail, extras));
      return true;
    }
    if (dataRows === maxRows + 1) {
      onOverLimit();
      if (firstRowOfEmail) firstRowOfEmail = new Map();
    }
    return !stopAtLimit;
  };
  const outcome = (): { header: boolean; dataRows: number; fileError?: string } => {
    if (!columns) return { header, dataRows, fileError: csvMessages.missingColumns };
    if (dataRows === 0) return { header, dataRows, fileError: csvMessages.noData };
    if (dataRows > maxRows) return { header, dataRows, fileError: stopAtLimit ? csvMessages.moreRowsThan(maxRows) : csvMessages.tooManyRows(dataRows, maxRows) };
    return { header, dataRows };
  };
  return { onRecord, outcome };
}

/**
 * Reads people from CSV text: a header (any order, common spellings) or the columns first name,
 * last name, e-mail; blank lines skipped; values trimmed; each row checked with the spec's
 * messages; a repeated e-mail (case-insensitive) flagged on every occurrence after the first; a
 * line with a malformed quote rejected on its own, the lines after it read as usual.
 * Every non-blank record after the header is one row, valid or invalid.
 */
export function readPeopleCsv(text: string, options: { maxRows?: number } = {}): CsvReadResult {
  const maxRows = options.maxRows ?? MAX_ROWS_PER_REQUEST;
  // One line end everywhere, so a file mixing them is read line by line all the same.
  const source = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n');
  const rows: CsvRow[] = [];
  // Records are handed over one at a time, so a file of millions of tiny lines is counted
  // without being held in memory; false stops at a header without the needed columns.
  const people = peopleRecords(maxRows, (row) => rows.push(row), () => (rows.length = 0), false);
  readCsvRecords(source, detectDelimiter(source), people.onRecord);
  const { header, fileError } = people.outcome();
  if (fileError) return fileFailure(fileError, header);
  return {
    rows,
    valid: rows.filter((row) => row.issues.length === 0),
    invalid: rows.filter((row) => row.issues.length > 0),
    header,
  };
}

/** Characters a streamed file is looked at before its delimiter is chosen (detectDelimiter reads as many). */
const DELIMITER_SAMPLE_CHARS = 16 * 1024;

/**
 * The same reading for text that arrives in pieces (an uploaded file's stream): the same rows,
 * line numbers and messages as readPeopleCsv gives for the whole text, handed to `onRow` one at
 * a time and never kept here, so memory stays flat whatever the file's size. The reading stops
 * at the first row over `maxRows` (or at a header without the needed columns); `end()` says how
 * it went. `repeats: false` skips the one rule that needs memory per row (a repeated e-mail): for
 * a second reading of a file whose first reading found its repeats (functions/bulk/bulk-uploads.ts).
 */
export function peopleCsvStream(options: { maxRows: number; onRow: (row: CsvRow) => void; repeats?: boolean; onHeader?: (cells: string[]) => void }) {
  const people = peopleRecords(options.maxRows, options.onRow, () => undefined, true, options.repeats ?? true, options.onHeader);
  let records: ReturnType<typeof csvRecordStream> | undefined;
  let sample = '';
  let started = false;
  let carriageReturn = false;
  let stopped = false;
  const feed = (text: string, last: boolean) => {
    if (!records) {
      sample += text;
      if (sample.length < DELIMITER_SAMPLE_CHARS && !last) return;
      records = csvRecordStream(detectDelimiter(sample), people.onRecord);
      text = sample;
      sample = '';
    }
    if (text && !records.push(text)) stopped = true;
  };
  return {
    /** A piece of the text; false once the reading has stopped (the rest need not be read). */
    push(piece: string): boolean {
      if (stopped) return false;
      let text = piece;
      if (!started && text) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      // Line ends as readPeopleCsv makes them; a '\r' at a piece's end waits for the next piece's first character.
      if (carriageReturn) text = `\r${text}`;
      carriageReturn = text.endsWith('\r');
      if (carriageReturn) text = text.slice(0, -1);
      feed(text.replace(/\r\n?/g, '\n'), false);
      return !stopped;
    },
    end(): { header: boolean; dataRows: number; fileError?: string } {
      if (!stopped) {
        feed(carriageReturn ? '\n' : '', true);
        records?.end();
      }
      return people.outcome();
    },
  };
}

/** Types browsers give CSV files; Windows often says application/vnd.ms-excel, which the name check covers. */
const CSV_TYPES = ['text/csv', 'application/csv', 'text/x-csv'];

/**
 * Checks a chosen file before reading it: type text/csv or a name ending .csv, and at most
 * `maxBytes` (CSV_MAX_BYTES; the bulk dialog takes larger files through an upload to S3).
 */
export function checkCsvFile(file: { name: string; type: string; size: number }, maxBytes: number = CSV_MAX_BYTES): string | undefined {
  const type = file.type.split(';')[0]!.trim().toLowerCase();
  if (!CSV_TYPES.includes(type) && !file.name.toLowerCase().endsWith('.csv')) return csvMessages.notCsv;
  if (file.size > maxBytes) return csvMessages.tooLarge(file.size, maxBytes);
  return undefined;
}

export const REJECTED_ROWS_CSV_HEADER = ['Row', 'First Name', 'Last Name', 'Email', 'Problem'] as const;

/** The invalid rows with their problems, to download, fix and upload again (readPeopleCsv maps its header). */
export function rejectedRowsCsv(invalid: readonly CsvRow[]): string {
  return toCsv(
    REJECTED_ROWS_CSV_HEADER,
    invalid.map((row) => [row.row, row.firstName, row.lastName, row.email, row.issues.map((issue) => issue.message).join('; ')]),
  );
}
