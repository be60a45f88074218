import { syncFieldLabels } from '../../shared/schemas/account-sync';

/**
 * The fields a sync compares between a file's row and its account, and writes when they differ
 * (docs/sync.md). One line per field: `path` is where the value lives on the account item (an
 * attribute, or a map and its key), `ofRow` what the file says (undefined: the file does not say,
 * the account keeps its value). Extra columns kept per account (a map of attributes on the item)
 * join the diff by adding their fields here, e.g.
 *   ...extraColumns.map((name) => ({ field: name, label: name, path: ['attributes', name], ofRow: (r) => r.extra[name] }))
 */
export interface SyncFileRow {
  row: number;
  firstName: string;
  lastName: string;
  email: string;
  /** The file's other columns by their header (a sync keeps them for the fields that read them). */
  extra: Record<string, string>;
}

export interface SyncFieldDef {
  field: string;
  label: string;
  path: readonly string[];
  ofRow: (row: SyncFileRow) => string | undefined;
}

export const valueAt = (item: Record<string, unknown>, path: readonly string[]): string => {
  let value: unknown = item;
  for (const name of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
};

/** The fields of every sync: first name, last name and e-mail. `header`: the file's column names, for fields that come from columns. */
export function syncFields(_header: readonly string[] = []): SyncFieldDef[] {
  return [
    { field: 'firstName', label: syncFieldLabels.firstName, path: ['firstName'], ofRow: (r) => r.firstName },
    { field: 'lastName', label: syncFieldLabels.lastName, path: ['lastName'], ofRow: (r) => r.lastName },
    { field: 'email', label: syncFieldLabels.email, path: ['email'], ofRow: (r) => r.email },
  ];
}
