import { describe, expect, it } from 'vitest';
import { readPeopleCsv } from '../../shared/csv/read-people';
import { manualEntrySchema } from '../../shared/schemas/bulk';
import { extraColumnMessages, manualEntryRows, newExtraColumn, type ExtraColumn } from '../../frontend/src/features/bulk-creator/lib/extra-columns';
import { typedPeopleCsv } from '../../frontend/src/features/bulk-creator/lib/typed-people';

/** Extra columns typed into a manual entry (the Bulk Creator's and Add people's): named, normalised, sent as `attributes` like an import's. */
const column = (name: string, columns: ExtraColumn[] = []): ExtraColumn => {
  const made = newExtraColumn(name, columns);
  if (!('column' in made)) throw new Error(made.problem);
  return made.column;
};

describe('extra columns of a manual entry', () => {
  it('names a column as a file header would be keyed, and refuses a blank name, a fixed field, a second column of one key and a 26th', () => {
    expect(column(' Cost Center ')).toEqual({ key: 'costCenter', label: 'Cost Center' });
    expect(column('Job Title')).toEqual({ key: 'title', label: 'Job Title' });
    expect(newExtraColumn('--', [])).toEqual({ problem: '"--" is not a column name (letters and digits)' });
    expect(newExtraColumn('Password', [])).toMatchObject({ problem: expect.stringContaining('is not a column name') });
    expect(newExtraColumn('E-mail', [])).toEqual({ problem: extraColumnMessages.fixed });
    expect(newExtraColumn('first name', [])).toEqual({ problem: extraColumnMessages.fixed });
    expect(newExtraColumn('Title', [column('Job Title')])).toEqual({ problem: '"Job Title" is a column already' });
    const full = Array.from({ length: 25 }, (_, i) => column(`Column ${i}`));
    expect(newExtraColumn('One more', full)).toEqual({ problem: extraColumnMessages.tooMany });
  });

  it('sends each person\'s values of the columns still there as attributes, by key, empty ones left out (the request of the Bulk Creator\'s manual entry)', () => {
    const columns = [column('Department'), column('Cost Center')];
    const rows = manualEntryRows(
      [
        { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', attributes: { department: ' Sales ', costCenter: '', removed: 'gone' } },
        { firstName: 'Bob', lastName: 'Ray', email: 'bob@example.com' },
      ],
      columns,
    );
    expect(rows).toEqual([
      { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', attributes: { department: 'Sales' } },
      { firstName: 'Bob', lastName: 'Ray', email: 'bob@example.com' },
    ]);
  });

  it('checks the values with a file row\'s caps (256 characters, no control characters) before sending', () => {
    const ok = manualEntrySchema.safeParse({ projectName: 'P', accounts: [{ firstName: 'A', lastName: 'B', email: 'a@example.com', attributes: { department: 'Sales' } }] });
    expect(ok.success && ok.data.accounts[0]!.attributes).toEqual({ department: 'Sales' });
    const long = manualEntrySchema.safeParse({ projectName: 'P', accounts: [{ firstName: 'A', lastName: 'B', email: 'a@example.com', attributes: { department: 'x'.repeat(257) } }] });
    expect(long.success).toBe(false);
    expect(long.error!.issues[0]).toMatchObject({ path: ['accounts', 0, 'attributes'], message: 'Department must be at most 256 characters' });
  });

  it('adds the columns to the typed people\'s CSV of Add people, read back by the shared reader under their keys', () => {
    const columns = [column('Department'), column('Cost Center')];
    const result = readPeopleCsv(typedPeopleCsv([{ firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', attributes: { department: 'Sales, "East"', costCenter: 'C1' } }, { firstName: 'Bob', lastName: 'Ray', email: 'bob@example.com' }], columns));
    expect(result.invalid).toEqual([]);
    expect(result.valid.map((row) => row.attributes)).toEqual([{ department: 'Sales, "East"', costCenter: 'C1' }, undefined]);
  });
});
