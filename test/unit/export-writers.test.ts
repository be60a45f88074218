import { randomBytes } from 'node:crypto';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Papa from 'papaparse';
import ExcelJS from 'exceljs';
import { EXPORT_COLUMNS, type ExportRow } from '../../shared/schemas/export';
import { UTF8_BOM, neutraliseFormula } from '../../shared/csv/write-csv';
import { writeCsv, writeJson, writeXlsx, xlsxText, type ExportWriter } from '../../functions/exports/export-writers';

const KEYS = EXPORT_COLUMNS.map((c) => c.key);
const HEADERS = EXPORT_COLUMNS.map((c) => c.header);
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];

/** Any text: every Unicode code point (no lone surrogates), formula starts, quotes, line breaks. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('"', ',', '\r', '\n', ' ', '\t', "'", '&', '<', ';', 'a', 'é', '😀', '\x7F', '\u0000'), maxLength: 12 }),
  fc.tuple(fc.constantFrom(...FORMULA_STARTS), fc.string({ maxLength: 10 })).map(([start, rest]) => start + rest),
  fc.constantFrom('=HYPERLINK("http://evil.example","x")', "@SUM(1+1)*cmd|' /C calc'!A0", '-2+3', '=1+1', '007', '1e5', 'TRUE', '2024-01-01'),
);
const anyRow = fc.record(Object.fromEntries(KEYS.map((k) => [k, anyText])) as Record<keyof ExportRow, fc.Arbitrary<string>>) as fc.Arbitrary<ExportRow>;
/** Rows split into pages of random sizes, as the Query delivers them. */
const anyPages = fc.array(fc.array(anyRow, { maxLength: 6 }), { maxLength: 4 });

async function* pagesOf(pages: readonly (readonly ExportRow[])[]) {
  for (const page of pages) yield page;
}

async function run(writer: ExportWriter, pages: readonly (readonly ExportRow[])[]): Promise<{ file: Buffer; count: number }> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const count = await writer(pagesOf(pages), out);
  return { file: Buffer.concat(chunks), count };
}

const cellsOf = (row: ExportRow) => KEYS.map((k) => row[k]);

const readCsv = (file: Buffer): string[][] => {
  const text = file.toString('utf8');
  expect(text.startsWith(UTF8_BOM)).toBe(true);
  const data = Papa.parse<string[]>(text.slice(1), { delimiter: ',', newline: '\r\n' }).data;
  // The file ends with CRLF: papaparse reports one empty record after it.
  expect(data.at(-1)).toEqual(['']);
  return data.slice(0, -1);
};

async function readXlsx(file: Buffer): Promise<{ rows: string[][]; sheet: ExcelJS.Worksheet; types: number[] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(file as never);
  const sheet = workbook.getWorksheet('Accounts')!;
  const rows: string[][] = [];
  const types: number[] = [];
  for (let r = 1; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    rows.push(
      KEYS.map((_, c) => {
        const cell = row.getCell(c + 1);
        types.push(cell.type);
        return cell.value === null || cell.value === undefined ? '' : (cell.value as string);
      }),
    );
  }
  return { rows, sheet, types };
}

/**
 * What an xlsx cell reads back as: the writer's text (formula guard, XML-invalid characters
 * replaced), after XML's line-end normalisation (CR LF and lone CR become LF) and exceljs's
 * reader, which decodes entity-looking text once more (the file itself holds `&amp;lt;`).
 */
