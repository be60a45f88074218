import { ACCOUNT_CSV_HEADER, toCsv, UTF8_BOM } from '@shared/csv/write-csv';

export interface CredentialRow {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  username: string;
  password?: string;
}

/** Spec 7: First Name, Last Name, Email, Username, Password; BOM so Excel reads accents right. */
export function createdAccountsCsv(rows: readonly CredentialRow[]): string {
  return (
    UTF8_BOM +
    toCsv(
      ACCOUNT_CSV_HEADER,
      rows.map((row) => [row.firstName, row.lastName, row.email, row.username, row.password ?? '']),
    )
  );
}

/** {projectName}_accounts.csv, as the export endpoint names it. */
export const accountsFileName = (projectName: string): string => `${projectName}_accounts.csv`;
