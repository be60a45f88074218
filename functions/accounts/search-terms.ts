/**
 * How names, e-mails and usernames are stored in the search indexes and how a query is
 * normalised the same way: case and accents do not matter, runs of spaces count as one.
 *
 * A term is at most SEARCH_TERM_MAX_BYTES of UTF-8, cut at a character boundary: it becomes part
 * of an index sort key, which DynamoDB caps at 1,024 bytes, and normalisation can make a short
 * value long (U+FDFA is one character and 33 bytes once decomposed). Stored terms and queries are
 * cut alike, so a prefix search still finds the account.
 */
export const SEARCH_TERM_MAX_BYTES = 512;

const encoder = new TextEncoder();

/** `text` cut to at most `maxBytes` of UTF-8 without splitting a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    bytes += encoder.encode(character).length;
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}

export const searchTerm = (value: string): string =>
  cutToBytes(value.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim(), SEARCH_TERM_MAX_BYTES);
