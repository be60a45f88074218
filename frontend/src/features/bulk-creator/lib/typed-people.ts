/** A person typed into the Add people dialog. */
export interface TypedPerson {
  firstName: string;
  lastName: string;
  email: string;
}

/** One CSV cell, quoted: what is typed is read back exactly by the shared CSV reader. */
const cell = (value: string) => `"${value.replace(/"/g, '""')}"`;

/**
 * The typed people as CSV text with a header, values trimmed: read with the same reader as a
 * chosen file (shared/csv/read-people.ts), so they are checked and previewed the same way.
 */
export function typedPeopleCsv(people: readonly TypedPerson[]): string {
  const lines = ['First Name,Last Name,Email', ...people.map((p) => [p.firstName, p.lastName, p.email].map((v) => cell(v.trim())).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
