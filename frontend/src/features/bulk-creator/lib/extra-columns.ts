import { namesPersonField } from '@shared/csv/read-people';
import { attributeKey, ATTRIBUTE_MESSAGES, MAX_ATTRIBUTES } from '@shared/schemas/attributes';

/**
 * Extra columns typed into a manual entry (the Bulk Creator's and Add people's): named by the
 * user ('Department', 'Cost Center'), kept under the key a file's header would get
 * (shared/schemas/attributes.ts attributeKey), a value per person sent as `attributes` like an
 * import's row (the server checks them again with the same caps).
 */
export interface ExtraColumn {
  /** The normalised key ('costCenter'): what the values are kept under. */
  key: string;
  /** The name as typed ('Cost Center'). */
  label: string;
}


export const extraColumnMessages = {
  fixed: 'First name, last name and e-mail are columns already',
  taken: (label: string) => `"${label}" is a column already`,
  tooMany: `At most ${MAX_ATTRIBUTES} extra columns`,
} as const;

/** A new column from the name typed, or the problem with it (blank or punctuation only, a fixed field, a key taken, over the cap). */
export function newExtraColumn(name: string, columns: readonly ExtraColumn[]): { column: ExtraColumn } | { problem: string } {
  const label = name.trim();
  const key = attributeKey(label);
  if (!key) return { problem: ATTRIBUTE_MESSAGES.badKey(label || name) };
  // The person's own fields, which every row has already (spelt as a file's header may spell them).
  if (namesPersonField(label)) return { problem: extraColumnMessages.fixed };
  const same = columns.find((column) => column.key === key);
  if (same) return { problem: extraColumnMessages.taken(same.label) };
  if (columns.length >= MAX_ATTRIBUTES) return { problem: extraColumnMessages.tooMany };
  return { column: { key, label } };
}

/** One person's values of the columns as a request's `attributes` (empty values left out; none: undefined). */
export function extraValues(columns: readonly ExtraColumn[], values: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  const kept = Object.fromEntries(columns.map((column) => [column.key, (values?.[column.key] ?? '').trim()]).filter(([, value]) => value !== ''));
  return Object.keys(kept).length ? kept : undefined;
}

/** The request's rows: each person's values of the columns still there as `attributes` (an import's row shape). */
export function manualEntryRows(accounts: readonly { firstName: string; lastName: string; email: string; attributes?: Record<string, string> | undefined }[], columns: readonly ExtraColumn[]) {
  return accounts.map(({ firstName, lastName, email, attributes }) => {
    const values = extraValues(columns, attributes);
    return { firstName, lastName, email, ...(values ? { attributes: values } : {}) };
  });
}
