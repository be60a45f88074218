import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { writeCsv, writeJson, writeXlsx, type ExportWriter } from '../../functions/exports/export-writers';
import { readPeopleCsv, peopleCsvStream, type CsvRow } from '../../shared/csv/read-people';
import { ATTRIBUTE_MESSAGES, ATTRIBUTE_VALUE_MAX, MAX_ATTRIBUTES, attributeKey, attributeLabel, checkAttributes, orderedAttributeKeys } from '../../shared/schemas/attributes';
import { checkRows, sortCsvRow } from '../../functions/bulk/check-rows';

describe('attribute keys', () => {
  it('gives the well-known columns their key whatever the spelling, and camelCase to any other', () => {
    expect(attributeKey('Department')).toBe('department');
    expect(attributeKey('Job Title')).toBe('title');
    expect(attributeKey('Manager E-mail')).toBe('managerEmail');
    expect(attributeKey('phone_number')).toBe('phone');
    expect(attributeKey('Employee ID')).toBe('employeeId');
    expect(attributeKey('employeeId')).toBe('employeeId');
    expect(attributeKey('Cost Center')).toBe('costCenter');
    expect(attributeKey('Café Région')).toBe('cafeRegion');
    expect(attributeKey('2nd Line')).toBe('c2ndLine');
    expect(attributeKey('x'.repeat(100))).toHaveLength(40);
    expect(attributeKey('---')).toBeUndefined();
    // The account's own generated values are never kept from a file.
    expect(attributeKey('Password')).toBeUndefined();
    expect(attributeKey('username')).toBeUndefined();
  });

  it('labels keys for people and orders the well-known ones first', () => {
    expect(attributeLabel('employeeId')).toBe('Employee ID');
    expect(attributeLabel('costCenter')).toBe('Cost Center');
    expect(orderedAttributeKeys(['zone', 'phone', 'costCenter', 'department', 'phone'])).toEqual(['department', 'phone', 'costCenter', 'zone']);
  });

  it('checks one person: empty values dropped, caps on count and length, control characters refused', () => {
    expect(checkAttributes({ Department: ' Sales ', Title: '', 'Cost Center': 'C1' })).toEqual({ attributes: { department: 'Sales', costCenter: 'C1' }, problems: [] });
    const many = Object.fromEntries(Array.from({ length: MAX_ATTRIBUTES + 2 }, (_, i) => [`col${i}`, 'v']));
    expect(checkAttributes(many).problems).toEqual([ATTRIBUTE_MESSAGES.tooMany(MAX_ATTRIBUTES + 2)]);
    expect(checkAttributes({ department: 'x'.repeat(ATTRIBUTE_VALUE_MAX + 1) }).problems).toEqual(['Department must be at most 256 characters']);
    expect(checkAttributes({ title: 'a\u0007b' }).problems).toEqual(['Title cannot contain line breaks or control characters']);
    expect(checkAttributes({ '!!!': 'x' }).problems).toEqual([ATTRIBUTE_MESSAGES.badKey('!!!')]);
  });
});

describe('the CSV reader keeps the other columns', () => {
  const text = [
    'First Name,Last Name,Email,Department,Job Title,Manager Email,Phone,Employee ID,Cost Center,Password',
    'Ann,Lee,ann@example.com,Sales,Rep,boss@example.com,+1 555 0100,E-1,=SUM(A1),secret',
    'Bob,Ray,bob@example.com,,,,,,,',
    `Cid,Poe,cid@example.com,${'x'.repeat(ATTRIBUTE_VALUE_MAX + 1)},,,,,,`,
  ].join('\n');

  it('per row under normalised keys, empty cells left out, a Password column never kept', () => {
    const result = readPeopleCsv(text);
    expect(result.rows[0]!.attributes).toEqual({ department: 'Sales', title: 'Rep', managerEmail: 'boss@example.com', phone: '+1 555 0100', employeeId: 'E-1', costCenter: '=SUM(A1)' });
    expect(result.rows[1]!.attributes).toBeUndefined();
    expect(result.valid.map((r) => r.row)).toEqual([2, 3]);
  });

  it('rejects a row whose value is too long with the spec-style message, and the stream reader agrees', () => {
    const result = readPeopleCsv(text);
    expect(result.invalid.map((r) => [r.row, r.issues.map((i) => i.message)])).toEqual([[4, ['Department must be at most 256 characters']]]);
    expect(sortCsvRow(result.invalid[0]!)).toMatchObject({ rejected: { row: 4, message: 'Department must be at most 256 characters' } });
    const streamed: CsvRow[] = [];
    const stream = peopleCsvStream({ maxRows: 10, onRow: (row) => streamed.push(row) });
    stream.push(text.slice(0, 50));
    stream.push(text.slice(50));
    stream.end();
    expect(streamed.map((r) => r.attributes)).toEqual(result.rows.map((r) => r.attributes));
  });

  it('hands the attributes on to the creation (sortCsvRow)', () => {
    expect(sortCsvRow(readPeopleCsv(text).rows[0]!)).toMatchObject({ valid: { row: 2, attributes: { department: 'Sales', employeeId: 'E-1' } } });
  });

  it('a file without a header has no names for other columns: none kept', () => {
    expect(readPeopleCsv('Ann,Lee,ann@example.com,Sales').rows[0]!.attributes).toBeUndefined();
  });
});