const xlsxReadBack = (value: string) =>
  xlsxText(value)
    .replace(/\r\n?/g, '\n')
    .replace(/&(lt|gt|amp|apos|quot);/g, (_, name: string) => ({ lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' })[name]!);

const EXCEL_TYPE_STRING = ExcelJS.ValueType.String;
const EXCEL_TYPE_NULL = ExcelJS.ValueType.Null;

describe('csv export writer', () => {
  it('round-trips any text through papaparse, apart from the formula guard', async () => {
    await fc.assert(
      fc.asyncProperty(anyPages, async (pages) => {
        const { file, count } = await run(writeCsv, pages);
        const rows = pages.flat();
        expect(count).toBe(rows.length);
        expect(readCsv(file)).toEqual([HEADERS, ...rows.map((row) => cellsOf(row).map(neutraliseFormula))]);
      }),
      { numRuns: 200 },
    );
  });

  it('neutralises cells that a spreadsheet would read as formulas', async () => {
    const row = Object.fromEntries(KEYS.map((k, i) => [k, ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("x")', 'plain', 'a=b'][i]!])) as ExportRow;
    const [, cells] = readCsv((await run(writeCsv, [[row]])).file);
    expect(cells).toEqual(["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\t=1", "'\r=1", '\'=HYPERLINK("x")', 'plain', 'a=b']);
  });

  it('writes the header alone for a project without accounts', async () => {
    expect((await run(writeCsv, [])).file.toString('utf8')).toBe(`${UTF8_BOM}${HEADERS.join(',')}\r\n`);
  });
});

describe('json export writer', () => {
  it('writes a JSON array that parses back to the rows, values unchanged', async () => {
    const withLoneSurrogates = fc.oneof(anyText, fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 3 }));
    const rowsArb = fc.array(fc.array(fc.record(Object.fromEntries(KEYS.map((k) => [k, withLoneSurrogates])) as Record<keyof ExportRow, fc.Arbitrary<string>>), { maxLength: 6 }), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(rowsArb as fc.Arbitrary<ExportRow[][]>, async (pages) => {
        const { file, count } = await run(writeJson, pages);
        const rows = pages.flat();
        expect(count).toBe(rows.length);
        const parsed = JSON.parse(file.toString('utf8')) as Record<string, string>[];
        expect(parsed).toEqual(rows.map((row) => Object.fromEntries(KEYS.map((k) => [k, row[k]]))));
        for (const object of parsed) expect(Object.keys(object)).toEqual(KEYS);
      }),
      { numRuns: 200 },
    );
  });

  it('writes an empty array for a project without accounts', async () => {
    expect(JSON.parse((await run(writeJson, [])).file.toString('utf8'))).toEqual([]);
  });
});

describe('xlsx export writer', () => {
  it('round-trips any text through exceljs as text cells, apart from the formula guard', async () => {
    await fc.assert(
      fc.asyncProperty(anyPages, async (pages) => {
        const { file, count } = await run(writeXlsx, pages);
        const rows = pages.flat();
        expect(count).toBe(rows.length);
        const read = await readXlsx(file);
        expect(read.rows).toEqual([HEADERS, ...rows.map((row) => cellsOf(row).map(xlsxReadBack))]);
        // Text or empty, never a formula, number, date or boolean.
        for (const type of read.types) expect([EXCEL_TYPE_STRING, EXCEL_TYPE_NULL]).toContain(type);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps formula-looking cells as text, with a bold frozen header and set widths', async () => {
    const values = ['=1+1', '=HYPERLINK("http://evil.example","x")', '@SUM(A1)', '+1', '-1', '123', 'TRUE', '2024-01-01', '\t=cmd'];
    const row = Object.fromEntries(KEYS.map((k, i) => [k, values[i]!])) as ExportRow;
    const { rows, sheet } = await readXlsx((await run(writeXlsx, [[row]])).file);
    expect(rows[1]).toEqual(values.map(xlsxText));
    for (let c = 1; c <= KEYS.length; c++) {
      const cell = sheet.getRow(2).getCell(c);
      expect(cell.type).toBe(EXCEL_TYPE_STRING);
      expect(cell.formula).toBeUndefined();
      expect(sheet.getColumn(c).width).toBeGreaterThanOrEqual(10);
    }
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  it('reads the next page only once the zip and a slow output have taken the last one (backpressure through the zip)', async () => {
    // Incompressible cells (random base64), pages of ~400 KB of text (~10 MB in all), made without any wait: if the
    // writer did not wait on the zip, it would pull every page before the deflater's first output.
    const PAGES = 24;
    const ROWS = 800;
    const pageOf = () =>
      Array.from({ length: ROWS }, () => Object.fromEntries(KEYS.map((k) => [k, randomBytes(42).toString('base64')])) as ExportRow);
    const pageBytes = ROWS * KEYS.length * 56;
    // A slow taker, as the upload is: one chunk per turn of the event loop.
    const chunks: Buffer[] = [];
    let outBytes = 0;
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        outBytes += chunk.length;
        setImmediate(done);
      },
    });
    /** The file's bytes taken by `out` each time the writer asked for page k (k = 0, 1, ...). */
    const outAtPull: number[] = [];
    async function* pages() {
      for (let k = 0; k < PAGES; k++) {
        outAtPull.push(outBytes);
        yield pageOf();
      }
    }
    expect(await writeXlsx(pages(), out)).toBe(PAGES * ROWS);
    expect((await readXlsx(Buffer.concat(chunks))).rows).toHaveLength(PAGES * ROWS + 1);
    // Compressed bytes per byte of cell text, from the whole file.
    const ratio = outBytes / (PAGES * pageBytes);
    // When page k is asked for, pages 0..k-1 have gone through the zip into `out`, less what the
    // buffers between hold (the zip entry's 1 MB each way, the deflater's, the zip's and out's).
    for (let k = 1; k < PAGES; k++) expect(outAtPull[k]).toBeGreaterThanOrEqual(ratio * k * pageBytes - 3 * 1024 * 1024);
  });

  it('replaces characters an xlsx cannot hold instead of writing a broken file', async () => {
    // DEL was dropped by the file while xlsxText kept it (found by the property above in CI).
    const row = Object.fromEntries(KEYS.map((k) => [k, 'a\u0000b\u001Fc\uD800d\u007F'])) as ExportRow;
    const { rows } = await readXlsx((await run(writeXlsx, [[row]])).file);
    expect(rows[1]).toEqual(KEYS.map(() => 'a\uFFFDb\uFFFDc\uFFFDd\uFFFD'));
  });
});
