import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkCsvFile, csvMessages, readPeopleCsv, rejectedRowsCsv, type CsvReadResult } from '../../shared/csv/read-people';
import { UTF8_BOM, csvLine, toCsv } from '../../shared/csv/write-csv';
import { personSchema } from '../../shared/schemas/bulk';

const HEADER = 'First Name,Last Name,Email';
const people = (result: CsvReadResult) => result.rows.map((r) => [r.row, r.firstName, r.lastName, r.email]);
const problems = (result: CsvReadResult) => result.invalid.map((r) => [r.row, ...r.issues.map((i) => `${i.field ?? '-'}: ${i.message}`)]);

describe('readPeopleCsv: parsing', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, and counts lines for row numbers', () => {
    const text = [HEADER, '"Smith, Jr.",John,john@example.com', 'Mary,"O""Neil",mary@example.com', '"Ann\nMarie",Lee,ann@example.com', 'Bob,Ray,bob@example.com', ''].join('\r\n');
    expect(people(readPeopleCsv(text))).toEqual([
      [2, 'Smith, Jr.', 'John', 'john@example.com'],
      [3, 'Mary', 'O"Neil', 'mary@example.com'],
      [4, 'Ann\nMarie', 'Lee', 'ann@example.com'],
      [6, 'Bob', 'Ray', 'bob@example.com'],
    ]);
  });

  it.each([
    ['CRLF', '\r\n'],
    ['LF', '\n'],
    ['CR', '\r'],
  ])('reads %s line ends', (_name, eol) => {
    const result = readPeopleCsv([HEADER, 'A,B,a@example.com', 'C,D,c@example.com'].join(eol) + eol);
    expect(people(result)).toEqual([
      [2, 'A', 'B', 'a@example.com'],
      [3, 'C', 'D', 'c@example.com'],
    ]);
  });

  it('reads a file mixing line ends without merging lines', () => {
    const result = readPeopleCsv(`${HEADER}\r\nA,B,a@example.com\nC,D,c@example.com\r\nE,F,e@example.com\n`);
    expect(result.rows.map((r) => r.firstName)).toEqual(['A', 'C', 'E']);
  });

  it('ignores a UTF-8 byte order mark', () => {
    const result = readPeopleCsv(`${UTF8_BOM}${HEADER}\nJosé,Núñez,jose@example.com\n`);
    expect(result.header).toBe(true);
    expect(people(result)).toEqual([[2, 'José', 'Núñez', 'jose@example.com']]);
  });

  it('skips blank, whitespace-only and empty-cell lines but still counts them', () => {
    const text = `\n${HEADER}\n\n   \nA,B,a@example.com\n,,\n , , \nC,D,c@example.com\n\n`;
    const result = readPeopleCsv(text);
    expect(people(result)).toEqual([
      [5, 'A', 'B', 'a@example.com'],
      [8, 'C', 'D', 'c@example.com'],
    ]);
  });

  it('trims values and keeps the raw cells', () => {
    const [row] = readPeopleCsv(`${HEADER}\n  Ann  ,\tLee ,  ann@example.com   \n`).rows;
    expect([row!.firstName, row!.lastName, row!.email]).toEqual(['Ann', 'Lee', 'ann@example.com']);
    expect(row!.raw).toEqual(['  Ann  ', '\tLee ', '  ann@example.com   ']);
    expect(row!.issues).toEqual([]);
  });

  it('reads semicolon- and tab-separated files (Excel in many locales)', () => {
    expect(people(readPeopleCsv('First Name;Last Name;Email\nAnn;Lee;ann@example.com\n'))).toEqual([[2, 'Ann', 'Lee', 'ann@example.com']]);
    expect(people(readPeopleCsv('Ann\tLee\tann@example.com\n'))).toEqual([[1, 'Ann', 'Lee', 'ann@example.com']]);
    expect(people(readPeopleCsv('\n\nAnn;Lee;ann@example.com\n'))).toEqual([[3, 'Ann', 'Lee', 'ann@example.com']]);
  });

  it('reports a row with an unclosed quote by its line and reads the rows after it', () => {
    const result = readPeopleCsv(`${HEADER}\nA,B,a@example.com\nC,"D,c@example.com\nE,F,e@example.com\n`);
    expect(result.valid.map((r) => [r.row, r.firstName])).toEqual([
      [2, 'A'],
      [4, 'E'],
    ]);
    expect(problems(result)).toEqual([[3, `-: ${csvMessages.badQuotes}`]]);
    expect(result.rows).toHaveLength(3);
  });

  it('keeps formula-looking values as typed (the writer neutralises them)', () => {
    expect(readPeopleCsv(`${HEADER}\n=cmd(),@x,a@example.com\n`).rows[0]).toMatchObject({ firstName: '=cmd()', lastName: '@x' });
  });
});

