import type { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import type ExcelJSModule from 'exceljs';
import { EXPORT_COLUMNS, type ExportFormat, type ExportRecord, type ExportRow } from '../../shared/exports';
import { UTF8_BOM, csvLine, neutraliseFormula } from '../../shared/csv/write-csv';
import { drained, end, write } from './output-stream';
import { attributeLabel } from '../../shared/schemas/attributes';

/**
 * exceljs ships in a Lambda layer, not in the bundle (lib/package-layer.ts); `require` resolves it
 * through Lambda's NODE_PATH (/opt/nodejs/node_modules), and through node_modules locally.
 */
let excelJs: typeof ExcelJSModule | undefined;
/** Loaded on the first xlsx export only: csv and json exports (and cold starts) don't pay for it. */
const loadExcelJs = (): typeof ExcelJSModule => (excelJs ??= createRequire(import.meta.url)('exceljs') as typeof ExcelJSModule);

/** Rows arrive a page at a time (one DynamoDB page), so memory holds one page, never the project. */
export type RowPages = AsyncIterable<readonly ExportRecord[]>;
/**
 * Writes the file to `out` with backpressure, ends `out`, answers the number of rows written.
 * `attributeKeys`: the extra columns (department, title...), after the standard ones, in this order
 * (known before the first row: the project's attributeKeys); an account without one has it empty.
 */
export type ExportWriter = (pages: RowPages, out: Writable, options?: { attributeKeys?: readonly string[] }) => Promise<number>;

const cellsOf = (row: ExportRecord, attributeKeys: readonly string[] = []): string[] => [
  ...EXPORT_COLUMNS.map((column) => row[column.key]),
  ...attributeKeys.map((key) => row.attributes?.[key] ?? ''),
];
const headersOf = (attributeKeys: readonly string[] = []): string[] => [...EXPORT_COLUMNS.map((c) => c.header), ...attributeKeys.map(attributeLabel)];

/**
 * A CSV file of a header and rows of cells, page after page with backpressure: RFC 4180 through
 * the shared csvLine (formula guard included), UTF-8 with BOM for Excel. Ends `out`, answers the rows written.
 */
export async function writeCsvTable(header: readonly string[], pages: AsyncIterable<readonly (readonly string[])[]>, out: Writable): Promise<number> {
  await write(out, UTF8_BOM + csvLine(header));
  let rows = 0;
  for await (const page of pages) {
    let chunk = '';
    for (const cells of page) chunk += csvLine(cells);
    rows += page.length;
    if (chunk) await write(out, chunk);
  }
  await end(out);
  return rows;
}

async function* cellPages(pages: RowPages, attributeKeys: readonly string[] | undefined): AsyncIterable<string[][]> {
  for await (const page of pages) yield page.map((row) => cellsOf(row, attributeKeys));
}

/** The accounts' CSV (extra columns too, after the standard ones). */
export const writeCsv: ExportWriter = (pages, out, options = {}) => writeCsvTable(headersOf(options.attributeKeys), cellPages(pages, options.attributeKeys), out);

/**
 * A JSON array, one object per account with the EXPORT_COLUMNS keys in order, then its extra
 * columns as one `attributes` object (only those it has; none: no key); values as stored.
 */
export const writeJson: ExportWriter = async (pages, out) => {
  await write(out, '[');
  let rows = 0;
  for await (const page of pages) {
    let chunk = '';
    for (const row of page) {
      const record: Record<string, string> = {};
      for (const column of EXPORT_COLUMNS) record[column.key] = row[column.key];
      if (row.attributes && Object.keys(row.attributes).length) (record as Record<string, unknown>).attributes = row.attributes;
      chunk += (rows === 0 ? '\n' : ',\n') + JSON.stringify(record);
      rows++;
    }
    if (chunk) await write(out, chunk);
  }
  await write(out, '\n]\n');
  await end(out);
  return rows;
};

/** Characters XML 1.0 cannot hold (an xlsx is XML): control characters other than tab, LF, CR; lone surrogates; U+FFFE/U+FFFF. */
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * One xlsx cell: always a plain string (exceljs writes a string as text, never as a formula), with
 * the same formula guard as csv so a copy into another sheet or a csv stays harmless, and the
 * characters XML cannot carry replaced by U+FFFD.
 */
export const xlsxText = (value: string): string => neutraliseFormula(value).replace(XML_INVALID, '\uFFFD');

const COLUMN_WIDTHS: Record<ExportRow extends Record<infer K, string> ? K : never, number> = {
  firstName: 16,
  lastName: 18,
  email: 32,
  username: 22,
  password: 20,
  projectName: 24,
  accountType: 18,
  createdAt: 26,
  externalStatus: 16,
};

/**
 * The stream a streaming sheet's XML goes into on its way to the zip: exceljs 4.4 writes the sheet
 * into its own buffer (a StreamBuf, `sheet.stream`), which hands every 64 KB on to the zip entry's
 * input (archiver wraps it in a PassThrough, piped to the deflater, the zip, then `out`) without
 * looking at write()'s answer: that input is where bytes pile up when the zip or the upload is
 * slower than the rows come. Its needDrain is the backpressure exceljs does not pass on. Not public
 * API: should an exceljs upgrade move it, every xlsx export fails at once with this message (the
 * unit tests run it) rather than losing the bound.
 */
function zipInputOf(sheet: ExcelJSModule.Worksheet): Writable {
  const input = (sheet as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as Writable | undefined;
  if (!input || typeof input.write !== 'function' || typeof input.on !== 'function') throw new Error("exceljs's streaming sheet no longer pipes into the zip as expected (export-writers.ts zipInputOf)");
  return input;
}

/**
 * Streaming xlsx (exceljs WorkbookWriter): one sheet 'Accounts', bold frozen header, text-formatted
 * columns; each row is committed at once. After each page the writer waits until the zip has taken
 * the sheet's XML (the zip waits on `out`, the upload): the next page is read only then, so memory
 * holds about one page of XML, however slow the zip or the upload.
 */
export const writeXlsx: ExportWriter = async (pages, out, options = {}) => {
  const workbook = new (loadExcelJs().stream.xlsx.WorkbookWriter)({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Accounts', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = [
    ...EXPORT_COLUMNS.map((column) => ({ key: column.key, width: COLUMN_WIDTHS[column.key], style: { numFmt: '@' } })),
    ...(options.attributeKeys ?? []).map((key) => ({ key: `attribute:${key}`, width: 18, style: { numFmt: '@' } })),
  ];
  const header = sheet.addRow(headersOf(options.attributeKeys));
  header.font = { bold: true };
  header.commit();
  const zipInput = zipInputOf(sheet);
  let rows = 0;
  for await (const page of pages) {
    for (const row of page) sheet.addRow(cellsOf(row, options.attributeKeys).map(xlsxText)).commit();
    rows += page.length;
    await drained(zipInput);
  }
  sheet.commit();
  await workbook.commit();
  return rows;
};

export const exportWriters: Record<ExportFormat, ExportWriter> = { csv: writeCsv, xlsx: writeXlsx, json: writeJson };
