import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { csvRecordStream, MAX_QUOTED_RECORD_CHARS, readCsvRecords } from '../../shared/csv/read-records';
import { peopleCsvStream, readPeopleCsv, type CsvRow } from '../../shared/csv/read-people';

type Record_ = [cells: string[], line: number, badQuote: boolean];

const whole = (text: string, delimiter = ',') => {
  const records: Record_[] = [];
  readCsvRecords(text, delimiter, (cells, line, badQuote) => records.push([cells, line, badQuote]) > 0);
  return records;
};

/** The text cut into pieces at the given lengths (cycled), as a stream delivers it. */
const piecesOf = (text: string, sizes: readonly number[]) => {
  const pieces: string[] = [];
  for (let i = 0, n = 0; i < text.length; n++) {
    const size = sizes[n % sizes.length]!;
    pieces.push(text.slice(i, i + size));
    i += size;
  }
  return pieces;
};

const streamed = (text: string, sizes: readonly number[], delimiter = ',') => {
  const records: Record_[] = [];
  const stream = csvRecordStream(delimiter, (cells, line, badQuote) => records.push([cells, line, badQuote]) > 0);
  for (const piece of piecesOf(text, sizes)) stream.push(piece);
  stream.end();
  return records;
};

const csvish = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '""', '\n', '\t', ';', '\r\n'), maxLength: 80 });
const sizes = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 });

describe('csvRecordStream', () => {
  it('gives exactly the records and lines of readCsvRecords, however the text is cut', () => {
    fc.assert(
      fc.property(csvish, sizes, (raw, cuts) => {
        const text = raw.replace(/\r\n/g, '\n');
        expect(streamed(text, cuts)).toEqual(whole(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('waits for the rest of a line after a quoted field that spans lines, and for a quote cut in two', () => {
    for (const [text, cuts] of [
      ['"a\nb",cd,e\nf\n', [7]],
      ['"a\nb"  ,c\n"x""y"\n', [5, 1]],
      ['a,"b\n""c""",d\ne\n', [9, 2]],
    ] as const) {
      expect(streamed(text, cuts)).toEqual(whole(text));
    }
  });

  it('holds a quote that never closes no longer than MAX_QUOTED_RECORD_CHARS: the line is malformed, reading goes on', () => {
    const filler = `${'x'.repeat(99)}\n`.repeat(Math.ceil(MAX_QUOTED_RECORD_CHARS / 100) + 10);
    const text = `a,b,c\n"open,b,c\n${filler}d,e,f\n`;
    const expected = whole(text);
    expect(expected[1]).toEqual([['"open', 'b', 'c'], 2, true]);
    expect(expected.at(-1)).toEqual([['d', 'e', 'f'], expected.length, false]);
    expect(streamed(text, [65_536])).toEqual(expected);
  });
});

describe('peopleCsvStream', () => {
  const people = (text: string, cuts: readonly number[], maxRows = 50_000) => {
    const rows: CsvRow[] = [];
    const stream = peopleCsvStream({ maxRows, onRow: (row) => rows.push(row) });
    for (const piece of piecesOf(text, cuts)) if (!stream.push(piece)) break;
    return { rows, ...stream.end() };
  };

  it('reads the rows, line numbers and problems readPeopleCsv reads (BOM, CRLF, header, repeats, bad quotes)', () => {
    const cell = fc.constantFrom('Ada', 'Lovelace', 'ada@example.com', 'ADA@example.com', '', ' "q"', '"x', 'first name', 'Email', 'b@x.org');
    const line = fc.array(cell, { minLength: 1, maxLength: 4 }).map((cells) => cells.join(','));
    const file = fc.tuple(fc.boolean(), fc.array(line, { maxLength: 12 }), fc.constantFrom('\n', '\r\n', '\r')).map(([bom, lines, end]) => `${bom ? '\ufeff' : ''}${lines.join(end)}`);
    fc.assert(
      fc.property(file, sizes, (text, cuts) => {
        const expected = readPeopleCsv(text);
        const got = people(text, cuts);
        expect(got.fileError).toBe(expected.fileError);
        expect(got.header).toBe(expected.header);
        if (!expected.fileError) expect(got.rows).toEqual(expected.rows);
      }),
      { numRuns: 2000 },
    );
  });

  it('with repeats: false, reads the same rows but for the repeated e-mails, which it does not look for', () => {
    const text = 'First Name,Last Name,Email\nAda,L,ada@example.com\nBob,M,ADA@example.com\nCy,N,not-an-email\n';
    const rows: CsvRow[] = [];
    const stream = peopleCsvStream({ maxRows: 10, repeats: false, onRow: (row) => rows.push(row) });
    stream.push(text);
    expect(stream.end().fileError).toBeUndefined();
    const all = readPeopleCsv(text).rows;
    expect(all[1]!.issues).toEqual([{ field: 'email', message: 'Duplicate email (also in row 2)' }]);
    expect(rows).toEqual([all[0], { ...all[1], issues: [] }, all[2]]);
  });

  it('chooses the delimiter from the opening of the file, as readPeopleCsv does', () => {
    const text = `First Name;Last Name;Email\n${Array.from({ length: 2000 }, (_, i) => `A${i};B;a${i}@example.com`).join('\n')}\n`;
    const got = people(text, [4096]);
    expect(got.rows).toHaveLength(2000);
    expect(got.rows).toEqual(readPeopleCsv(text).rows);
  });

  it('stops at the first row over the limit and says so', () => {
    const text = Array.from({ length: 11 }, (_, i) => `A,B,a${i}@example.com`).join('\n');
    const got = people(text, [5], 10);
    expect(got.fileError).toBe('The file has more than 10 rows; the limit is 10 per file.');
    expect(got.rows).toHaveLength(10);
    expect(people(text.split('\n').slice(0, 10).join('\n'), [5], 10).fileError).toBeUndefined();
  });
});
