import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { createUsernameAllocator, baseUsername } from '../../shared/generation/username';
import { repeatedBases, usernameSlots, usernamesFor, withUsernameSlotsAsync } from '../../functions/bulk/usernames';
import { checkRows, sortCsvRow } from '../../functions/bulk/check-rows';
import { assertFitsPlan, subscriptionStatus } from '../../functions/usage/plan-usage';
import { safeFilename } from '../../functions/projects/export-project-csv';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { inlineFailed, rejectedRowItems } from '../../functions/bulk/rejected-rows';
import { createPasswordGenerator } from '../../shared/generation/password';
import { FAILED_ROWS_INLINE_MAX, PASSWORD_NO_CLASS_MESSAGE, passwordSettingsSchema } from '../../shared/schemas/bulk';

const name = fc.constantFrom('John', 'Jane', 'José', 'Ann', 'Smith', 'Núñez', 'Lee', '');

describe('usernames from slots', () => {
  it('equal handing names out in file order, for any file and any taken names', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ firstName: name, lastName: name }), { maxLength: 60 }),
        fc.array(fc.tuple(name, name, fc.integer({ min: 1, max: 5 })), { maxLength: 20 }),
        (people, takenSpec) => {
          const taken = new Set(takenSpec.map(([f, l, n]) => (n === 1 ? baseUsername(f, l, 2026) : `${baseUsername(f, l, 2026)}-${n}`)));
          const allocate = createUsernameAllocator(taken);
          const expected = people.map((p) => allocate(baseUsername(p.firstName, p.lastName, 2026)));
          expect(usernamesFor(usernameSlots(people, 2026), taken)).toEqual(expected);
        },
      ),
    );
  });

  it('are the same slots when given as rows arrive, with or without the bases a first reading found repeated', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ firstName: name, lastName: name }), { maxLength: 60 }), async (people) => {
        const expected = usernameSlots(people, 2026);
        const plain: { base: string; k: number }[] = [];
        for await (const { base, k } of withUsernameSlotsAsync(people, 2026)) plain.push({ base, k });
        expect(plain).toEqual(expected);
        const bases = repeatedBases();
        for (const person of people) bases.add(person);
        const mayRepeat = bases.seal();
        const counted: { base: string; k: number }[] = [];
        for await (const { base, k } of withUsernameSlotsAsync(people, 2026, mayRepeat)) counted.push({ base, k });
        expect(counted).toEqual(expected);
        // A base that occurs twice is always among those that may repeat.
        for (const [i, slot] of expected.entries()) if (slot.k > 0) expect(mayRepeat(people[i]!)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('give any subset of slots (one chunk) the same names as the whole file', () => {
    const people = Array.from({ length: 1200 }, (_, i) => ({ firstName: i % 3 ? 'John' : 'Ann', lastName: 'Smith' }));
    const slots = usernameSlots(people, 2026);
    const taken = new Set(['johnsmith2026', 'johnsmith2026-3']);
    const whole = usernamesFor(slots, taken);
    expect(usernamesFor(slots.slice(500, 1000), taken)).toEqual(whole.slice(500, 1000));
    expect(new Set(whole).size).toBe(1200);
  });
});

describe('checkRows', () => {
  it('reports invalid and repeated e-mails with 1-based rows and keeps the rest', () => {
    const { valid, failed } = checkRows([
      { firstName: 'A', lastName: 'B', email: 'a@example.com' },
      { firstName: 'C', lastName: '', email: 'c@example.com' },
      { firstName: 'D', lastName: 'E', email: 'A@Example.com' },
      { firstName: 'F', lastName: 'G', email: 'no' },
    ]);
    expect(valid.map((r) => r.row)).toEqual([1]);
    expect(failed).toEqual([
      { row: 2, field: 'lastName', email: 'c@example.com', message: 'Last name is required' },
      { row: 3, field: 'email', email: 'A@Example.com', message: 'Duplicate email (also in row 1)' },
      { row: 4, field: 'email', email: 'no', message: 'Valid email is required' },
    ]);
  });

  it("names a file row's field only when every problem is about that field", () => {
    const two = sortCsvRow({
      row: 9,
      firstName: 'Ann',
      lastName: '',
      email: 'nope',
      raw: ['Ann', '', 'nope'],
      issues: [
        { field: 'lastName', message: 'Last name is required' },
        { field: 'email', message: 'Valid email is required' },
      ],
    });
    expect(two).toEqual({ rejected: { row: 9, email: 'nope', message: 'Last name is required; Valid email is required', firstName: 'Ann', lastName: '' } });
    const one = sortCsvRow({ row: 3, firstName: 'Bo', lastName: '', email: 'bo@example.com', raw: ['Bo', '', 'bo@example.com'], issues: [{ field: 'lastName', message: 'Last name is required' }] });
    expect(one).toMatchObject({ rejected: { row: 3, field: 'lastName', message: 'Last name is required' } });
  });
});

