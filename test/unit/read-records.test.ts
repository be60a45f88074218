import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Papa from 'papaparse';
import { readCsvRecords } from '../../shared/csv/read-records';

interface ReadRecord {
  cells: string[];
  line: number;
  badQuote: boolean;
}

const read = (text: string, delimiter = ',') => {
  const records: ReadRecord[] = [];
  readCsvRecords(text, delimiter, (cells, line, badQuote) => {
    records.push({ cells, line, badQuote });
    return true;
  });
  return records;
};

/** Any text made of the parts that matter to a CSV reader, in any order. */
const csvish = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '""', '\n', '\t', ';'), maxLength: 60 });

describe('readCsvRecords', () => {
  it('reads what papaparse reads, wherever papaparse finds nothing malformed', () => {
    fc.assert(
      fc.property(csvish, fc.constantFrom(',', ';', '\t'), (text, delimiter) => {
        const papa = Papa.parse<string[]>(text, { delimiter, newline: '\n' });
        fc.pre(papa.errors.length === 0);
        // Papa gives an empty last record for a final line end; this reader gives none.
        const expected = text.endsWith('\n') ? papa.data.slice(0, -1) : papa.data;
        const records = read(text, delimiter);
        expect(records.map((r) => r.cells)).toEqual(expected);
        expect(records.every((r) => !r.badQuote)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('accounts for every line of any text: records follow each other, a malformed one takes exactly its first line', () => {
    fc.assert(
      fc.property(csvish, (text) => {
        let next = 1;
        for (const record of read(text)) {
          expect(record.line).toBe(next);
          if (record.badQuote) {
            // Its cells are that line as typed, so nothing in it is lost either.
            expect(record.cells.join(',')).toBe(text.split('\n')[record.line - 1]);
            next += 1;
          } else {
            next += 1 + record.cells.join('').split('\n').length - 1;
          }
        }
        const lineEnds = text.split('\n').length - 1;
        expect(next).toBe(text === '' || text.endsWith('\n') ? lineEnds + 1 : lineEnds + 2);
      }),
      { numRuns: 2000 },
    );
  });

  it('tells malformed quoting from well-formed', () => {
    const bad = (text: string) => read(text).map((r) => r.badQuote);
    expect(bad('"a"b,c\nd,e\n')).toEqual([true, false]);
    expect(bad('a,"b\nc,d\n')).toEqual([true, false]);
    expect(bad('a,"b\nc",d\ne\n')).toEqual([false, false]);
    expect(bad('a,b"c,d\n')).toEqual([false]);
    expect(bad('"a" ,b\n"c"\t\n')).toEqual([false, false]);
    expect(bad('a,"b')).toEqual([true]);
    expect(bad('a,"b"')).toEqual([false]);
  });

  it('stops when the handler says so', () => {
    const lines: number[] = [];
    readCsvRecords('a\n"b\nc\nd\n', ',', (_cells, line) => {
      lines.push(line);
      return line < 3;
    });
    expect(lines).toEqual([1, 2, 3]);
  });
});
