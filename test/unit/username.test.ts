import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assignUsernames, baseUsername, createUsernameAllocator, foldToAscii, usernameYear } from '../../shared/generation/username';

const person = (firstName: string, lastName: string) => ({ firstName, lastName });

/** Any code point (surrogates excepted), with the letters that need a table entry made likely. */
const anyCharacter = fc.oneof(
  fc.constantFrom(...'ßẞæÆøØœŒłŁđĐðÐþÞıİĳﬁＡé\u0301\u0308'),
  fc
    .integer({ min: 0, max: 0x10ffff })
    .filter((c) => c < 0xd800 || c > 0xdfff)
    .map((c) => String.fromCodePoint(c)),
);

describe('foldToAscii', () => {
  it.each([
    ['José', 'jose'],
    ['Núñez', 'nunez'],
    ['Zoë Saldaña', 'zoesaldana'],
    ['Straße', 'strasse'],
    ['Øyvind', 'oyvind'],
    ['Ærøskøbing', 'aeroskobing'],
    ['Łukasz Żółć', 'lukaszzolc'],
    ['Đorđe', 'dorde'],
    ['Þór Guðmundsson', 'thorgudmundsson'],
    ['Œuvre', 'oeuvre'],
    ['Iğdır', 'igdir'],
    ['İstanbul', 'istanbul'],
    ['Ĳsselmeer', 'ijsselmeer'],
    ['Ｊｏｈｎ', 'john'],
    ["O'Brien-Smith Jr.", 'obriensmithjr'],
    ['Anne Marie 2nd', 'annemarie2nd'],
    ['张伟', ''],
    ['', ''],
  ])('%s -> %s', (text, folded) => {
    expect(foldToAscii(text)).toBe(folded);
  });

  it('gives only lower-case ASCII letters and digits, and is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyCharacter }), (text) => {
        const folded = foldToAscii(text);
        expect(folded).toMatch(/^[a-z0-9]*$/);
        expect(foldToAscii(folded)).toBe(folded);
      }),
    );
  });

  it('keeps ASCII letters and digits, lower-cased', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]*$/), (text) => {
        expect(foldToAscii(text)).toBe(text.toLowerCase());
      }),
    );
  });
});

describe('baseUsername', () => {
  it('joins first name, last name and year', () => {
    expect(baseUsername('José', 'Núñez', 2026)).toBe('josenunez2026');
    expect(baseUsername('John', 'Smith', 2026)).toBe('johnsmith2026');
    expect(baseUsername('  Mary Ann ', "O'Neil", 2027)).toBe('maryannoneil2027');
  });

  it('falls back to user + year when nothing folds', () => {
    expect(baseUsername('张', '伟', 2026)).toBe('user2026');
    expect(baseUsername('', '', 2026)).toBe('user2026');
    expect(baseUsername('张', 'Wei', 2026)).toBe('wei2026');
  });
});

describe('usernameYear', () => {
  it('is the UTC year, so the preview and the server agree around New Year in any time zone', () => {
    expect(usernameYear(new Date('2026-12-31T23:30:00-05:00'))).toBe(2027);
    expect(usernameYear(new Date('2027-01-01T00:30:00+01:00'))).toBe(2026);
    expect(usernameYear(new Date('2026-06-15T12:00:00Z'))).toBe(2026);
  });
});

describe('createUsernameAllocator', () => {
  it('hands out the base, then base-2, base-3 ...', () => {
    const allocate = createUsernameAllocator([]);
    expect([1, 2, 3, 4].map(() => allocate('johnsmith2026'))).toEqual([
      'johnsmith2026',
      'johnsmith2026-2',
      'johnsmith2026-3',
      'johnsmith2026-4',
    ]);
    expect(allocate('janedoe2026')).toBe('janedoe2026');
  });

  it('skips names already taken, compared case-insensitively', () => {
    const allocate = createUsernameAllocator(['johnsmith2026', 'JohnSmith2026-3']);
    expect([1, 2, 3].map(() => allocate('johnsmith2026'))).toEqual(['johnsmith2026-2', 'johnsmith2026-4', 'johnsmith2026-5']);
  });

  it('gives 50,000 identical names the free suffixes in order, around many taken ones', () => {
    // Its speed is measured in the bench (npm run bench), not asserted here.
    const taken = ['johnsmith2026', ...Array.from({ length: 5000 }, (_, i) => `johnsmith2026-${2 * i + 2}`)];
    const allocate = createUsernameAllocator(taken);
    const names = Array.from({ length: 50_000 }, () => allocate('johnsmith2026'));
    expect(new Set(names).size).toBe(50_000);
    // Taken: -2, -4, ... -10000; free: the odd suffixes up to -9999, then every number from -10001.
    expect(names.slice(0, 3)).toEqual(['johnsmith2026-3', 'johnsmith2026-5', 'johnsmith2026-7']);
    expect(names.slice(4998, 5001)).toEqual(['johnsmith2026-9999', 'johnsmith2026-10001', 'johnsmith2026-10002']);
    expect(names.at(-1)).toBe('johnsmith2026-55001');
  });
});

describe('assignUsernames', () => {
  it('matches the preview example and numbers clashes inside the same file', () => {
    expect(
      assignUsernames([person('José', 'Núñez'), person('John', 'Smith'), person('john', 'SMITH'), person('Jöhn', 'Smith')], 2026),
    ).toEqual(['josenunez2026', 'johnsmith2026', 'johnsmith2026-2', 'johnsmith2026-3']);
  });

  it('gives unique, well-formed names for any people and any names already taken', () => {
    const name = fc.oneof(fc.constantFrom('John', 'Smith', 'José', 'Núñez', '张', '', 'Ann-Marie', 'ß'), fc.string({ maxLength: 8 }));
    const people = fc.array(fc.record({ firstName: name, lastName: name }), { maxLength: 60 });
    const takenNames = fc.array(
      fc.oneof(
        fc.constantFrom('johnsmith2026', 'johnsmith2026-2', 'user2026', 'user2026-3', 'josenunez2026', 'smithjohn2026'),
        fc.string({ maxLength: 12 }),
      ),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(people, takenNames, (list, taken) => {
        const names = assignUsernames(list, 2026, taken);
        expect(names).toHaveLength(list.length);
        expect(new Set(names).size).toBe(names.length);
        const takenLower = new Set(taken.map((t) => t.toLowerCase()));
        names.forEach((username, i) => {
          expect(username).toMatch(/^[a-z0-9]+(-\d+)?$/);
          expect(takenLower.has(username)).toBe(false);
          const base = baseUsername(list[i]!.firstName, list[i]!.lastName, 2026);
          expect(username === base || username.startsWith(`${base}-`)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('numbers people with the same base in file order, each suffix the smallest free one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.uniqueArray(fc.integer({ min: 2, max: 40 })), (count, takenSuffixes) => {
        const taken = takenSuffixes.map((n) => `annlee2026-${n}`);
        const names = assignUsernames(Array.from({ length: count }, () => person('Ann', 'Lee')), 2026, taken);
        const free = ['annlee2026', ...Array.from({ length: 80 }, (_, i) => `annlee2026-${i + 2}`)].filter((n) => !taken.includes(n));
        expect(names).toEqual(free.slice(0, count));
      }),
    );
  });
});