describe('readPeopleCsv: malformed quotes (issue 9)', () => {
  const badQuote = (row: number) => [row, `-: ${csvMessages.badQuotes}`];
  const sixPeople = (second: string) =>
    [HEADER, 'Ann,Lee,ann@example.com', second, 'Bob,Ray,bob@example.com', 'Cy,Doe,cy@example.com', 'Di,Fox,di@example.com', 'Ed,Gray,ed@example.com', ''].join('\r\n');

  it('names the problem in words the user can act on', () => {
    expect(csvMessages.badQuotes).toContain('Unclosed or misplaced quote');
  });

  it('reads all six people of the issue\'s file with text after a closing quote, rejecting only that line', () => {
    const result = readPeopleCsv(sixPeople('Anna,Lee,"anna ""the boss"" lee"@example.com'));
    expect(result.rows).toHaveLength(6);
    expect(result.valid.map((r) => r.row)).toEqual([2, 4, 5, 6, 7]);
    expect(problems(result)).toEqual([badQuote(3)]);
    // The rejected line keeps its values as typed, for the list and the download.
    expect(result.invalid[0]).toMatchObject({ firstName: 'Anna', lastName: 'Lee', email: '"anna ""the boss"" lee"@example.com' });
  });

  it('reads all six people when a formula puts a quote at the start of a field', () => {
    // The first quote is inside an unquoted field (an ordinary character); the second opens "click") and closes before ')'.
    const result = readPeopleCsv(sixPeople('=HYPERLINK("http://x","click"),Evil,evil@example.com'));
    expect(result.rows).toHaveLength(6);
    expect(result.valid).toHaveLength(5);
    expect(problems(result)).toEqual([badQuote(3)]);
  });

  it('reads a quote inside an unquoted value as an ordinary character', () => {
    const result = readPeopleCsv(`${HEADER}\nMary,O"Brien,mary@example.com\nAnn "Nan",Lee,ann@example.com\n`);
    expect(problems(result)).toEqual([]);
    expect(people(result)).toEqual([
      [2, 'Mary', 'O"Brien', 'mary@example.com'],
      [3, 'Ann "Nan"', 'Lee', 'ann@example.com'],
    ]);
  });

  it('still reads a correctly closed quoted field across lines as one record (and reports a name with a line break)', () => {
    const text = [HEADER, '"Ann\n""Nan""\nMarie",Lee,ann@example.com', 'Bob,"Ray,\nJr.",bob@example.com', 'Cy,Doe,cy@example.com', ''].join('\n');
    const result = readPeopleCsv(text);
    // One record each (row numbers go on after them), reported for the line breaks in the names, never created so.
    expect(problems(result)).toEqual([
      [2, 'firstName: First name cannot contain line breaks or control characters'],
      [5, 'lastName: Last name cannot contain line breaks or control characters'],
    ]);
    expect(people(result)).toEqual([
      [2, 'Ann\n"Nan"\nMarie', 'Lee', 'ann@example.com'],
      [5, 'Bob', 'Ray,\nJr.', 'bob@example.com'],
      [7, 'Cy', 'Doe', 'cy@example.com'],
    ]);
  });

  it('allows spaces between a closing quote and the comma or line end', () => {
    const result = readPeopleCsv(`${HEADER}\n"Ann"  ,"Lee" ,ann@example.com\nBob,Ray,"bob@example.com" \nCy,Doe,cy@example.com`);
    expect(problems(result)).toEqual([]);
    expect(people(result)).toEqual([
      [2, 'Ann', 'Lee', 'ann@example.com'],
      [3, 'Bob', 'Ray', 'bob@example.com'],
      [4, 'Cy', 'Doe', 'cy@example.com'],
    ]);
  });

  it.each([
    ['text right after the closing quote', '"Ann"e,Lee,ann@example.com'],
    ['a word after the closing quote', '"Ann" Marie,Lee,ann@example.com'],
    ['a quoted e-mail with its domain outside', 'Ann,Lee,"ann"@example.com'],
  ])('rejects %s and reads on', (_name, line) => {
    const result = readPeopleCsv([HEADER, line, 'Bob,Ray,bob@example.com', 'Cy,"Doe",cy@example.com'].join('\n'));
    expect(problems(result)).toEqual([badQuote(2)]);
    expect(result.valid.map((r) => [r.row, r.firstName])).toEqual([
      [3, 'Bob'],
      [4, 'Cy'],
    ]);
  });

  it('rejects a quote never closed on the last line, with or without a final line end', () => {
    for (const end of ['', '\n', '\r\n']) {
      const result = readPeopleCsv(`${HEADER}\nAnn,Lee,ann@example.com\nBob,Ray,"bob@example.com${end}`);
      expect(problems(result), JSON.stringify(end)).toEqual([badQuote(3)]);
      expect(result.valid.map((r) => r.row)).toEqual([2]);
    }
  });

  it('rejects a field quoted across lines and never closed, and reads the lines it would have swallowed', () => {
    const result = readPeopleCsv(`${HEADER}\n"Ann,Lee,ann@example.com\nBob,Ray,bob@example.com\n\nCy,Doe,cy@example.com\n`);
    expect(problems(result)).toEqual([badQuote(2)]);
    expect(result.valid.map((r) => r.row)).toEqual([3, 5]);
  });

  it('reports every malformed line, in order, among valid ones', () => {
    const lines = [HEADER];
    for (let i = 0; i < 40; i++) lines.push(i % 3 === 0 ? `P${i},"Q${i},p${i}@example.com` : `P${i},Q${i},p${i}@example.com`);
    const result = readPeopleCsv(lines.join('\n'));
    expect(result.rows).toHaveLength(40);
    expect(result.invalid.map((r) => r.row)).toEqual(Array.from({ length: 14 }, (_, k) => 2 + 3 * k));
    expect(result.valid).toHaveLength(26);
  });

  it('does not count the e-mail of a rejected line as seen, so the same person fixed later is valid', () => {
    const result = readPeopleCsv(`${HEADER}\nAnn,"Lee,ann@example.com\nAnn,Lee,ann@example.com\n`);
    expect(problems(result)).toEqual([badQuote(2)]);
    expect(result.valid.map((r) => r.row)).toEqual([3]);
  });

  it('recovers in semicolon-separated files too', () => {
    const result = readPeopleCsv('First Name;Last Name;Email\nAnn;"Lee;ann@example.com\nBob;Ray;bob@example.com\n');
    expect(problems(result)).toEqual([badQuote(2)]);
    expect(people(result)[1]).toEqual([3, 'Bob', 'Ray', 'bob@example.com']);
  });

  it('still finds the delimiter and the header when the first person\'s line is malformed', () => {
    const result = readPeopleCsv('Ann;Lee;"ann"@example.com\nBob;Ray;bob@example.com\n');
    expect(result.header).toBe(false);
    expect(problems(result)).toEqual([badQuote(1)]);
    expect(people(result)[1]).toEqual([2, 'Bob', 'Ray', 'bob@example.com']);
  });
});

