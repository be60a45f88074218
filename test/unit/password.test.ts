import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createPasswordGenerator, passwordAlphabet, passwordLength, type RandomBytes } from '../../shared/generation/password';
import { AMBIGUOUS_CHARACTERS, defaultPasswordSettings, type PasswordSettings } from '../../shared/schemas/bulk';

/** Deterministic bytes (splitmix32), so properties replay exactly from their seed. */
function seededBytes(seed: number): RandomBytes {
  let state = seed >>> 0;
  return (length) => {
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      bytes[i] = (z ^ (z >>> 16)) & 0xff;
    }
    return bytes;
  };
}

const webCrypto: RandomBytes = (n) => globalThis.crypto.getRandomValues(new Uint8Array(n));

const settingsArbitrary = fc
  .record({
    minLength: fc.integer({ min: 10, max: 50 }),
    includeUppercase: fc.boolean(),
    includeLowercase: fc.boolean(),
    includeNumbers: fc.boolean(),
    includeSpecialChars: fc.boolean(),
    avoidAmbiguous: fc.boolean(),
  })
  .filter((s) => s.includeUppercase || s.includeLowercase || s.includeNumbers || s.includeSpecialChars);

/**
 * Critical value of chi-square with `df` degrees of freedom at about z = 5 standard deviations
 * (Wilson-Hilferty), i.e. a false alarm well under one in a million per test.
 */
const chiSquareLimit = (df: number) => df * (1 - 2 / (9 * df) + 5 * Math.sqrt(2 / (9 * df))) ** 3;

const chiSquare = (counts: readonly number[]) => {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
};

describe('passwordAlphabet', () => {
  it('uses exactly the spec special characters and the usual letter and digit classes', () => {
    expect(passwordAlphabet(defaultPasswordSettings).classes).toEqual([
      'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
      'abcdefghijklmnopqrstuvwxyz',
      '0123456789',
      '$#@!*&?%',
    ]);
  });

  it('leaves out 0 O o 1 l I | when avoiding ambiguous characters', () => {
    const { all } = passwordAlphabet({ ...defaultPasswordSettings, avoidAmbiguous: true });
    for (const c of '0Oo1lI|') expect(all).not.toContain(c);
    expect(all).toHaveLength(26 + 26 + 10 + 8 - 6);
  });

  it('honours the toggles and refuses settings with no class at all', () => {
    const none: PasswordSettings = {
      ...defaultPasswordSettings,
      includeUppercase: false,
      includeLowercase: false,
      includeNumbers: false,
      includeSpecialChars: false,
    };
    expect(passwordAlphabet({ ...none, includeNumbers: true }).all).toBe('0123456789');
    expect(() => passwordAlphabet(none)).toThrow(/at least one character class/);
  });
});

describe('passwordLength', () => {
  it('clamps to 10..50 and falls back to 12', () => {
    expect(passwordLength(12)).toBe(12);
    expect(passwordLength(4)).toBe(10);
    expect(passwordLength(500)).toBe(50);
    expect(passwordLength(12.9)).toBe(12);
    expect(passwordLength(Number.NaN)).toBe(12);
  });
});

