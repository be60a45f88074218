/**
 * Number and noun, agreed: "1 account", "2 accounts", "1,000 accounts". Every count the product
 * writes (pages, toasts, e-mails, notifications, activity) goes through here, so no text says
 * "1 accounts" again. English only: one is singular, everything else (0 included) plural.
 *
 * `one` may be a phrase whose first word is the noun ('account has'): `many` then says the plural
 * phrase ('accounts have'). Without `many`, an 's' is added to `one` (account, row, e-mail).
 */
export function plural(count: number, one: string, many: string = `${one}s`): string {
  return `${formatCount(count)} ${pluralWord(count, one, many)}`;
}

/** The noun alone, for texts that write the number apart ("Send 3 e-mails" in two elements). */
export function pluralWord(count: number, one: string, many: string = `${one}s`): string {
  return count === 1 ? one : many;
}

/** Counts as the product writes them: en-US grouping (1,000), the same in browser and Lambda. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
