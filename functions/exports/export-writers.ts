import type { Writable } from 'node:stream';
import { EXPORT_COLUMNS, type ExportFormat, type ExportRecord, type ExportRow } from '../../shared/exports';
import { UTF8_BOM, csvLine, neutraliseFormula } from '../../shared/csv/write-csv';
import { end, write } from './output-stream';
import { zipOutput } from './zip-output';
import { attributeLabel } from '../../shared/schemas/attributes';

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

/**
 * Characters an xlsx cell does not hold: those XML 1.0 cannot (control characters other than tab,
 * LF, CR; lone surrogates; U+FFFE/U+FFFF) and DEL, which exceljs and Excel's own files never carry.
 * (The writer used to drop DEL silently while the cell's documented value kept it.)
 */
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

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

/** Escapes text for XML as exceljs does (its reader reads the file back the same way): the five entities. */
const XML_ESCAPES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&apos;', '<': '&lt;', '>': '&gt;' };
const xmlEscape = (text: string): string => text.replace(/["&'<>]/g, (char) => XML_ESCAPES[char]!);

/** A1-style column letters: 1 → A, 27 → AA. */
function columnName(index: number): string {
  let name = '';
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
/**
 * The workbook around the one sheet: content types, relationships, the workbook and its styles
 * (cellXfs 1: text format '@'; 3: text and bold, the header; fonts 0 Calibri 11, 1 the same bold).
 */
const XLSX_PARTS: readonly (readonly [string, string])[] = [
  [
    '[Content_Types].xml',
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
  ],
  ['_rels/.rels', `${XML_HEAD}<Relationships xmlns="${PACKAGE_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`],
  [
    'xl/workbook.xml',
    `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><bookViews><workbookView/></bookViews><sheets><sheet name="Accounts" sheetId="1" state="visible" r:id="rId2"/></sheets></workbook>`,
  ],
  [
    'xl/_rels/workbook.xml.rels',
    `${XML_HEAD}<Relationships xmlns="${PACKAGE_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/styles" Target="styles.xml"/><Relationship Id="rId2" Type="${REL_NS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
  ],
  [
    'xl/styles.xml',
    `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}"><fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>` +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
      '<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
      '<xf numFmtId="49" fontId="1" fillId="0" borderId="0" xfId="0" applyNumberFormat="1" applyFont="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>',
  ],
];
const TEXT_STYLE = 1;
const HEADER_STYLE = 3;

/** One row of text cells (`t="str"`, as exceljs writes text without shared strings). */
function rowXml(r: number, cells: readonly string[], style: number): string {
  let xml = style === HEADER_STYLE ? `<row r="${r}" s="${style}" customFormat="1">` : `<row r="${r}">`;
  for (let c = 0; c < cells.length; c++) xml += `<c r="${columnName(c + 1)}${r}" s="${style}" t="str"><v>${xmlEscape(cells[c]!)}</v></c>`;
  return `${xml}</row>`;
}

/**
 * xlsx, written directly: one sheet 'Accounts' with a bold frozen header and text-formatted columns
 * of set widths, every cell a text cell (formula guard and XML-invalid characters: xlsxText). The
 * sheet's XML is written page after page into a streamed zip entry with backpressure (zip-output.ts):
 * the next page is read only once the zip and `out` (the upload) have room, so memory holds about
 * a page and the zip's buffers however large the project. (exceljs's streaming writer, used before,
 * built cell and row objects per cell and passed no backpressure from its zip to the writer.)
 */
export const writeXlsx: ExportWriter = async (pages, out, options = {}) => {
  const keys = options.attributeKeys ?? [];
  const widths = [...EXPORT_COLUMNS.map((column) => COLUMN_WIDTHS[column.key]), ...keys.map(() => 18)];
  const cols = widths.map((width, i) => `<col min="${i + 1}" max="${i + 1}" width="${width}" style="${TEXT_STYLE}" customWidth="1"/>`).join('');
  // Level 1, as exceljs wrote: the sheet's XML compresses about 5:1 at a fraction of level 6's CPU.
  const zip = zipOutput(out, new Date(), 1);
  for (const [name, content] of XLSX_PARTS) zip.text(name, content);
  let rows = 0;
  await zip.streamed('xl/worksheets/sheet1.xml', async (entry) => {
    await write(
      entry,
      `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/></sheetView></sheetViews>` +
        `<sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData>${rowXml(1, headersOf(keys).map(xlsxText), HEADER_STYLE)}`,
    );
    for await (const page of pages) {
      let chunk = '';
      for (const row of page) chunk += rowXml(++rows + 1, cellsOf(row, keys).map(xlsxText), TEXT_STYLE);
      if (chunk) await write(entry, chunk);
    }
    await write(entry, '</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>');
    await end(entry);
  });
  await zip.finish();
  return rows;
};

export const exportWriters: Record<ExportFormat, ExportWriter> = { csv: writeCsv, xlsx: writeXlsx, json: writeJson };
