import { createHash } from 'node:crypto';
import { keys } from '../core/keys';

/**
 * The Attribute filter's index items (docs/data-model.md, pattern 77): what the writers of
 * accounts need, without the reader (functions/accounts/attribute-index.ts), so the bulk
 * functions bundle no read they are not granted.
 */

/** Values compare without regard to case or surrounding spaces: "sales" finds "Sales". */
export const foldAttributeValue = (value: string): string => value.trim().toLowerCase();

/** The value as a sort-key part: URI-encoded (no '#'), or, when long, a hash of it (a sort key holds 1 KB). */
export function attributeValueKey(value: string): string {
  const folded = foldAttributeValue(value);
  const encoded = encodeURIComponent(folded);
  return encoded.length <= 200 ? encoded : `~${createHash('sha256').update(folded).digest('hex')}`;
}

/** One account's index items (none without extra columns). */
export function attributeIndexItems(userId: string, projectId: string, row: number, attributes: Readonly<Record<string, string>> | undefined): (Record<string, unknown> & { PK: string; SK: string })[] {
  return Object.entries(attributes ?? {})
    .filter(([, value]) => value.trim() !== '')
    .map(([key]) => ({ ...keys.accountAttributeIndex(userId, projectId, key, attributeValueKey(attributes![key]!), row), entityType: 'AccountAttributeIndex', row }));
}

/** What an Edit changes in the index: the entries of values gone or changed to delete, those of new values to put. */
export function attributeIndexChanges(userId: string, projectId: string, row: number, before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>) {
  const beforeItems = attributeIndexItems(userId, projectId, row, before);
  const afterItems = attributeIndexItems(userId, projectId, row, after);
  const afterKeys = new Set(afterItems.map((item) => item.SK));
  const beforeKeys = new Set(beforeItems.map((item) => item.SK));
  return {
    remove: beforeItems.filter((item) => !afterKeys.has(item.SK)).map(({ PK, SK }) => ({ PK, SK })),
    put: afterItems.filter((item) => !beforeKeys.has(item.SK)),
  };
}
