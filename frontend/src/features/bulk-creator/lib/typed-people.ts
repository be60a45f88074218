import type { ExtraColumn } from './extra-columns';

/** A person typed into the Add people dialog; `attributes`: their values of the extra columns, by key. */
export interface TypedPerson {
  firstName: string;
  lastName: string;
  email: string;
  attributes?: Record<string, string>;
}

/** One CSV cell, quoted: what is typed is read back exactly by the shared CSV reader. */
const cell = (value: string) => `"${value.replace(/"/g, '""')}"`;

/**
 * The typed people as CSV text with a header, values trimmed: read with the same reader as a
 * chosen file (shared/csv/read-people.ts), so they are checked and previewed the same way. The
 * extra columns follow the three, headed by their names (the reader normalises them as a file's).
 */
export function typedPeopleCsv(people: readonly TypedPerson[], columns: readonly ExtraColumn[] = []): string {
  const header = ['First Name', 'Last Name', 'Email', ...columns.map((column) => column.label)].map(cell).join(',');
  const lines = [header, ...people.map((p) => [p.firstName, p.lastName, p.email, ...columns.map((column) => p.attributes?.[column.key] ?? '')].map((v) => cell(v.trim())).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
