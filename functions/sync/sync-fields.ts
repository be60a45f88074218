import { syncFieldLabels } from '../../shared/schemas/account-sync';
import { attributeField } from '../../shared/schemas/account-edit';
import { attributeLabel, type AccountAttributes } from '../../shared/schemas/attributes';

/**
 * The fields a sync compares between a file's row and its account, and writes when they differ
 * (docs/sync.md). One line per field: `path` is where the value lives on the account item (an
 * attribute, or a map and its key), `ofRow` what the file says (undefined: the file does not say,
 * the account keeps its value). The file's extra columns join as `attributes.<key>` fields, one per
 * column the file has: an empty cell says the account has none (removed); a column the file lacks
 * is not compared (the account keeps it).
 */
export interface SyncFileRow {
  row: number;
  firstName: string;
  lastName: string;
  email: string;
  /** The row's extra columns as an account keeps them (normalised keys, trimmed, empty cells left out). */
  attributes: AccountAttributes;
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

/** Where a changed field lives on the account item: `attributes.<key>` in the map, any other by its name. */
export const fieldPath = (field: string): readonly string[] => (field.startsWith('attributes.') ? ['attributes', field.slice('attributes.'.length)] : [field]);

/** The fields of a sync: first name, last name, e-mail, and one per extra column of the file (`attributeKeys`: the header's). */
export function syncFields(attributeKeys: readonly string[] = []): SyncFieldDef[] {
  return [
    { field: 'firstName', label: syncFieldLabels.firstName, path: ['firstName'], ofRow: (r) => r.firstName },
    { field: 'lastName', label: syncFieldLabels.lastName, path: ['lastName'], ofRow: (r) => r.lastName },
    { field: 'email', label: syncFieldLabels.email, path: ['email'], ofRow: (r) => r.email },
    ...attributeKeys.map((key) => ({ field: attributeField(key), label: attributeLabel(key), path: fieldPath(attributeField(key)), ofRow: (r: SyncFileRow) => r.attributes[key] ?? '' })),
  ];
}