describe('readPeopleCsv: header', () => {
  const spellings = {
    first: ['First Name', 'first_name', 'firstName', 'FirstName', 'first', 'given name', 'givenName', 'FIRST NAME', 'Forename'],
    last: ['Last Name', 'last_name', 'lastName', 'surname', 'family name', 'Last', 'LAST_NAME'],
    email: ['Email', 'E-mail', 'e_mail', 'email address', 'mail', 'E-Mail Address', 'EMAIL'],
  };

  it('maps every common spelling, in any column order, with extra columns', () => {
    for (const first of spellings.first) {
      for (const last of spellings.last) {
        for (const email of spellings.email) {
          const text = `Department,${email},${last},Phone,${first}\nSales,ann@example.com,Lee,555,Ann\n`;
          const result = readPeopleCsv(text);
          expect(result.header, text).toBe(true);
          expect(people(result), text).toEqual([[2, 'Ann', 'Lee', 'ann@example.com']]);
        }
      }
    }
  });

  it('detects a header by the spec rule (contains "first") and by known names', () => {
    expect(readPeopleCsv('First,Last,Email\nA,B,a@example.com').header).toBe(true);
    expect(readPeopleCsv('Given Name,Surname,E-mail\nA,B,a@example.com').header).toBe(true);
    expect(readPeopleCsv('Ann,Lee,ann@example.com\n').header).toBe(false);
  });

  it('takes a line with an e-mail address as a person, even when the address contains "first"', () => {
    const result = readPeopleCsv('John,Firstman,first.last@example.com\nJane,Doe,jane@example.com\n');
    expect(result.header).toBe(false);
    expect(people(result)).toEqual([
      [1, 'John', 'Firstman', 'first.last@example.com'],
      [2, 'Jane', 'Doe', 'jane@example.com'],
    ]);
  });

  it('still takes a header whose names mention an example address', () => {
    const result = readPeopleCsv('First Name,Last Name,Email (name@company.com)\nA,B,a@example.com\n');
    expect(result.header).toBe(true);
    expect(people(result)).toEqual([[2, 'A', 'B', 'a@example.com']]);
  });

  it('accepts looser header names when nothing matches exactly', () => {
    const result = readPeopleCsv('First name (required),Last name (required),Work e-mail\nA,B,a@example.com\n');
    expect(people(result)).toEqual([[2, 'A', 'B', 'a@example.com']]);
  });

  it('without a header reads first name, last name, e-mail in that order and ignores extra columns', () => {
    expect(people(readPeopleCsv('Ann,Lee,ann@example.com,extra,more\n'))).toEqual([[1, 'Ann', 'Lee', 'ann@example.com']]);
  });

  it('refuses a header that lacks a column', () => {
    for (const text of ['First Name,Last Name\nA,B\n', 'First Name,Email\nA,a@example.com\n', 'Email,Surname,Phone\na@example.com,B,1\n']) {
      expect(readPeopleCsv(text), text).toEqual({ rows: [], valid: [], invalid: [], header: true, fileError: csvMessages.missingColumns });
    }
    expect(csvMessages.missingColumns).toBe('The CSV needs First Name, Last Name and Email columns.');
  });
});

