import { describe, expect, it } from 'vitest';
import { peopleCsvStream, type CsvRow } from '../../shared/csv/read-people';
import { diffRows } from '../../functions/sync/sync-preview';

/** The file as the preview's worker reads it: the shared reader's rows and the header's cells. */
function read(text: string): { rows: CsvRow[]; header: string[] } {
  const rows: CsvRow[] = [];
  let header: string[] = [];
  const stream = peopleCsvStream({ maxRows: 1000, onRow: (row) => rows.push(row), onHeader: (cells) => (header = cells) });
  stream.push(text);
  expect(stream.end().fileError).toBeUndefined();
  return { rows, header };
}

const account = (row: number, fields: Record<string, unknown> = {}) => ({ id: `p.${String(row).padStart(6, '0')}`, row, username: `user${row}`, firstName: `First${row}`, lastName: 'Last', email: `person${row}@example.com`, isActive: true, ...fields });

describe('a sync preview sorts the rows (diffRows)', () => {
  it('matches by e-mail, case-insensitive, and counts add up', () => {
    const file = read('First Name,Last Name,Email\nFirst1,Last,PERSON1@example.com\nFirst2,Other,person2@example.com\nNew,Person,new@example.com\nBad,Row,nope\n');
    const diff = diffRows(file, [account(1), account(2), account(3, { isActive: false })]);
    expect(diff.matchKey).toBe('email');
    expect(diff.counts).toEqual({ rows: 4, new: 1, changed: 2, unchanged: 0, rejected: 1, accounts: 3, matched: 2, missing: 1, missingActive: 0 });
    expect(diff.sections.changed.map((c) => c.changes)).toEqual([
      [{ field: 'email', label: 'E-mail', from: 'person1@example.com', to: 'PERSON1@example.com' }],
      [{ field: 'lastName', label: 'Last name', from: 'Last', to: 'Other' }],
    ]);
    expect(diff.sections.rejected[0]).toMatchObject({ row: 5, problem: expect.stringMatching(/email/i) });
  });

  it('matches by an id column; an unknown id is rejected; a row without one goes by e-mail; one account matched twice rejects the second row', () => {
    const file = read('ID,First Name,Last Name,Email\np.000001,First1,Last,renamed@example.com\np.000099,X,Y,x@example.com\n,First2,Last,person2@example.com\np.000002,First2,Last,person2b@example.com\n');
    const diff = diffRows(file, [account(1), account(2)]);
    expect(diff.matchKey).toBe('id');
    expect(diff.sections.changed[0]).toMatchObject({ accountId: 'p.000001', matchedBy: 'id' });
    expect(diff.sections.unchanged[0]).toMatchObject({ accountId: 'p.000002' });
    expect(diff.sections.rejected.map((r) => r.problem)).toEqual(['No account of this project has the id p.000099', 'Matches the same account as row 4 (user2)']);
    expect(diff.counts.new + diff.counts.changed + diff.counts.unchanged + diff.counts.rejected).toBe(diff.counts.rows);
  });

  it('matches by employeeId (the accounts\' attribute), else by e-mail; refuses an e-mail another account holds', () => {
    const file = read('First Name,Last Name,Email,Employee ID\nFirst1,Moved,person1@example.com,E-7\nFirst2,Last,person3@example.com,\n');
    const diff = diffRows(file, [account(1, { attributes: { employeeId: 'E-7' }, email: 'old@example.com' }), account(2), account(3)]);
    expect(diff.matchKey).toBe('employeeId');
    expect(diff.sections.changed[0]).toMatchObject({ accountId: 'p.000001', matchedBy: 'employeeId' });
    // Row 3 matches account 3 by e-mail; its names differ.
    expect(diff.sections.changed[1]).toMatchObject({ accountId: 'p.000003', matchedBy: 'email' });
    const clash = diffRows(read('id,First Name,Last Name,Email\np.000001,First1,Last,person2@example.com\n'), [account(1), account(2)]);
    expect(clash.sections.rejected[0]!.problem).toBe('Another account of this project has this e-mail (user2)');
  });

  it('compares the extra columns the file has, key by key (added, changed, removed by an empty cell); a column the file lacks is left as it is; the id column is no attribute', () => {
    const accounts = [
      account(1, { attributes: { department: 'Sales', title: 'Rep', site: 'Paris' } }),
      account(2, { attributes: { department: 'Ops' } }),
      account(3, { attributes: { department: 'Ops', title: 'Lead' } }),
    ];
    const file = read('ID,First Name,Last Name,Email,Department,Job Title,Cost Center\np.000001,First1,Last,person1@example.com,Marketing,,C1\np.000002,First2,Last,person2@example.com, Ops ,,\np.000003,First3,Last,person3@example.com,Ops,Lead,\n');
    const diff = diffRows(file, accounts);
    expect(diff.counts).toMatchObject({ rows: 3, changed: 1, unchanged: 2, rejected: 0 });
    // Keys in the header's order; the site column is not in the file: kept, not compared.
    expect(diff.sections.changed[0]!.changes).toEqual([
      { field: 'attributes.department', label: 'Department', from: 'Sales', to: 'Marketing' },
      { field: 'attributes.title', label: 'Title', from: 'Rep', to: '' },
      { field: 'attributes.costCenter', label: 'Cost Center', from: '', to: 'C1' },
    ]);
    // A file without extra columns compares none of them.
    expect(diffRows(read('First Name,Last Name,Email\nFirst1,Last,person1@example.com\n'), accounts).counts.unchanged).toBe(1);
  });

  it('rejects a row whose extra columns would give the account more than 25, or a value over the caps', () => {
    const held = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`col${i}`, 'x']));
    const file = read(`First Name,Last Name,Email,Extra\nFirst1,Last,person1@example.com,one more\nFirst2,Last,person2@example.com,${'y'.repeat(300)}\n`);
    const diff = diffRows(file, [account(1, { attributes: held }), account(2)]);
    expect(diff.sections.rejected.map((r) => r.problem)).toEqual(['At most 25 extra columns per person (this row has 26)', 'Extra must be at most 256 characters']);
    expect(diff.counts.new + diff.counts.changed + diff.counts.unchanged + diff.counts.rejected).toBe(diff.counts.rows);
  });
});
