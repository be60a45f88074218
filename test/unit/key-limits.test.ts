import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountItem, type AccountRecord } from '../../functions/accounts/account-item';
import { SEARCH_TERM_MAX_BYTES, cutToBytes, searchTerm } from '../../functions/accounts/search-terms';
import { USERNAME_NAME_MAX, baseUsername } from '../../shared/generation/username';
import { personSchema } from '../../shared/schemas/bulk';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** Characters that grow most under NFKD (U+FDFA: 18 letters, 33 bytes), fold to several ASCII letters (㎉ -> kcal), or take 4 bytes. */
const expanding = fc.constantFrom('\uFDFA', '\u3389', '\u33AF', '😀', 'é', 'a', ' ', 'ß', '\u2474');

const record = (fields: { firstName: string; lastName: string; email: string }): AccountRecord => ({
  id: '01JDXK8P4ZJ0Q3Q9Y5N6W7E8R9.000001',
  userId: '5b2f7e0c-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  projectId: '01JDXK8P4ZJ0Q3Q9Y5N6W7E8R9',
  projectName: 'P',
  row: 1,
  ...fields,
  username: baseUsername(fields.firstName, fields.lastName, 2026),
  passwordCiphertext: 'v1.x.y.z',
  accountType: 'Standard User',
  isActive: true,
  externalStatus: 'pending',
  createdAt: '2026-11-22T00:00:00.000Z',
});

describe('index key parts stay under DynamoDB\'s 1,024-byte sort key limit (issue 10.6)', () => {
  it('a 100-character name of U+FDFA (3,300 bytes once decomposed) gives a search term of at most 512 bytes', () => {
    const name = '\uFDFA'.repeat(100);
    expect(personSchema.safeParse({ firstName: name, lastName: 'Lee', email: 'a@example.com' }).success).toBe(true);
    expect(bytes(name.normalize('NFKD'))).toBeGreaterThan(3000);
    expect(bytes(searchTerm(name))).toBeLessThanOrEqual(SEARCH_TERM_MAX_BYTES);
  });

  it('cutToBytes never splits a character and keeps short text as it is', () => {
    fc.assert(
      fc.property(fc.array(expanding, { maxLength: 400 }).map((parts) => parts.join('')), fc.integer({ min: 0, max: 600 }), (text, max) => {
        const cut = cutToBytes(text, max);
        expect(bytes(cut)).toBeLessThanOrEqual(max);
        expect(text.startsWith(cut)).toBe(true);
        // Not one whole character more would have fitted.
        const next = [...text.slice(cut.length)][0];
        if (next !== undefined) expect(bytes(cut + next)).toBeGreaterThan(max);
      }),
    );
    expect(cutToBytes('Ann', 512)).toBe('Ann');
  });

  it('a query is cut like the stored term, so a long prefix still finds its account', () => {
    const name = '\uFDFA'.repeat(60);
    expect(searchTerm(name).startsWith(searchTerm(name.slice(0, 40)))).toBe(true);
    expect(searchTerm(name)).toBe(searchTerm(`${name} and more`));
  });

  it('usernames keep at most 64 letters of the name, whatever folding adds', () => {
    expect(baseUsername('\u3389'.repeat(100), '\u33AF'.repeat(100), 2026)).toHaveLength(USERNAME_NAME_MAX + 4);
    expect(baseUsername('John', 'Smith', 2026)).toBe('johnsmith2026');
  });

  it('every index sort key of an account fits, for any names the request schema lets through (1,000 characters before checks)', () => {
    fc.assert(
      fc.property(
        fc.array(expanding, { maxLength: 1000 }).map((parts) => parts.join('')),
        fc.array(expanding, { maxLength: 1000 }).map((parts) => parts.join('')),
        (firstName, lastName) => {
          const item = accountItem(record({ firstName, lastName, email: `${'x'.repeat(64)}@${'d'.repeat(185)}.com` }));
          for (const key of ['GSI1SK', 'GSI2SK', 'GSI3SK', 'GSI4SK'] as const) expect(bytes(String(item[key])), key).toBeLessThanOrEqual(1024);
        },
      ),
      { numRuns: 50 },
    );
  });
});