describe('readPeopleCsv: validation', () => {
  it('reports each missing or invalid field with the spec message', () => {
    const text = [HEADER, 'Ann,Lee,ann@example.com', ',Lee,x@example.com', 'Ann,,y@example.com', 'Ann,Lee,not-an-email', 'Bob', 'Bob,Ray', `${'n'.repeat(101)},Ray,z@example.com`].join('\n');
    const result = readPeopleCsv(text);
    expect(result.valid.map((r) => r.row)).toEqual([2]);
    expect(problems(result)).toEqual([
      [3, 'firstName: First name is required'],
      [4, 'lastName: Last name is required'],
      [5, 'email: Valid email is required'],
      [6, 'lastName: Last name is required', 'email: Valid email is required'],
      [7, 'email: Valid email is required'],
      [8, 'firstName: First name must be at most 100 characters'],
    ]);
    expect(result.rows).toHaveLength(7);
  });

  it('flags every later occurrence of an e-mail, case-insensitively, with the first row', () => {
    const text = [HEADER, 'A,B,same@example.com', 'C,D,other@example.com', 'E,F,SAME@Example.com', 'G,H, same@example.com '].join('\n');
    expect(problems(readPeopleCsv(text))).toEqual([
      [4, 'email: Duplicate email (also in row 2)'],
      [5, 'email: Duplicate email (also in row 2)'],
    ]);
  });

  it('does not call invalid or missing e-mails duplicates', () => {
    const text = [HEADER, 'A,B,', 'C,D,', 'E,F,bad', 'G,H,bad'].join('\n');
    for (const row of readPeopleCsv(text).invalid) expect(row.issues).toEqual([{ field: 'email', message: 'Valid email is required' }]);
  });

  it('splits rows into valid and invalid, both in file order', () => {
    const result = readPeopleCsv([HEADER, 'A,B,a@example.com', ',B,b@example.com', 'C,D,c@example.com', 'E,F,a@example.com'].join('\n'));
    expect(result.rows.map((r) => r.row)).toEqual([2, 3, 4, 5]);
    expect(result.valid.map((r) => r.row)).toEqual([2, 4]);
    expect(result.invalid.map((r) => r.row)).toEqual([3, 5]);
  });
});