describe('checkRows (rows sent as JSON)', () => {
  it('normalises the keys of each row and rejects a row over the caps with its reason', () => {
    const { valid, failed } = checkRows([
      { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', attributes: { 'Job Title': 'Rep', department: 'Sales' } },
      { firstName: 'Bob', lastName: 'Ray', email: 'bob@example.com', attributes: { department: 'y'.repeat(ATTRIBUTE_VALUE_MAX + 1) } },
      { firstName: 'Cid', lastName: 'Poe', email: 'cid@example.com' },
    ]);
    expect(valid.map((r) => [r.row, r.attributes])).toEqual([[1, { title: 'Rep', department: 'Sales' }], [3, undefined]]);
    expect(failed).toEqual([{ row: 2, email: 'bob@example.com', message: 'Department must be at most 256 characters' }]);
  });
});

describe('export writers with extra columns', () => {
  const base = { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', username: 'annlee2026', password: 'pw', projectName: 'P', accountType: 'Standard User', createdAt: '2026-01-01T00:00:00.000Z', externalStatus: 'pending' };
  const rows = [{ ...base, attributes: { department: '=Sales', costCenter: 'C1' } }, { ...base, email: 'bob@example.com' }];
  async function write(writer: ExportWriter): Promise<Buffer> {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    await writer((async function* () { yield rows; })(), out, { attributeKeys: ['department', 'costCenter'] });
    return Buffer.concat(chunks);
  }

  it('csv and xlsx: after the standard columns, labelled, formula-safe, empty where an account has none', async () => {
    const csv = (await write(writeCsv)).toString('utf8').slice(1).trim().split('\r\n');
    expect(csv[0]!.endsWith('External Status,Department,Cost Center')).toBe(true);
    expect(csv[1]!.endsWith("pending,'=Sales,C1")).toBe(true);
    expect(csv[2]!.endsWith('pending,,')).toBe(true);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await write(writeXlsx)) as never);
    const sheet = workbook.getWorksheet('Accounts')!;
    expect([sheet.getRow(1).getCell(10).value, sheet.getRow(1).getCell(11).value]).toEqual(['Department', 'Cost Center']);
    expect([sheet.getRow(2).getCell(10).value, sheet.getRow(2).getCell(11).value]).toEqual(["'=Sales", 'C1']);
  });

  it('json: one attributes object on the accounts that have any', async () => {
    const json = JSON.parse((await write(writeJson)).toString('utf8')) as Record<string, unknown>[];
    expect(json[0]!.attributes).toEqual({ department: '=Sales', costCenter: 'C1' });
    expect(json[1]).not.toHaveProperty('attributes');
  });
});

describe('keys are their own normal form', () => {
  it('gives a key back unchanged, and a spelling of a well-known column its key, whether sent as a header or a key', () => {
    for (const key of ['department', 'title', 'managerEmail', 'phone', 'employeeId', 'costCenter', 'c2ndLine', 'x'.repeat(40)]) expect(attributeKey(key)).toBe(key);
    expect(checkAttributes({ jobTitle: 'Rep', 'Employee Number': 'E-1' }).attributes).toEqual({ title: 'Rep', employeeId: 'E-1' });
  });
});
