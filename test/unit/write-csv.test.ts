import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Papa from 'papaparse';
import { ACCOUNT_CSV_HEADER, UTF8_BOM, csvCell, csvLine, neutraliseFormula, toCsv } from '../../shared/csv/write-csv';

const parseCsv = (text: string) => Papa.parse<string[]>(text, { delimiter: ',', newline: '\r\n' }).data;

/** Characters that make a spreadsheet treat a cell as a formula (OWASP), and their full-width forms. */
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];

const riskyText = fc.oneof(
  fc.string(),
  fc.tuple(fc.constantFrom(...FORMULA_STARTS), fc.string()).map(([start, rest]) => start + rest),
  fc.constantFrom('=HYPERLINK("http://evil.example","x")', '@SUM(1+1)*cmd|\' /C calc\'!A0', '-2+3', '+1', '\t=1', '\r=1', ' =1'),
);

describe('neutraliseFormula', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['\uFF1D1+1', "'\uFF1D1+1"],
    ['John', 'John'],
    ['a=b', 'a=b'],
    ['', ''],
  ])('%j -> %j', (value, expected) => {
    expect(neutraliseFormula(value)).toBe(expected);
  });
});

describe('csvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    [' padded ', '" padded "'],
    ['=cmd', "'=cmd"],
    ['=a,b', '"\'=a,b"'],
    [12, '12'],
    [-3, '-3'],
    [true, 'true'],
    [null, ''],
    [undefined, ''],
  ] as const)('%j -> %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('never lets a spreadsheet see a formula, and reads back as the neutralised text', () => {
    fc.assert(
      fc.property(riskyText, (value) => {
        const [cell, next] = parseCsv(csvLine([value, 'next']))[0]!;
        expect(cell).toBe(neutraliseFormula(value));
        expect(FORMULA_STARTS.some((start) => cell!.startsWith(start))).toBe(false);
        expect(next).toBe('next');
      }),
      { numRuns: 500 },
    );
  });

  it('leaves text that cannot start a formula unchanged through a round trip', () => {
    const safe = fc.string().filter((s) => !FORMULA_STARTS.some((start) => s.startsWith(start)));
    fc.assert(
      fc.property(fc.array(safe, { maxLength: 6 }), (values) => {
        expect(parseCsv(csvLine([...values, 'end']))[0]).toEqual([...values, 'end']);
      }),
    );
  });
});

describe('toCsv', () => {
  it('writes a header and CRLF-terminated rows', () => {
    expect(toCsv(ACCOUNT_CSV_HEADER, [['José', 'Núñez', 'jose@example.com', 'josenunez2026', 'Ab3$defgh!jk']])).toBe(
      'First Name,Last Name,Email,Username,Password\r\nJosé,Núñez,jose@example.com,josenunez2026,Ab3$defgh!jk\r\n',
    );
    expect(toCsv(['a'], [])).toBe('a\r\n');
  });

  it('round-trips any table through a real CSV parser', () => {
    const safe = fc.string({ minLength: 1 }).filter((s) => !FORMULA_STARTS.some((start) => s.startsWith(start)));
    fc.assert(
      fc.property(fc.array(fc.array(safe, { minLength: 3, maxLength: 3 }), { maxLength: 20 }), (rows) => {
        const parsed = parseCsv(UTF8_BOM + toCsv(['A', 'B', 'C'], rows));
        expect(parsed.slice(0, rows.length + 1)).toEqual([['A', 'B', 'C'], ...rows]);
      }),
    );
  });
});
