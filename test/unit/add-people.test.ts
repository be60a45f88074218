import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPeopleCsv } from '../../shared/csv/read-people';
import { renumbered } from '../../functions/bulk/add-people';
import { typedPeopleCsv } from '../../frontend/src/features/bulk-creator/lib/typed-people';

describe('renumbered: people added to a project follow its last row', () => {
  it('numbers the valid rows from the first reserved row, in order, whatever their request rows', () => {
    const rows = [{ row: 2, name: 'a' }, { row: 5, name: 'b' }, { row: 6, name: 'c' }];
    expect([...renumbered(rows, 101)]).toEqual([{ row: 101, name: 'a' }, { row: 102, name: 'b' }, { row: 103, name: 'c' }]);
  });

  it('gives n rows a contiguous range of n: two adds with disjoint reservations never share a row', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), (first, n, m) => {
        const a = [...renumbered(Array.from({ length: n }, (_, i) => ({ row: i + 7 })), first)].map((r) => r.row);
        // The second reservation starts after the first one's last row (lastRow counter).
        const b = [...renumbered(Array.from({ length: m }, (_, i) => ({ row: i + 1 })), first + n)].map((r) => r.row);
        expect(new Set([...a, ...b]).size).toBe(n + m);
        if (n) expect([a[0], a.at(-1)]).toEqual([first, first + n - 1]);
      }),
    );
  });
});

describe('typedPeopleCsv: people typed in are read back exactly by the shared reader', () => {
  it('keeps commas, quotes and accents, trims, and numbers rows as a file would', () => {
    const result = readPeopleCsv(typedPeopleCsv([{ firstName: ' Anna, Maria ', lastName: 'O"Neil', email: 'anna@example.com' }, { firstName: 'José', lastName: 'Núñez', email: 'not-an-address' }]));
    expect(result.valid.map(({ firstName, lastName, email }) => ({ firstName, lastName, email }))).toEqual([{ firstName: 'Anna, Maria', lastName: 'O"Neil', email: 'anna@example.com' }]);
    expect(result.invalid).toHaveLength(1);
    expect(result.invalid[0]).toMatchObject({ row: 3 });
  });

  it('round-trips any printable names', () => {
    const text = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0 && ![...s].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127));
    fc.assert(
      fc.property(text, text, (firstName, lastName) => {
        const read = readPeopleCsv(typedPeopleCsv([{ firstName, lastName, email: 'x@example.com' }]));
        const person = read.valid[0] ?? read.invalid[0];
        expect(person).toMatchObject({ firstName: firstName.trim(), lastName: lastName.trim() });
      }),
    );
  });
});