describe('createPasswordGenerator', () => {
  it('makes passwords of the requested length with every enabled class and nothing else', () => {
    fc.assert(
      fc.property(settingsArbitrary, fc.integer(), (settings, seed) => {
        const generate = createPasswordGenerator(settings, seededBytes(seed));
        const { classes, all } = passwordAlphabet(settings);
        const allowed = new Set(all);
        for (let i = 0; i < 10; i++) {
          const password = [...generate()];
          expect(password).toHaveLength(settings.minLength);
          expect(password.every((c) => allowed.has(c))).toBe(true);
          expect(classes.every((chars) => password.some((c) => chars.includes(c)))).toBe(true);
          if (settings.avoidAmbiguous) expect(password.some((c) => AMBIGUOUS_CHARACTERS.includes(c))).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('uses the default settings: 12 characters, upper, lower, digit and special', () => {
    const generate = createPasswordGenerator(defaultPasswordSettings, randomBytes);
    for (let i = 0; i < 1000; i++) expect(generate()).toMatch(/^(?=.*[A-Z])(?=.*[a-z])(?=.*\d)(?=.*[$#@!*&?%])[A-Za-z\d$#@!*&?%]{12}$/);
  });

  it('draws bytes in large chunks, not one call per password', () => {
    let calls = 0;
    const source = seededBytes(1);
    const generate = createPasswordGenerator(defaultPasswordSettings, (n) => {
      calls++;
      return source(n);
    });
    for (let i = 0; i < 1000; i++) generate();
    expect(calls).toBeLessThan(10);
  });

  it('rejects bytes above the largest multiple of the alphabet size (no modulo bias)', () => {
    // Every byte value exactly once per 256: with rejection each of the 26 letters takes exactly
    // 9 of the 234 usable bytes; plain `byte % 26` would give A..V 10 times and W..Z 9 times.
    let next = 0;
    const everyByteInTurn: RandomBytes = (n) => Uint8Array.from({ length: n }, () => next++ & 0xff);
    const upperOnly: PasswordSettings = {
      minLength: 18,
      includeUppercase: true,
      includeLowercase: false,
      includeNumbers: false,
      includeSpecialChars: false,
      avoidAmbiguous: false,
    };
    const generate = createPasswordGenerator(upperOnly, everyByteInTurn);
    const counts = new Map<string, number>();
    for (let i = 0; i < 13 * 32; i++) for (const c of generate()) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(26);
    expect(new Set(counts.values())).toEqual(new Set([9 * 32]));
  });

  it('stays unbiased when the source returns 255 half of the time', () => {
    const source = seededBytes(7);
    const often255: RandomBytes = (n) => source(n).map((b, i) => (i % 2 === 0 ? 255 : b));
    const generate = createPasswordGenerator({ ...defaultPasswordSettings, includeSpecialChars: false }, often255);
    const { all } = passwordAlphabet({ ...defaultPasswordSettings, includeSpecialChars: false });
    const counts = new Map<string, number>([...all].map((c) => [c, 0]));
    // 255 % 62 = 7 is 'H'; kept 255s would make it the most frequent letter by far.
    for (let i = 0; i < 20_000; i++) for (const c of generate()) counts.set(c, counts.get(c)! + 1);
    const upper = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((c) => counts.get(c)!);
    expect(chiSquare(upper)).toBeLessThan(chiSquareLimit(upper.length - 1));
  });

  it('fails loudly instead of spinning when the byte source is broken', () => {
    expect(() => createPasswordGenerator(defaultPasswordSettings, (n) => new Uint8Array(n).fill(255))()).toThrow(/randomBytes/);
    expect(() => createPasswordGenerator(defaultPasswordSettings, () => new Uint8Array(0))()).toThrow(/randomBytes/);
  });

  describe.each([
    ['seeded', () => seededBytes(20261121)],
    ['node:crypto', () => randomBytes as RandomBytes],
    ['Web Crypto', () => webCrypto],
  ])('distribution (%s bytes)', (_name, source) => {
    const settings = defaultPasswordSettings;
    const { classes, all } = passwordAlphabet(settings);
    const draws = 24_000;
    const passwords = Array.from({ length: draws }, createPasswordGenerator(settings, source()));

    it('is uniform within each class at every position', () => {
      for (let position = 0; position < settings.minLength; position++) {
        for (const all of classes) {
          // The first character is never one a spreadsheet reads as a formula (@).
          const chars = position === 0 ? all.replace('@', '') : all;
          const counts = [...chars].map(() => 0);
          for (const password of passwords) {
            const k = chars.indexOf(password[position]!);
            if (k >= 0) counts[k]!++;
          }
          expect(chiSquare(counts), `position ${position}, class ${chars}`).toBeLessThan(chiSquareLimit(chars.length - 1));
        }
      }
    });

    it('gives each class the share a uniform choice among all valid passwords gives it', () => {
      // Number of strings of length n over the alphabet that contain every class in `required`
      // (inclusion-exclusion over the classes left out).
      const sizes = classes.map((c) => c.length);
      const containing = (n: number, required: number[]) => {
        let total = 0;
        for (let mask = 0; mask < 1 << required.length; mask++) {
          let excluded = 0;
          let sign = 1;
          required.forEach((c, i) => {
            if (mask & (1 << i)) {
              excluded += sizes[c]!;
              sign = -sign;
            }
          });
          total += sign * (all.length - excluded) ** n;
        }
        return total;
      };
      const indices = classes.map((_, i) => i);
      const valid = containing(settings.minLength, indices);
      classes.forEach((chars, c) => {
        const expected = (sizes[c]! * containing(settings.minLength - 1, indices.filter((i) => i !== c))) / valid;
        // From the second position on (the first never holds @, see the test above).
        for (let position = 1; position < settings.minLength; position++) {
          const observed = passwords.filter((p) => chars.includes(p[position]!)).length;
          const sd = Math.sqrt(draws * expected * (1 - expected));
          expect(Math.abs(observed - draws * expected), `position ${position}, class ${chars}`).toBeLessThan(5 * sd);
        }
      });
    });

    it('repeats no password', () => {
      expect(new Set(passwords).size).toBe(draws);
    });
  });
});

describe('passwords and exports', () => {
  it('never start with a character a spreadsheet reads as a formula, so exports keep them unchanged', async () => {
    const { createPasswordGenerator } = await import('../../shared/generation/password');
    const { neutraliseFormula } = await import('../../shared/csv/write-csv');
    const { randomBytes } = await import('node:crypto');
    const next = createPasswordGenerator({ minLength: 10, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: true, avoidAmbiguous: false }, randomBytes);
    for (let i = 0; i < 20_000; i++) {
      const password = next();
      expect(neutraliseFormula(password)).toBe(password);
    }
  });
});