describe('readPeopleCsv: file errors and limits', () => {
  it.each([
    ['an empty file', ''],
    ['blank lines only', '\n \r\n,,\n'],
    ['a header only', `${HEADER}\r\n`],
    ['a BOM only', UTF8_BOM],
  ])('asks for user data for %s', (_name, text) => {
    const result = readPeopleCsv(text);
    expect(result.fileError).toBe('Please upload a CSV file with user data.');
    expect(result.rows).toEqual([]);
  });

  it('refuses more rows than the limit, naming both counts', () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `A${i},B,a${i}@example.com\n`).join('');
    expect(readPeopleCsv(HEADER + '\n' + rows(11), { maxRows: 10 })).toMatchObject({
      rows: [],
      fileError: 'The file has 11 rows; the limit is 10 per file.',
    });
    expect(readPeopleCsv(HEADER + '\n' + rows(10) + '\n\n', { maxRows: 10 }).valid).toHaveLength(10);
  });

  it('allows 50,000 rows by default and refuses 50,001', () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => `Person${i},Smith,p${i}@example.com\r\n`);
    const exactly = readPeopleCsv(HEADER + '\r\n' + rows.join(''));
    expect(exactly.fileError).toBeUndefined();
    expect(exactly.valid).toHaveLength(50_000);
    expect(exactly.rows.at(-1)!.row).toBe(50_001);
    expect(readPeopleCsv(HEADER + '\r\n' + rows.join('') + 'One,More,one@example.com\r\n').fileError).toBe(
      'The file has 50,001 rows; the limit is 50,000 per file.',
    );
  });

  it('copes with a huge number of tiny lines without keeping them', () => {
    const result = readPeopleCsv('x\n'.repeat(300_000));
    expect(result.fileError).toBe('The file has 300,000 rows; the limit is 50,000 per file.');
  });

  // Files with far more lines than the row limit allows are streamed record by record instead of
  // parsed in one go; blank lines let a small file take that path.
  it('reads a file with many blank lines exactly like the same file without them', () => {
    const text = [HEADER, 'A,B,a@example.com', '"Ann\nMarie",,x@example.com', 'C,D,A@example.com', 'E,F,bad'].join('\n') + '\n';
    const padded = readPeopleCsv(text + '\n'.repeat(2_000), { maxRows: 10 });
    expect(padded).toEqual(readPeopleCsv(text, { maxRows: 10 }));
    expect(problems(padded)).toEqual([
      [3, 'firstName: First name cannot contain line breaks or control characters', 'lastName: Last name is required'],
      [5, 'email: Duplicate email (also in row 2)'],
      [6, 'email: Valid email is required'],
    ]);
  });

  it('reports an unclosed quote and reads on in a file with many blank lines too', () => {
    const result = readPeopleCsv(`${HEADER}\n${'\n'.repeat(2_000)}A,"B,a@example.com\nC,D,c@example.com\n`, { maxRows: 10 });
    expect(problems(result)).toEqual([[2_002, `-: ${csvMessages.badQuotes}`]]);
    expect(people(result)).toEqual([
      [2_002, 'A', '"B', 'a@example.com'],
      [2_003, 'C', 'D', 'c@example.com'],
    ]);
  });

  it('reports a header without the needed columns on the streamed path too', () => {
    expect(readPeopleCsv(`First Name,Last Name\n${'A,B\n'.repeat(30)}${'\n'.repeat(2_000)}`, { maxRows: 10 }).fileError).toBe(
      csvMessages.missingColumns,
    );
  });
});

