/**
 * How names, e-mails and usernames are stored in the search indexes and how a query is
 * normalised the same way: case and accents do not matter, runs of spaces count as one.
 */
export const searchTerm = (value: string): string =>
  value.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