describe('plan usage', () => {
  it('refuses what the free plan does not allow, with the spec messages', () => {
    expect(() => assertFitsPlan({ plan: 'free', projectCount: 3, accountCount: 0 }, 1)).toThrow('You have reached your project limit.');
    expect(() => assertFitsPlan({ plan: 'free', projectCount: 0, accountCount: 0 }, 101)).toThrow('at most 100 accounts per project');
    expect(() => assertFitsPlan({ plan: 'free', projectCount: 2, accountCount: 250 }, 51)).toThrow('You have reached your account limit.');
    expect(() => assertFitsPlan({ plan: 'free', projectCount: 2, accountCount: 250 }, 50)).not.toThrow();
    expect(() => assertFitsPlan({ plan: 'pro', projectCount: 500, accountCount: 1_000_000 }, 50_000)).not.toThrow();
  });

  it('computes status from the counters, -1 for unlimited', () => {
    const sub = { status: 'active', cancelAtPeriodEnd: false };
    expect(subscriptionStatus({ plan: 'free', projectCount: 3, accountCount: 120 }, sub).usage).toMatchObject({
      canCreateProject: false,
      canCreateAccount: true,
      remainingProjects: 0,
      remainingAccounts: 180,
    });
    expect(subscriptionStatus({ plan: 'pro', projectCount: 3, accountCount: 120 }, sub)).toMatchObject({
      subscriptionActive: true,
      usage: { remainingProjects: -1, remainingAccounts: -1, canUseApiIntegrations: true },
    });
  });
});

describe('ids, keys and file names', () => {
  it('time-ordered ids sort by creation', () => {
    const a = timeOrderedId(new Date('2026-01-01T00:00:00Z'));
    const b = timeOrderedId(new Date('2026-01-01T00:00:00.001Z'));
    expect(a < b).toBe(true);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it('search partitions by first character', () => {
    expect(keys.accountSearchPartition('u', 'jose')).toBe('USER#u#ACCOUNTS#j');
    expect(keys.accountSearchPartition('u', '#x')).toBe('USER#u#ACCOUNTS#_');
    expect(keys.allAccountSearchPartitions('u')).toHaveLength(37);
  });
  it('keeps file names safe', () => {
    expect(safeFilename('Spring "2026"/../x')).toBe('Spring _2026__.._x');
    expect(safeFilename('')).toBe('project');
  });
});

describe('password settings (shared by the form and the server)', () => {
  const settings = { minLength: 12, includeUppercase: false, includeLowercase: false, includeNumbers: false, includeSpecialChars: false, avoidAmbiguous: true };

  it('refuse settings without a character class, with a clear message', () => {
    const result = passwordSettingsSchema.safeParse(settings);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([PASSWORD_NO_CLASS_MESSAGE]);
  });

  it('accept every setting the generator can serve, and only lengths of 10 to 50', () => {
    for (const on of ['includeUppercase', 'includeLowercase', 'includeNumbers', 'includeSpecialChars'] as const) {
      for (const minLength of [10, 50]) {
        const parsed = passwordSettingsSchema.parse({ ...settings, minLength, [on]: true });
        expect(createPasswordGenerator(parsed, randomBytes)()).toHaveLength(minLength);
      }
    }
    for (const minLength of [9, 51, 10.5]) expect(passwordSettingsSchema.safeParse({ ...settings, includeNumbers: true, minLength }).success).toBe(false);
  });
});

describe('the rejected-rows report', () => {
  it('keeps every row in parts that fit a DynamoDB item, inline only the first few', () => {
    const rejected = Array.from({ length: 5000 }, (_, i) => ({ row: i + 2, firstName: 'F'.repeat(1000), lastName: `L${i}`, email: 'e'.repeat(254), message: 'Valid email is required', field: 'email' as const }));
    const items = rejectedRowItems('u', 'p', rejected);
    expect(items.length).toBeGreaterThan(1);
    for (const item of items) expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(400 * 1024);
    const rows = items.flatMap((item) => JSON.parse(String(item.rows)) as unknown[][]);
    expect(rows.map((r) => r[0])).toEqual(rejected.map((r) => r.row));
    expect(items.map((item) => item.SK)).toEqual(items.map((_, i) => `PART#${String(i).padStart(6, '0')}`));
    expect(inlineFailed(rejected)).toHaveLength(FAILED_ROWS_INLINE_MAX);
    expect(inlineFailed(rejected)[0]).toEqual({ row: 2, field: 'email', email: 'e'.repeat(254), message: 'Valid email is required' });
  });
});
