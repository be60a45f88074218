import {
  AMBIGUOUS_CHARACTERS,
  PASSWORD_DEFAULT_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  SPECIAL_CHARACTERS,
  type PasswordSettings,
} from '../schemas/bulk';

/**
 * A source of cryptographically secure random bytes, injected so this module stays isomorphic
 * and tests can be deterministic. Node: `randomBytes` from node:crypto. Browser:
 * `(n) => crypto.getRandomValues(new Uint8Array(n))` (at most 65,536 bytes per call).
 */
export type RandomBytes = (length: number) => Uint8Array;

const UPPERCASE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWERCASE = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';

/** Bytes fetched per call to RandomBytes: few calls, and within getRandomValues' 64 KB cap. */
const CHUNK_BYTES = 8192;
/**
 * A real source rejects a byte with probability < 1/2, so this many rejections in a row
 * (odds below 2^-256) means the injected source is broken; fail rather than spin forever.
 */
const MAX_REJECTIONS_IN_A_ROW = 256;
/** Same idea for whole passwords: with every alphabet here, over half the draws succeed. */
const MAX_ATTEMPTS = 1000;

/** The character classes the settings enable (ambiguous characters removed when asked) and their union. */
export function passwordAlphabet(settings: PasswordSettings): { classes: string[]; all: string } {
  const wanted = [
    settings.includeUppercase ? UPPERCASE : '',
    settings.includeLowercase ? LOWERCASE : '',
    settings.includeNumbers ? DIGITS : '',
    settings.includeSpecialChars ? SPECIAL_CHARACTERS : '',
  ];
  const classes = wanted
    .map((chars) => (settings.avoidAmbiguous ? [...chars].filter((c) => !AMBIGUOUS_CHARACTERS.includes(c)).join('') : chars))
    .filter((chars) => chars.length > 0);
  if (classes.length === 0) {
    throw new Error('Password settings must enable at least one character class (uppercase, lowercase, numbers or special characters).');
  }
  return { classes, all: classes.join('') };
}

/** The requested length within the spec's range 10..50; anything not a number becomes the default 12. */
export function passwordLength(minLength: number): number {
  if (!Number.isFinite(minLength)) return PASSWORD_DEFAULT_LENGTH;
  return Math.min(PASSWORD_MAX_LENGTH, Math.max(PASSWORD_MIN_LENGTH, Math.floor(minLength)));
}

/**
 * Returns a function that makes one password per call.
 *
 * The password is uniform over every string of the requested length, drawn from the enabled
 * alphabet, that contains at least one character of each enabled class:
 *  1. each character is an unbiased draw from the whole alphabet (rejection sampling on bytes:
 *     a byte is used only below the largest multiple of the alphabet size, so no modulo bias);
 *  2. a candidate missing a class is thrown away and drawn again, and so is one that starts with a
 *     character spreadsheets read as a formula (@ is one of the specials): exports neutralise such
 *     cells with a leading apostrophe, which would change the password handed out.
 * Unlike "one forced character per class, then shuffle", this gives no extra weight to
 * passwords with few characters of a class, and every position has the same distribution.
 * Random bytes are fetched in chunks, so a password costs no RandomBytes call of its own.
 */
/** Characters that make a spreadsheet cell a formula when they come first (see shared/csv/write-csv.ts). */
const FORMULA_START = new Set(['=', '+', '-', '@']);

export function createPasswordGenerator(settings: PasswordSettings, randomBytes: RandomBytes): () => string {
  const { classes, all } = passwordAlphabet(settings);
  const length = passwordLength(settings.minLength);
  const size = all.length;
  const limit = 256 - (256 % size);
  const symbols = [...all];
  // Bit of the class each alphabet index belongs to; a candidate is accepted when its bits cover `required`.
  const classBit = new Uint8Array(size);
  let index = 0;
  classes.forEach((chars, c) => {
    for (let i = 0; i < chars.length; i++) classBit[index++] = 1 << c;
  });
  const required = (1 << classes.length) - 1;

  let buffer: Uint8Array = new Uint8Array(0);
  let position = 0;

  const nextIndex = (): number => {
    for (let rejected = 0; rejected < MAX_REJECTIONS_IN_A_ROW; rejected++) {
      if (position >= buffer.length) {
        buffer = randomBytes(CHUNK_BYTES);
        position = 0;
        if (buffer.length === 0) throw new Error('randomBytes returned no bytes');
      }
      const byte = buffer[position++]!;
      if (byte < limit) return byte % size;
    }
    throw new Error('randomBytes keeps returning unusable bytes; is it really random?');
  };

  return () => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      let password = '';
      let seen = 0;
      for (let i = 0; i < length; i++) {
        const k = nextIndex();
        password += symbols[k];
        seen |= classBit[k]!;
      }
      if (seen === required && !FORMULA_START.has(password.charAt(0))) return password;
    }
    throw new Error('Could not draw a password containing every character class; is randomBytes really random?');
  };
}
