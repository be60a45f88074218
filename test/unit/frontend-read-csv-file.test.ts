import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csvMessages } from '../../shared/csv/read-people';
import { readCsvFile } from '../../frontend/src/features/bulk-creator/lib/read-csv-file';
import { toaster } from '../../frontend/src/lib/toaster';
import { requestRows } from '../../frontend/src/features/bulk-creator/lib/upload-form';
import { CSV_MAX_BYTES, REQUEST_ROWS_JSON_MAX_BYTES, jsonBytes } from '../../shared/schemas/bulk';

const csvFile = (text: string) => new File([text], 'people.csv', { type: 'text/csv' });

/** The toasts shown while `run` runs. */
async function toastsDuring(run: () => Promise<unknown>): Promise<{ title?: unknown; description?: unknown }[]> {
  const shown: { title?: unknown; description?: unknown }[] = [];
  toaster.remove(); // earlier tests' toasts, which would keep a new one waiting (one at a time)
  const unsubscribe = toaster.subscribe((toast) => {
    if ('title' in toast) shown.push({ title: toast.title, description: toast.description });
  });
  try {
    await run();
  } finally {
    unsubscribe();
  }
  return shown;
}

describe('readCsvFile (the Bulk Creator reading a chosen file)', () => {
  describe('in a browser west of UTC on New Year\'s Eve', () => {
    const zone = process.env.TZ;
    beforeEach(() => {
      process.env.TZ = 'America/New_York';
    });
    afterEach(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });

    it('previews usernames with the UTC year, the one the server gives', async () => {
      const now = new Date('2026-12-31T23:30:00-05:00');
      expect(now.getFullYear()).toBe(2026); // the local year here, which the preview must not use
      const read = await readCsvFile(csvFile('First Name,Last Name,Email\nAnn,Lee,ann@example.com\n'), now);
      expect(read?.previewUsernames).toEqual(['annlee2027']);
    });
  });

  it("takes the upload path for a file under 10 MB whose rows are more than the request's 8 MB as JSON (extra columns repeat their names in every row), the request path otherwise", async () => {
    const columns = Array.from({ length: 10 }, (_, c) => `Extra column ${c + 1}`);
    const file = (rows: number) =>
      csvFile(['First Name,Last Name,Email,' + columns.join(','), ...Array.from({ length: rows }, (_, i) => `Ann${i},Lee,ann${i}@example.com,` + columns.map((_, c) => `value ${c} of row ${i}`.padEnd(30, '.')).join(','))].join('\n'));
    const large = file(20_000);
    expect(large.size).toBeLessThan(CSV_MAX_BYTES);
    const read = await readCsvFile(large, new Date('2026-06-01T12:00:00Z'));
    expect(read?.result.valid).toHaveLength(20_000);
    expect(jsonBytes(requestRows(read!.result.valid))).toBeGreaterThan(REQUEST_ROWS_JSON_MAX_BYTES);
    expect(read).toMatchObject({ route: 'upload', partial: false, file: large });
    expect(await readCsvFile(file(2_000), new Date('2026-06-01T12:00:00Z'))).toMatchObject({ route: 'request' });
  });

  it('counts every line of a file with a misplaced quote: the rest are users, that line a problem', async () => {
    const text = [
      'First Name,Last Name,Email',
      'Ann,Lee,ann@example.com',
      'Anna,Lee,"anna ""the boss"" lee"@example.com',
      'Bob,Ray,bob@example.com',
      'Cy,Doe,cy@example.com',
      'Di,Fox,di@example.com',
      'Ed,Gray,ed@example.com',
    ].join('\n');
    let read: Awaited<ReturnType<typeof readCsvFile>>;
    const toasts = await toastsDuring(async () => {
      read = await readCsvFile(csvFile(text), new Date('2026-06-01T12:00:00Z'));
    });
    expect(toasts).toEqual([{ title: 'File uploaded successfully', description: '5 users found. 1 row has problems and will be skipped.' }]);
    expect(read!.result.rows).toHaveLength(6);
    expect(read!.result.invalid.map((row) => [row.row, row.issues.map((issue) => issue.message)])).toEqual([[3, [csvMessages.badQuotes]]]);
    expect(read!.previewUsernames).toEqual(['annlee2026', 'bobray2026', 'cydoe2026']);
  });
});
