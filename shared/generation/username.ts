/**
 * Usernames (issue 3, spec 9): first name + last name + year, lower case, folded to ASCII;
 * a clash gets a numeric suffix (johnsmith2026, johnsmith2026-2, ...). The preview and the
 * server call the same functions, so they show the same names.
 */

/**
 * Letters that Unicode decomposition leaves alone but that have a usual Latin spelling.
 * (Letters such as é, ñ, ü or ĳ decompose under NFKD and need no entry.)
 */
const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  ø: 'o',
  Ø: 'o',
  œ: 'oe',
  Œ: 'oe',
  ł: 'l',
  Ł: 'l',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
  ħ: 'h',
  Ħ: 'h',
  ŧ: 't',
  Ŧ: 't',
  ŋ: 'ng',
  Ŋ: 'ng',
  ĸ: 'k',
  ſ: 's',
  ƒ: 'f',
  ɨ: 'i',
  ʉ: 'u',
  ƀ: 'b',
  ɓ: 'b',
  ƈ: 'c',
  ɗ: 'd',
  ɠ: 'g',
  ƙ: 'k',
  ƥ: 'p',
  ƭ: 't',
  ʋ: 'v',
  ƴ: 'y',
  ȥ: 'z',
  ɖ: 'd',
  ɛ: 'e',
  Ɛ: 'e',
  ɔ: 'o',
  Ɔ: 'o',
};
const SPECIAL_LETTER_PATTERN = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join('')}]`, 'gu');
const COMBINING_MARKS = /\p{M}/gu;
const NOT_PRINTABLE_ASCII = /[^ -~]/;
const NOT_ALPHANUMERIC = /[^a-z0-9]/g;

/** Lower-case ASCII letters and digits only: accents folded (José -> jose, Øyvind -> oyvind), everything else dropped. */
export function foldToAscii(text: string): string {
  // Most names are plain ASCII; Unicode normalisation is the expensive step, so skip it for them.
  const lower = NOT_PRINTABLE_ASCII.test(text)
    ? text
        .normalize('NFKD')
        .replace(COMBINING_MARKS, '')
        .toLowerCase()
        .replace(SPECIAL_LETTER_PATTERN, (letter) => SPECIAL_LETTERS[letter] ?? '')
    : text.toLowerCase();
  return lower.replace(NOT_ALPHANUMERIC, '');
}

/**
 * The year in a username made at `at`: the UTC year, on the server and in the browser's preview
 * alike. A browser's local year differs from it around New Year (31 December 23:30 in New York
 * is already 2027 in UTC), and the preview would then promise names the server does not give.
 */
export function usernameYear(at: Date): number {
  return at.getUTCFullYear();
}

/**
 * The name part of a username at most: folding can lengthen a name (compatibility characters
 * such as ㎉ become 'kcal'), and a username is part of an index key (1,024 bytes at most).
 */
export const USERNAME_NAME_MAX = 64;

/** ('José', 'Núñez', 2026) -> 'josenunez2026'; names with nothing foldable give 'user2026'. */
export function baseUsername(firstName: string, lastName: string, year: number): string {
  const name = (foldToAscii(firstName) + foldToAscii(lastName)).slice(0, USERNAME_NAME_MAX);
  return `${name || 'user'}${year}`;
}

/**
 * Returns a function that hands out names unique among `taken` and everything it has handed out:
 * the base itself, then base-2, base-3 ... Names compare case-insensitively.
 * A next-suffix counter per base keeps each call O(1) amortised, even for 50,000 identical bases.
 */
export function createUsernameAllocator(taken: Iterable<string>): (base: string) => string {
  const used = new Set<string>();
  for (const name of taken) used.add(name.toLowerCase());
  const nextSuffix = new Map<string, number>();

  return (base: string) => {
    const key = base.toLowerCase();
    if (!used.has(key)) {
      used.add(key);
      return base;
    }
    let suffix = nextSuffix.get(key) ?? 2;
    while (used.has(`${key}-${suffix}`)) suffix++;
    used.add(`${key}-${suffix}`);
    nextSuffix.set(key, suffix + 1);
    return `${base}-${suffix}`;
  };
}

/** The usernames for a list of people, in order, unique among themselves and `taken`. */
export function assignUsernames(
  people: readonly { firstName: string; lastName: string }[],
  year: number,
  taken: Iterable<string> = [],
): string[] {
  const allocate = createUsernameAllocator(taken);
  return people.map((person) => allocate(baseUsername(person.firstName, person.lastName, year)));
}