describe('checkCsvFile', () => {
  it.each([
    [{ name: 'people.csv', type: 'text/csv', size: 100 }, undefined],
    [{ name: 'PEOPLE.CSV', type: '', size: 100 }, undefined],
    [{ name: 'people.csv', type: 'application/vnd.ms-excel', size: 100 }, undefined],
    [{ name: 'export', type: 'text/csv', size: 100 }, undefined],
    [{ name: 'people.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: 100 }, 'Please upload a CSV file.'],
    [{ name: 'people.xls', type: 'application/vnd.ms-excel', size: 100 }, 'Please upload a CSV file.'],
    [{ name: 'people.csv.exe', type: 'application/octet-stream', size: 100 }, 'Please upload a CSV file.'],
    [{ name: 'people.csv', type: 'text/csv', size: 10 * 1024 * 1024 }, undefined],
    [{ name: 'people.csv', type: 'text/csv', size: 10 * 1024 * 1024 + 1 }, 'The file is 10.1 MB; the limit is 10 MB.'],
    [{ name: 'people.csv', type: 'text/csv', size: 25 * 1024 * 1024 }, 'The file is 25 MB; the limit is 10 MB.'],
  ])('%j -> %s', (file, message) => {
    expect(checkCsvFile(file)).toBe(message);
  });
});

describe('rejectedRowsCsv', () => {
  it('lists the invalid rows with their problems, neutralising formulas, and reads back', () => {
    const result = readPeopleCsv([HEADER, 'A,B,a@example.com', '=HYPERLINK("x"),B,bad', 'C,D,A@example.com'].join('\n'));
    const csv = rejectedRowsCsv(result.invalid);
    expect(csv).toBe(
      'Row,First Name,Last Name,Email,Problem\r\n' +
        '3,"\'=HYPERLINK(""x"")",B,bad,Valid email is required\r\n' +
        '4,C,D,A@example.com,Duplicate email (also in row 2)\r\n',
    );
    const again = readPeopleCsv(csv);
    expect(again.header).toBe(true);
    expect(again.rows.map((r) => [r.firstName, r.email])).toEqual([
      ["'=HYPERLINK(\"x\")", 'bad'],
      ['C', 'A@example.com'],
    ]);
  });

  it('gives just the header for no rows', () => {
    expect(rejectedRowsCsv([])).toBe('Row,First Name,Last Name,Email,Problem\r\n');
  });
});

describe('readPeopleCsv: round trip with the CSV writer', () => {
  const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
  const awkward = fc.constantFrom(',', '"', '""', '\n', '\r', '\r\n', ' ', ';', '\t', '\uFEFF', "'", 'é', '@', 'first');
  const value = fc
    .string({ unit: fc.oneof(awkward, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength: 12 })
    .filter((v) => !FORMULA_START.test(v));
  const expectedValue = (v: string) => v.replace(/\r\n?/g, '\n').trim();
  const lines = (v: string) => (v.replace(/\r\n?/g, '\n').match(/\n/g) ?? []).length;
  const person = fc.tuple(value, value, value).filter((p) => p.some((v) => expectedValue(v) !== ''));

  it('gives back every value, in order, with the line it starts on, for any header order', () => {
    const headers = ['First Name', 'Last Name', 'Email'];
    const orders = [
      [0, 1, 2],
      [2, 0, 1],
      [1, 2, 0],
      [2, 1, 0],
    ];
    fc.assert(
      fc.property(fc.array(person, { maxLength: 25 }), fc.constantFrom(...orders), fc.boolean(), (list, order, bom) => {
        const text = toCsv(
          order.map((i) => headers[i]!),
          list.map((p) => order.map((i) => p[i]!)),
        );
        const result = readPeopleCsv((bom ? UTF8_BOM : '') + text);
        if (list.length === 0) {
          expect(result.fileError).toBe(csvMessages.noData);
          return;
        }
        expect(result.header).toBe(true);
        let line = 2;
        const expected = list.map((p) => {
          const row = [line, ...p.map(expectedValue)];
          line += 1 + p.reduce((n, v) => n + lines(v), 0);
          return row;
        });
        expect(people(result)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('gives back every value without a header when each line has an e-mail address', () => {
    // An address (valid, or at least not mentioning 'mail') tells a person's line from a header.
    const address = fc
      .emailAddress()
      .filter((v) => !FORMULA_START.test(v) && (personSchema.shape.email.safeParse(v).success || !/mail/i.test(v)));
    const withEmail = fc.tuple(value, value, address);
    fc.assert(
      fc.property(fc.array(withEmail, { minLength: 1, maxLength: 25 }), (list) => {
        const result = readPeopleCsv(list.map((p) => csvLine(p)).join(''));
        expect(result.header).toBe(false);
        expect(result.rows.map((r) => [r.firstName, r.lastName, r.email])).toEqual(list.map((p) => p.map(expectedValue)));
      }),
      { numRuns: 200 },
    );
  });

  // Malformed lines that show their fault within themselves, whatever comes before or after.
  const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,7}$/);
  const misplacedQuote = fc.oneof(
    fc.tuple(word, word).map(([a, b]) => `${a},${b},"${a} ""the boss"" ${b}"@example.com`),
    fc.tuple(word, word).map(([a, b]) => `=HYPERLINK("http://${a}","click"),${b},${a}@example.com`),
    fc.tuple(word, word).map(([a, b]) => `"${a}"${b},${b},${a}@example.com`),
  );
  type Entry = { bad: string } | { person: readonly string[] };
  /** The file with a header, and each entry's expected row: its line, and its values or the quote problem. */
  const fileOf = (entries: readonly Entry[], writePerson: (p: readonly string[]) => string) => {
    let line = 2;
    const expected = entries.map((entry) => {
      const row = line;
      if ('bad' in entry) {
        line += 1;
        return [row, 'bad quote'];
      }
      line += 1 + entry.person.reduce((n, v) => n + lines(v), 0);
      return [row, ...entry.person.map(expectedValue)];
    });
    const text = HEADER + '\r\n' + entries.map((entry) => ('bad' in entry ? `${entry.bad}\r\n` : writePerson(entry.person))).join('');
    return { text, expected };
  };
  const actualRows = (result: CsvReadResult) =>
    result.rows.map((r) =>
      r.issues.some((i) => i.message === csvMessages.badQuotes) ? [r.row, 'bad quote'] : [r.row, r.firstName, r.lastName, r.email],
    );

  it('accounts for every line when misplaced quotes sit among any valid rows: each rejected alone, the rest read', () => {
    const entry: fc.Arbitrary<Entry> = fc.oneof(
      person.map((p) => ({ person: p })),
      misplacedQuote.map((bad) => ({ bad })),
    );
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 25 }), (entries) => {
        const { text, expected } = fileOf(entries, (p) => csvLine(p));
        const result = readPeopleCsv(text);
        expect(actualRows(result)).toEqual(expected);
        expect(result.valid.length + result.invalid.length).toBe(entries.length);
      }),
      { numRuns: 300 },
    );
  });

  it('accounts for every line when quotes are left open among plain rows, the last line included', () => {
    const plainPerson = fc.tuple(word, word, word.map((w) => `${w}@example.com`));
    const unclosedQuote = fc.tuple(word, word).map(([a, b]) => `${a},"${b},${a}@example.com`);
    const entry: fc.Arbitrary<Entry> = fc.oneof(
      plainPerson.map((p) => ({ person: p })),
      fc.oneof(unclosedQuote, misplacedQuote).map((bad) => ({ bad })),
    );
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 25 }), fc.boolean(), (entries, finalLineEnd) => {
        const { text, expected } = fileOf(entries, (p) => `${p.join(',')}\r\n`);
        const result = readPeopleCsv(finalLineEnd ? text : text.slice(0, -2));
        expect(actualRows(result)).toEqual(expected);
        expect(result.valid.length + result.invalid.length).toBe(entries.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('readPeopleCsv: a quote left open that a later line closes (review of issue 9)', () => {
  it('reports the record that swallowed lines instead of creating it', () => {
    const text = [HEADER, 'Ann,"Lee,ann@x.com', 'Bob,Smith,bob@x.com', 'Cid,Doe 5",cid@x.com', 'Dan,Ray,dan@x.com', ''].join('\n');
    const result = readPeopleCsv(text);
    // RFC 4180 reads lines 2-4 as one record; its last name holds line breaks, so it is refused, not created.
    expect(result.valid.map((r) => r.firstName)).toEqual(['Dan']);
    expect(problems(result)).toEqual([[2, 'lastName: Last name cannot contain line breaks or control characters']]);
  });
});
